// Hosts of a job and the placement of ranks on them: `--host h1[:slots],h2`,
// `--hostfile F` (lines "host [slots=N]" as Open MPI writes them, or
// "host:N" as MPICH's Hydra does; '#' comments), and the default (this host
// with one slot per online core).
//
//   LZ_ASSIGN_OR_RETURN(auto hosts, parse_host_option("a:2,b"));
//   LZ_ASSIGN_OR_RETURN(auto placement, place_ranks(hosts, np, true));
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lazarus/status.h"

namespace lz::launcher {

struct HostEntry {
  std::string name;
  int slots = 1;
};

struct Placement {
  std::string host;
  uint64_t node_id = 0;  // equal for ranks on the same machine
  int local_rank = 0;
  int local_size = 0;
  std::vector<int> cpus;  // the CPUs the rank is bound to (launcher/binding.h); empty: not bound
};

StatusOr<std::vector<HostEntry>> parse_host_option(std::string_view text);
StatusOr<std::vector<HostEntry>> parse_hostfile(const std::string& path);
// This host, with one slot per online core.
std::vector<HostEntry> default_hosts();
std::string local_hostname();
// Whether `name` names this machine (its host name, "localhost", or one of
// its interface addresses).
bool is_local_host(const std::string& name);

// `lazarus run --map-by`, Open MPI's option and meaning: which rank goes
// where. On the hosts: slot fills each host's slots in order, node gives the
// hosts one rank each in turn; core and socket place on the hosts as slot
// does and decide, on each host, the core each local rank is mapped to (and
// so bound to, launcher/binding.h): consecutive cores, or the sockets in turn.
// kDefault: core, or socket with --bind-to socket.
// hwthread, numa and l3cache place as slot does and map to hardware threads,
// NUMA nodes or L3 caches in turn on the host (launcher/binding.h).
enum class MapBy { kDefault, kSlot, kNode, kCore, kSocket, kHwthread, kNuma, kL3cache };
// "slot", "node", "core", "socket" (or "package"), "hwthread", "numa",
// "l3cache"; kInvalidArgument names the value and the choices.
StatusOr<MapBy> parse_map_by(std::string_view text);

// Places `np` ranks on the hosts' slots as `map` says (node: round-robin over
// the hosts with a free slot; otherwise each host's slots in order); beyond
// the total, places ranks round-robin over the hosts when `oversubscribe`,
// otherwise fails saying how many slots there are.
StatusOr<std::vector<Placement>> place_ranks(const std::vector<HostEntry>& hosts, int np, bool oversubscribe,
                                             MapBy map = MapBy::kDefault);

}  // namespace lz::launcher
