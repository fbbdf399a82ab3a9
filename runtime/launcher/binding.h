// Binding ranks to CPUs: `lazarus run --bind-to core|socket|hwthread|numa|
// l3cache|none` (Open MPI's and Hydra's option and meaning). Production runs
// are bound (Slurm cpusets, launchers' --bind-to): a rank that stays on its
// core keeps its caches and never waits behind another rank of the job.
//
//   core     local rank i runs on the core(s) it is mapped to (all their
//            hardware threads); more ranks on a host than cores is an error
//            naming both counts
//   hwthread local rank i runs on one hardware thread: the first of its core,
//            or the i-th thread with --map-by hwthread
//   socket, numa, l3cache
//            local rank i runs on the socket (package), NUMA node or L3
//            cache holding its core
//   none     ranks inherit the launcher's CPUs
//
// The core local rank i is mapped to (--map-by, launcher/host_list.h): the
// i-th core (core, slot, node), or the cores of the sockets (NUMA nodes, L3
// caches) taken in turn (socket, numa, l3cache: the first core of each, then
// the second...), or the i-th hardware thread (hwthread). With PE=n
// (--map-by ...:PE=n) each rank is mapped to n of them in a row and bound to
// all n. Mapped past the last one, a rank starts over from the first.
//   (not given) core when the host's ranks (times PE) are no more than its
//           cores, otherwise none, as Open MPI does
//
// Only the CPUs the launcher may use count (its affinity mask and cgroup
// cpuset): `taskset -c 0-1 mpirun ...` binds inside CPUs 0-1. The topology
// comes from hwloc.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "launcher/host_list.h"
#include "lazarus/status.h"

namespace lz::launcher {

enum class BindTo { kDefault, kNone, kCore, kSocket, kHwthread, kNuma, kL3cache };

// "core", "socket" (or "package"), "hwthread", "numa", "l3cache", "none";
// kInvalidArgument names the value and the choices.
StatusOr<BindTo> parse_bind_to(std::string_view text);

// The CPUs of this host the launcher may use, by core and by socket, in
// hwloc's logical order (no empty group).
struct CpuTopology {
  std::vector<std::vector<int>> cores;
  std::vector<std::vector<int>> sockets;
  std::vector<std::vector<int>> numas;  // NUMA nodes (one of all CPUs when hwloc reports none)
  std::vector<std::vector<int>> l3s;    // L3 caches (likewise)
};
StatusOr<CpuTopology> local_cpu_topology();

// Sets Placement::cpus of the ranks placed on this host (`local`: whether a
// placement's host is this one) by `how` and `map` on `topo`. Ranks of other
// hosts are left unbound.
// `per_rank` (PE=n): CPUs (cores, or hardware threads with --map-by
// hwthread) each rank is mapped to; 0 or 1: one.
Status bind_ranks(BindTo how, MapBy map, const CpuTopology& topo, std::vector<Placement>& placement,
                  const std::vector<bool>& local, int per_rank = 1);

// What `lazarus run` does: parses `bind_to` ("" is the default), reads this
// host's topology and binds the ranks placed here. Without a readable
// topology the default leaves ranks unbound (and says so at info level); an
// explicit core or socket is then an error.
Status bind_local_ranks(const std::string& bind_to, MapBy map, std::vector<Placement>& placement, int per_rank = 1);
// "rank 3 bound to CPUs 2-3 (host h)" per rank, for --report-bindings.
std::vector<std::string> describe_bindings(const std::vector<Placement>& placement);

}  // namespace lz::launcher
