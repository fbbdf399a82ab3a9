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
    {kParamLauncher, ParamType::kEnum, "auto",
     "How ranks on other hosts are started: auto (slurm inside a Slurm allocation, i.e. when SLURM_JOB_ID is set; "
     "otherwise ssh when a host is not this one, local when all are), ssh (the launch_agent, one helper per "
     "remote host), slurm (one srun starts a helper on every host of the job, this one included; the hosts "
     "default to the allocation's), local (this host only: other hosts are refused)",
     3, "auto|ssh|slurm|local"},
    {kParamBootstrap, ParamType::kEnum, "auto",
     "How a rank joins its job: auto (the first its environment names: lazarus run's LZ_OOB_ADDR, a PMIx "
     "server's PMIX_NAMESPACE, a PMI-2 manager's PMI_FD, else a singleton), oob (lazarus run only), pmix, pmi2, "
     "singleton (a job of one rank whatever started it). Read by each rank from its environment "
     "(LZ_MCA_bootstrap, e.g. beside srun)",
     3, "auto|oob|pmix|pmi2|singleton"},
    {kParamLaunchSrun, ParamType::kString, "srun",
     "Command that starts the helpers inside a Slurm allocation (launcher=slurm), split into words, then given "
     "the node and task options and the helper's command (e.g. 'srun --partition=p', as Open MPI's plm_slurm_args)",
     4},
    {kParamLaunchPrefix, ParamType::kString, "",
     "Installation prefix of Lazarus on the other hosts: their helper is <prefix>/bin/lazarus (mpirun --prefix, "
     "as Open MPI's); empty: the same path as this lazarus",
     4},
    {kParamLaunchAgentTimeout, ParamType::kDouble, "60",
     "Seconds a remote host's helper has to connect back to the launcher after its launch agent started, "
     "and to answer a rank start",
     5},
    {kParamHelperKeepalive, ParamType::kDouble, "10",
     "Seconds of silence (TCP keepalive probes unanswered) after which the launcher takes a remote host's "
     "helper for lost, as if it had died: a host whose link went down; in a job srun started (no helpers), "
     "each rank's connection to the job's coordinator (0: never)",
     5},
    {kParamHelperPidNamespace, ParamType::kBool, "false",
     "Start each helper as pid 1 of its own PID namespace (an ordinary user's inside a user namespace of its "
     "own, always for their cr=criu jobs), so that core images of ranks can be restored on its host while "
     "the job runs: `lazarus migrate --to` another host and `lazarus evacuate` "
     "under cr=criu need it. The pids `lazarus ps` shows for ranks of those hosts are then the namespace's. "
     "(`lazarus restart` onto other hosts always starts its helpers so.)",
     4},
};

}  // namespace

Status register_runtime_params(Registry& reg) {
  return reg.register_params(kParams, std::size(kParams), "runtime");
}

}  // namespace lz::oob
