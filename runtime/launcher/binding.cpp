#include "launcher/binding.h"

#include <hwloc.h>

#include <algorithm>
#include <map>
#include <set>

#include "lazarus/cpu_list.h"
#include "lazarus/log.h"

namespace lz::launcher {
namespace {

// The allowed PUs of every object of `type`, in logical order; groups with no
// allowed PU are dropped.
std::vector<std::vector<int>> groups_of(hwloc_topology_t topo, hwloc_obj_type_t type, const std::set<int>& allowed) {
  std::vector<std::vector<int>> out;
  int n = hwloc_get_nbobjs_by_type(topo, type);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(topo, type, static_cast<unsigned>(i));
    if (obj == nullptr || obj->cpuset == nullptr) continue;
    std::vector<int> pus;
    for (int id = hwloc_bitmap_first(obj->cpuset); id >= 0; id = hwloc_bitmap_next(obj->cpuset, id))
      if (allowed.count(id) != 0) pus.push_back(id);
    if (!pus.empty()) out.push_back(std::move(pus));
  }
  return out;
}

// The cores in the order local ranks are mapped to them: as they come (core),
// or one of each socket in turn (socket).
std::vector<const std::vector<int>*> mapping_order(MapBy map, const CpuTopology& topo) {
  std::vector<const std::vector<int>*> order;
  if (map != MapBy::kSocket) {
    for (const auto& c : topo.cores) order.push_back(&c);
    return order;
  }
  std::vector<std::vector<const std::vector<int>*>> by_socket(topo.sockets.size());
  for (const auto& c : topo.cores)
    for (size_t s = 0; s < topo.sockets.size(); ++s)
      if (std::find(topo.sockets[s].begin(), topo.sockets[s].end(), c.front()) != topo.sockets[s].end()) {
        by_socket[s].push_back(&c);
        break;
      }
  for (size_t k = 0; order.size() < topo.cores.size(); ++k) {
    const size_t before = order.size();
    for (const auto& cores : by_socket)
      if (k < cores.size()) order.push_back(cores[k]);
    if (order.size() == before) break;  // a core in no socket: never expected from hwloc
  }
  return order;
}

const std::vector<int>& socket_of(const CpuTopology& topo, const std::vector<int>& core) {
  for (const auto& s : topo.sockets)
    if (std::find(s.begin(), s.end(), core.front()) != s.end()) return s;
  return core;
}

}  // namespace

StatusOr<BindTo> parse_bind_to(std::string_view text) {
  if (text == "core") return BindTo::kCore;
  if (text == "socket") return BindTo::kSocket;
  if (text == "none") return BindTo::kNone;
  return InvalidArgument("--bind-to '" + std::string(text) + "': expected core, socket or none");
}

StatusOr<CpuTopology> local_cpu_topology() {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return Internal("hwloc_topology_init failed");
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return Internal("hwloc could not read this machine's topology");
  }
  std::vector<int> mine = own_cpus();
  std::set<int> allowed(mine.begin(), mine.end());
  CpuTopology t;
  t.cores = groups_of(topo, HWLOC_OBJ_CORE, allowed);
  if (t.cores.empty()) t.cores = groups_of(topo, HWLOC_OBJ_PU, allowed);  // no core level reported
  t.sockets = groups_of(topo, HWLOC_OBJ_PACKAGE, allowed);
  hwloc_topology_destroy(topo);
  if (t.sockets.empty()) {
    std::vector<int> all;
    for (const auto& c : t.cores) all.insert(all.end(), c.begin(), c.end());
    std::sort(all.begin(), all.end());
    t.sockets.push_back(std::move(all));
  }
  if (t.cores.empty()) return Internal("hwloc found no CPU this launcher may use");
  return t;
}

Status bind_ranks(BindTo how, MapBy map, const CpuTopology& topo, std::vector<Placement>& placement,
                  const std::vector<bool>& local) {
  int here = 0;
  for (size_t i = 0; i < placement.size(); ++i) here += local[i] ? 1 : 0;
  const int cores = static_cast<int>(topo.cores.size());
  if (how == BindTo::kDefault) how = here <= cores ? BindTo::kCore : BindTo::kNone;
  if (how == BindTo::kCore && here > cores)
    return InvalidArgument("--bind-to core: " + std::to_string(here) + " ranks on this host but only " +
                           std::to_string(cores) + " cores the launcher may use (" +
                           format_cpu_list(own_cpus()) + "); use --bind-to none (or socket), or fewer ranks");
  if (map == MapBy::kDefault) map = how == BindTo::kSocket ? MapBy::kSocket : MapBy::kCore;
  const auto order = mapping_order(map, topo);
  for (size_t i = 0; i < placement.size(); ++i) {
    Placement& p = placement[i];
    p.cpus.clear();
    if (!local[i] || how == BindTo::kNone || order.empty()) continue;
    const std::vector<int>& core = *order[static_cast<size_t>(p.local_rank) % order.size()];
    p.cpus = how == BindTo::kCore ? core : socket_of(topo, core);
  }
  return Status::Ok();
}

Status bind_local_ranks(const std::string& bind_to, MapBy map, std::vector<Placement>& placement) {
  BindTo how = BindTo::kDefault;
  if (!bind_to.empty()) {
    LZ_ASSIGN_OR_RETURN(how, parse_bind_to(bind_to));
  }
  if (how == BindTo::kNone) return Status::Ok();
  auto topo = local_cpu_topology();
  if (!topo.ok()) {
    if (how != BindTo::kDefault) return topo.status().with_context("--bind-to " + bind_to);
    log::info("ranks left unbound: %s", topo.status().message().c_str());
    return Status::Ok();
  }
  std::map<std::string, bool> host_is_local;  // one interface lookup per host, not per rank
  std::vector<bool> local;
  for (const auto& p : placement) {
    auto it = host_is_local.find(p.host);
    if (it == host_is_local.end()) it = host_is_local.emplace(p.host, is_local_host(p.host)).first;
    local.push_back(it->second);
  }
  return bind_ranks(how, map, *topo, placement, local);
}

std::vector<std::string> describe_bindings(const std::vector<Placement>& placement) {
  std::vector<std::string> out;
  for (size_t r = 0; r < placement.size(); ++r)
    out.push_back("rank " + std::to_string(r) + " " +
                  (placement[r].cpus.empty() ? std::string("not bound")
                                             : "bound to CPUs " + format_cpu_list(placement[r].cpus)) +
                  " (host " + placement[r].host + ")");
  return out;
}

}  // namespace lz::launcher
