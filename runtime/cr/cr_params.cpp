#include "cr/cr_params.h"

#include <iterator>

namespace lz::rt {
namespace {
constexpr ParamSpec kParams[] = {
    {kParamCrDrainTimeout, ParamType::kDouble, "60",
     "Seconds a rank's checkpoint drain (crcp) may wait for the data its peers sent it before the checkpoint "
     "fails, naming the peers and their bookmarks",
     4},
    {kParamCrHookTimeout, ParamType::kDouble, "30",
     "Seconds the transports' checkpoint hooks may keep refusing (frames still moving) before the checkpoint "
     "fails",
     6},
};
}  // namespace

Status register_cr_params(Registry& reg) {
  return reg.register_params(kParams, std::size(kParams), "runtime/cr");
}

}  // namespace lz::rt
