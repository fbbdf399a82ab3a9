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
    {kParamConnectTimeout, ParamType::kDouble, "60", "Seconds a rank waits to connect and authenticate to its launcher",
     5},
    {kParamKillGrace, ParamType::kDouble, "3", "Seconds between SIGTERM and SIGKILL when the launcher stops a job", 4},
    {kParamLaunchAgent, ParamType::kString, "ssh",
     "Command that starts the per-host helper on another host, split into words, then given the host name "
     "and the helper's command (as Open MPI's plm_rsh_agent), e.g. 'ssh -F /path/ssh_config'",
     3},
    {kParamLaunchAgentTimeout, ParamType::kDouble, "60",
     "Seconds a remote host's helper has to connect back to the launcher after its launch agent started, "
     "and to answer a rank start",
     5},
    {kParamHelperKeepalive, ParamType::kDouble, "10",
     "Seconds of silence (TCP keepalive probes unanswered) after which the launcher takes a remote host's "
     "helper for lost, as if it had died: a host whose link went down (0: never)",
     5},
};

}  // namespace

Status register_runtime_params(Registry& reg) {
  return reg.register_params(kParams, std::size(kParams), "runtime");
}

}  // namespace lz::oob
