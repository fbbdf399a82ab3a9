#include "criu_env.h"

#include <cstdlib>

namespace lz::cr::criu {

std::vector<std::string> criu_environment() {
  if (std::getenv("CRIU_FAULT") != nullptr) return {};
  return {"CRIU_FAULT=130"};
}

}  // namespace lz::cr::criu
