// JobPlan: where every rank of a job runs and which program it runs, from
// the command line's programs (MPMD contexts) and the job's hosts, as Open
// MPI's and MPICH Hydra's mpirun decide it:
//   - each program's ranks follow the previous program's, on the slots those
//     left free (its own -host, or the job's hosts), then oversubscribe;
//   - -N / --npernode / -ppn / --map-by ppr:N:node: N slots per host (and,
//     without -np, N ranks on every host); ppr:N:socket: N per socket;
//   - --nolocal: no rank on this host;
//   - --map-by slot|node (and core|socket|hwthread|numa|l3cache, which place
//     as slot does and decide the CPUs on the host, launcher/binding.h);
//   - --rank-by node: the placed slots numbered round-robin over the hosts.
//
//   LZ_ASSIGN_OR_RETURN(JobPlan plan, plan_job(options, hosts));
//   plan.placement[r].host, plan.rank_app[r]
#pragma once

#include <string>
#include <vector>

#include "launcher/host_list.h"
#include "launcher/job_spec.h"
#include "lazarus/status.h"

namespace lz::launcher {

struct RunOptions;

struct JobPlan {
  std::vector<HostEntry> hosts;      // the job's hosts with their slots (npernode applied)
  std::vector<Placement> placement;  // one per rank
  std::vector<int> rank_app;         // each rank's program (index into RunOptions::apps)
  MapBy map = MapBy::kDefault;
  int cpus_per_rank = 0;  // --map-by ...:PE=n (0: one core, or the binding's object)
  int sockets = 1;        // this host's sockets (ppr:N:socket)
};

// Errors name the option at fault: a program with -np 0 beside others, no
// host left after --nolocal, more ranks than slots with --nooversubscribe ...
StatusOr<JobPlan> plan_job(const RunOptions& o, std::vector<HostEntry> hosts);

// "host h0 slots 2", one line per host (--display-allocation).
std::vector<std::string> describe_allocation(const std::vector<HostEntry>& hosts);
// "rank 2 on h1 (local rank 0), program 1 (./b x y), CPUs 2", one per rank (--display-map).
std::vector<std::string> describe_map(const JobSpec& spec);

}  // namespace lz::launcher
