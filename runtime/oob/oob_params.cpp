#include "oob/oob_params.h"

#include <iterator>

namespace lz::oob {
namespace {

constexpr ParamSpec kParams[] = {
    {kParamAddress, ParamType::kString, "",
     "Where the launcher's OOB listener binds: an IP address, a host name or a network interface name "
     "(empty: every interface). Ranks are given a routable address of it.",
     3},
    {kParamPort, ParamType::kInt, "0", "TCP port of the launcher's OOB listener (0: any free port)", 3},
    {kParamHandshakeTimeout, ParamType::kDouble, "5",
     "Seconds a new OOB connection has to authenticate before the launcher drops it", 5},
    {kParamConnectTimeout, ParamType::kDouble, "60",
     "Seconds a rank waits to connect and authenticate to its launcher", 5},
    {kParamKillGrace, ParamType::kDouble, "3",
     "Seconds between SIGTERM and SIGKILL when the launcher stops a job", 4},
};

}  // namespace

Status register_runtime_params(Registry& reg) {
  return reg.register_params(kParams, std::size(kParams), "runtime");
}

}  // namespace lz::oob
