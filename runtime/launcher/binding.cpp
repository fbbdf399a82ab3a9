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

// The groups (sockets, NUMA nodes, L3 caches) `map` deals cores out of in
// turn; null: the cores as they come.
const std::vector<std::vector<int>>* turn_groups(MapBy map, const CpuTopology& topo) {
  switch (map) {
    case MapBy::kSocket:
      return &topo.sockets;
    case MapBy::kNuma:
      return &topo.numas;
    case MapBy::kL3cache:
      return &topo.l3s;
    default:
      return nullptr;
  }
}

bool contains(const std::vector<int>& group, int cpu) {
  return std::find(group.begin(), group.end(), cpu) != group.end();
}

// The units local ranks are mapped to, in order: the hardware threads
// (hwthread), the cores as they come (core, slot, node), or one core of each
// group in turn (socket, numa, l3cache).
std::vector<std::vector<int>> mapping_order(MapBy map, const CpuTopology& topo) {
  std::vector<std::vector<int>> order;
  if (map == MapBy::kHwthread) {
    for (const auto& c : topo.cores)
      for (int pu : c) order.push_back({pu});
    return order;
  }
  const auto* groups = turn_groups(map, topo);
  if (groups == nullptr) return topo.cores;
  std::vector<std::vector<const std::vector<int>*>> by_group(groups->size());
  for (const auto& c : topo.cores)
    for (size_t g = 0; g < groups->size(); ++g)
      if (contains((*groups)[g], c.front())) {
        by_group[g].push_back(&c);
        break;
      }
  for (size_t k = 0; order.size() < topo.cores.size(); ++k) {
    const size_t before = order.size();
    for (const auto& cores : by_group)
      if (k < cores.size()) order.push_back(*cores[k]);
    if (order.size() == before) break;  // a core in no group: never expected from hwloc
  }
  return order;
}

// The union of the groups that hold any of `cpus`.
std::vector<int> groups_holding(const std::vector<std::vector<int>>& groups, const std::vector<int>& cpus) {
  std::set<int> out;
  for (const auto& g : groups)
    if (std::any_of(cpus.begin(), cpus.end(), [&](int c) { return contains(g, c); })) out.insert(g.begin(), g.end());
  return {out.begin(), out.end()};
}

}  // namespace

StatusOr<BindTo> parse_bind_to(std::string_view text) {
  if (text == "core") return BindTo::kCore;
  if (text == "socket" || text == "package") return BindTo::kSocket;
  if (text == "hwthread") return BindTo::kHwthread;
  if (text == "numa") return BindTo::kNuma;
  if (text == "l3cache") return BindTo::kL3cache;
  if (text == "none") return BindTo::kNone;
  return InvalidArgument("--bind-to '" + std::string(text) +
                         "': expected core, socket, hwthread, numa, l3cache or none");
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
  t.numas = groups_of(topo, HWLOC_OBJ_NUMANODE, allowed);
  t.l3s = groups_of(topo, HWLOC_OBJ_L3CACHE, allowed);
  hwloc_topology_destroy(topo);
  if (t.cores.empty()) return Internal("hwloc found no CPU this launcher may use");
  std::vector<int> all;
  for (const auto& c : t.cores) all.insert(all.end(), c.begin(), c.end());
  std::sort(all.begin(), all.end());
  for (auto* groups : {&t.sockets, &t.numas, &t.l3s})
    if (groups->empty()) groups->push_back(all);  // the level is not reported: one group of everything
  return t;
}

Status bind_ranks(BindTo how, MapBy map, const CpuTopology& topo, std::vector<Placement>& placement,
                  const std::vector<bool>& local, int per_rank) {
  per_rank = std::max(per_rank, 1);
  int here = 0;
  for (size_t i = 0; i < placement.size(); ++i) here += local[i] ? 1 : 0;
  const int cores = static_cast<int>(topo.cores.size());
  if (how == BindTo::kDefault) how = here * per_rank <= cores ? BindTo::kCore : BindTo::kNone;
  if (how == BindTo::kCore && map != MapBy::kHwthread && here * per_rank > cores)
    return InvalidArgument("--bind-to core: " + std::to_string(here) + " ranks" +
                           (per_rank > 1 ? " of " + std::to_string(per_rank) + " cores each (PE)" : std::string()) +
                           " on this host but only " + std::to_string(cores) + " cores the launcher may use (" +
                           format_cpu_list(own_cpus()) + "); use --bind-to none (or socket), or fewer ranks");
  if (map == MapBy::kDefault) {
    map = how == BindTo::kSocket    ? MapBy::kSocket
          : how == BindTo::kNuma    ? MapBy::kNuma
          : how == BindTo::kL3cache ? MapBy::kL3cache
                                    : MapBy::kCore;
  }
  const auto order = mapping_order(map, topo);
  for (size_t i = 0; i < placement.size(); ++i) {
    Placement& p = placement[i];
    p.cpus.clear();
    if (!local[i] || how == BindTo::kNone || order.empty()) continue;
    // The units this rank is mapped to: per_rank of them in a row.
    std::vector<int> mapped;
    for (int k = 0; k < per_rank; ++k) {
      const auto& unit = order[static_cast<size_t>(p.local_rank * per_rank + k) % order.size()];
      mapped.insert(mapped.end(), unit.begin(), unit.end());
    }
    switch (how) {
      case BindTo::kCore:
        p.cpus = groups_holding(topo.cores, mapped);
        break;
      case BindTo::kHwthread:
        if (map == MapBy::kHwthread) {
          p.cpus = mapped;
        } else {  // the first thread of each mapped core
          for (const auto& c : topo.cores)
            if (contains(mapped, c.front())) p.cpus.push_back(c.front());
        }
        break;
      case BindTo::kSocket:
        p.cpus = groups_holding(topo.sockets, mapped);
        break;
      case BindTo::kNuma:
        p.cpus = groups_holding(topo.numas, mapped);
        break;
      case BindTo::kL3cache:
        p.cpus = groups_holding(topo.l3s, mapped);
        break;
      default:
        break;
    }
    std::sort(p.cpus.begin(), p.cpus.end());
  }
  return Status::Ok();
}

Status bind_local_ranks(const std::string& bind_to, MapBy map, std::vector<Placement>& placement, int per_rank) {
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
  return bind_ranks(how, map, *topo, placement, local, per_rank);
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
