#include "launcher/job_plan.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "launcher/binding.h"
#include "launcher/launcher.h"
#include "lazarus/cpu_list.h"
#include "lazarus/strings.h"

namespace lz::launcher {
namespace {

// --map-by as Open MPI 4 and 5 spell it: OBJECT[:MODIFIER...], OBJECT one of
// slot, node, core, socket (package), hwthread, numa, l3cache, or ppr:N:node|socket;
// modifiers PE=n, OVERSUBSCRIBE, NOOVERSUBSCRIBE, SPAN (accepted).
struct Mapping {
  MapBy map = MapBy::kDefault;
  int ppr = 0;  // ranks per node or socket
  bool ppr_socket = false;
  int pe = 0;              // CPUs per rank
  int oversubscribe = -1;  // -1: as the options say; 0/1: the modifier's
};

StatusOr<Mapping> parse_mapping(const std::string& text) {
  Mapping m;
  if (text.empty()) return m;
  std::vector<std::string> parts = str::split(text, ':');
  const std::string what = "--map-by '" + text + "'";
  size_t next = 1;
  const std::string object = str::to_lower(parts[0]);
  if (object == "ppr") {
    if (parts.size() < 3)
      return InvalidArgument(what + ": ppr needs a count and an object: ppr:N:node or ppr:N:socket");
    char* end = nullptr;
    const long n = std::strtol(parts[1].c_str(), &end, 10);
    if (end == parts[1].c_str() || *end != '\0' || n < 1)
      return InvalidArgument(what + ": '" + parts[1] + "' is not a positive count");
    const std::string per = str::to_lower(parts[2]);
    if (per != "node" && per != "socket" && per != "package")
      return InvalidArgument(what + ": ppr counts per node or per socket, not '" + parts[2] + "'");
    m.ppr = static_cast<int>(n);
    m.ppr_socket = per != "node";
    m.map = m.ppr_socket ? MapBy::kSocket : MapBy::kSlot;
    next = 3;
  } else {
    LZ_ASSIGN_OR_RETURN(m.map, parse_map_by(object == "package" ? "socket" : object));
  }
  for (size_t i = next; i < parts.size(); ++i) {
    const std::string mod = str::to_lower(parts[i]);
    if (mod.rfind("pe=", 0) == 0) {
      char* end = nullptr;
      const long n = std::strtol(mod.c_str() + 3, &end, 10);
      if (end == mod.c_str() + 3 || *end != '\0' || n < 1)
        return InvalidArgument(what + ": PE needs a positive count of CPUs per rank");
      m.pe = static_cast<int>(n);
    } else if (mod == "oversubscribe") {
      m.oversubscribe = 1;
    } else if (mod == "nooversubscribe") {
      m.oversubscribe = 0;
    } else if (mod != "span" && mod != "nolocal" && mod != "display") {
      return InvalidArgument(what + ": unknown modifier '" + parts[i] +
                             "' (known: PE=n, OVERSUBSCRIBE, NOOVERSUBSCRIBE, SPAN)");
    }
  }
  return m;
}

// Renumbers each program's ranks round-robin over the hosts they were
// placed on (--rank-by node): host order as placed, slots in order.
void rank_by_node(std::vector<Placement>& placement, const std::vector<int>& rank_app) {
  std::vector<Placement> out;
  out.reserve(placement.size());
  for (size_t begin = 0; begin < placement.size();) {
    size_t end = begin;
    while (end < placement.size() && rank_app[end] == rank_app[begin]) ++end;
    std::vector<std::string> order;
    std::map<std::string, std::vector<Placement>> by_host;
    for (size_t i = begin; i < end; ++i) {
      if (by_host.find(placement[i].host) == by_host.end()) order.push_back(placement[i].host);
      by_host[placement[i].host].push_back(placement[i]);
    }
    std::map<std::string, size_t> taken;
    while (out.size() < end)
      for (const std::string& h : order)
        if (taken[h] < by_host[h].size()) out.push_back(by_host[h][taken[h]++]);
    begin = end;
  }
  placement = std::move(out);
}

}  // namespace

StatusOr<JobPlan> plan_job(const RunOptions& o, std::vector<HostEntry> hosts) {
  JobPlan plan;
  LZ_ASSIGN_OR_RETURN(Mapping m, parse_mapping(o.map_by));
  plan.map = m.map;
  plan.cpus_per_rank = m.pe > 0 ? m.pe : o.cpus_per_rank;
  const bool oversubscribe = m.oversubscribe < 0 ? o.oversubscribe : m.oversubscribe == 1;
  if (o.nolocal) {
    hosts.erase(std::remove_if(hosts.begin(), hosts.end(), [](const HostEntry& h) { return is_local_host(h.name); }),
                hosts.end());
    if (hosts.empty())
      return InvalidArgument("--nolocal leaves no host to run on: give other hosts (--host, --hostfile)");
  }
  int per_host = o.npernode > 0 ? o.npernode : m.ppr;
  if (m.ppr_socket) {
    auto topo = local_cpu_topology();
    plan.sockets = topo.ok() ? static_cast<int>(topo->sockets.size()) : 1;
    per_host = m.ppr * plan.sockets;  // every host taken to have this one's sockets
  }
  if (per_host > 0)
    for (auto& h : hosts) h.slots = per_host;
  plan.hosts = hosts;

  const size_t napps = o.apps.size();
  std::vector<int> np(napps);
  for (size_t a = 0; a < napps; ++a) {
    np[a] = o.apps[a].np;
    if (np[a] > 0) continue;
    if (napps > 1)
      return InvalidArgument("program " + std::to_string(a) + " (" + o.apps[a].argv.front() +
                             ") has no rank count: give -np to every program of an MPMD job");
    for (const auto& h : hosts) np[a] += h.slots;
  }
  std::map<std::string, int> used;
  for (size_t a = 0; a < napps; ++a) {
    std::vector<HostEntry> mine = hosts;
    if (!o.apps[a].hosts.empty()) {
      mine.clear();
      for (const std::string& spec : o.apps[a].hosts) {
        LZ_ASSIGN_OR_RETURN(auto h, parse_host_option(spec));
        mine.insert(mine.end(), h.begin(), h.end());
      }
      if (per_host > 0)
        for (auto& h : mine) h.slots = per_host;
      for (const auto& h : mine)
        if (std::none_of(plan.hosts.begin(), plan.hosts.end(), [&](const HostEntry& x) { return x.name == h.name; }))
          plan.hosts.push_back(h);
    }
    // The slots the programs before this one left free, then (oversubscribed)
    // the program's hosts in turn.
    std::vector<HostEntry> left;
    int free_slots = 0;
    for (const auto& h : mine)
      if (h.slots - used[h.name] > 0) {
        left.push_back({h.name, h.slots - used[h.name]});
        free_slots += h.slots - used[h.name];
      }
    if (np[a] > free_slots && !oversubscribe)
      return InvalidArgument("program " + std::to_string(a) + " (" + o.apps[a].argv.front() + ") needs " +
                             std::to_string(np[a]) + " slots but its hosts have " + std::to_string(free_slots) +
                             " left (--nooversubscribe was given; drop it to run more ranks than slots)");
    std::vector<Placement> placed;
    if (free_slots > 0) {
      LZ_ASSIGN_OR_RETURN(placed, place_ranks(left, std::min(np[a], free_slots), false,
                                              m.map == MapBy::kNode ? MapBy::kNode : MapBy::kSlot));
    }
    for (size_t k = 0; static_cast<int>(placed.size()) < np[a]; k = (k + 1) % mine.size())
      placed.push_back({mine[k].name, 0, 0, 0, {}});
    for (const auto& p : placed) {
      ++used[p.host];
      plan.placement.push_back(p);
      plan.rank_app.push_back(static_cast<int>(a));
    }
  }
  if (str::to_lower(o.rank_by) == "node") rank_by_node(plan.placement, plan.rank_app);
  // Node ids and local ranks over the whole job: all names of this machine
  // are one node.
  std::map<std::string, uint64_t> ids;
  for (auto& p : plan.placement) {
    const std::string key = is_local_host(p.host) ? std::string("\0local", 6) : p.host;
    p.node_id = ids.emplace(key, ids.size()).first->second;
  }
  std::map<uint64_t, int> per_node;
  for (auto& p : plan.placement) p.local_rank = per_node[p.node_id]++;
  for (auto& p : plan.placement) p.local_size = per_node[p.node_id];
  return plan;
}

std::vector<std::string> describe_allocation(const std::vector<HostEntry>& hosts) {
  std::vector<std::string> out = {"allocation: " + std::to_string(hosts.size()) + " host" +
                                  (hosts.size() == 1 ? "" : "s")};
  for (const auto& h : hosts) out.push_back("  host " + h.name + " slots " + std::to_string(h.slots));
  return out;
}

std::vector<std::string> describe_map(const JobSpec& spec) {
  std::vector<std::string> out = {"map of job " + spec.job_id + ": " + std::to_string(spec.placement.size()) +
                                  " ranks, " + std::to_string(spec.apps.size()) + " program" +
                                  (spec.apps.size() == 1 ? "" : "s")};
  for (size_t r = 0; r < spec.placement.size(); ++r) {
    const Placement& p = spec.placement[r];
    const int app = spec.rank_app[r];
    out.push_back("  rank " + std::to_string(r) + " on " + p.host + " (local rank " + std::to_string(p.local_rank) +
                  " of " + std::to_string(p.local_size) + "), program " + std::to_string(app) + " (" +
                  str::join(spec.apps[static_cast<size_t>(app)].argv, " ") + "), " +
                  (p.cpus.empty() ? std::string("not bound") : "CPUs " + format_cpu_list(p.cpus)));
  }
  return out;
}

}  // namespace lz::launcher
