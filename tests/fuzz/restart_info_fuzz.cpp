// Fuzz target: the restart information a restored rank reads from its pipe.
#include <cstddef>
#include <cstdint>
#include <string>

#include "oob/restart_info.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)lz::oob::decode_restart_info(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
