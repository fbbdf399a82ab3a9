#include "launcher/foreign_params.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>

#include "lazarus/strings.h"

namespace lz::launcher {
namespace {

// Open MPI's frameworks (and project levels), as parameter name prefixes.
constexpr const char* kOmpiPrefixes[] = {
    "btl_",      "pml_",       "mtl_",         "osc_",  "coll_",      "io_",         "fcoll_",     "fbtl_",
    "sharedfp_", "bml_",       "oob_",         "plm_",  "ras_",       "rmaps_",      "odls_",      "ess_",
    "errmgr_",   "grpcomm_",   "filem_",       "iof_",  "routed_",    "rml_",        "state_",     "schizo_",
    "snapc_",    "sstore_",    "crs_",         "opal_", "orte_",      "ompi_",       "mpi_",       "hwloc_",
    "shmem_",    "pmix_",      "prte_",        "dl_",   "if_",        "memchecker_", "memory_",    "patcher_",
    "pstat_",    "reachable_", "timer_",       "topo_", "vprotocol_", "op_",         "part_",      "rcache_",
    "mpool_",    "allocator_", "accelerator_", "smsc_", "threads_",   "hook_",       "backtrace_", "installdirs_",
    "compress_"};
// Open MPI's framework selectors (`--mca btl self,vader`).
constexpr const char* kOmpiFrameworks[] = {
    "btl",    "pml",   "mtl",       "osc",    "io",      "fcoll", "fbtl",        "sharedfp",  "plm",  "ras",
    "rmaps",  "odls",  "ess",       "errmgr", "grpcomm", "filem", "iof",         "routed",    "rml",  "state",
    "schizo", "snapc", "sstore",    "crs",    "oob",     "hwloc", "shmem",       "pmix",      "smsc", "rcache",
    "mpool",  "bml",   "vprotocol", "op",     "part",    "topo",  "accelerator", "memchecker"};

// Open MPI / MPICH component names -> Lazarus transports.
std::string transport_of(const std::string& c) {
  static const std::map<std::string, std::string> m = {
      {"self", "self"}, {"vader", "shm"}, {"sm", "shm"},  {"smcuda", "shm"}, {"tcp", "tcp"},
      {"uct", "ucx"},   {"ucx", "ucx"},   {"ofi", "ofi"}, {"cm", ""},        {"ob1", ""}};
  auto it = m.find(c);
  return it == m.end() ? std::string() : it->second;
}

std::string strip_modifiers(const std::string& v) { return v.substr(0, v.find(':')); }

}  // namespace

bool ForeignParams::is_ompi_name(const std::string& name) {
  for (const char* f : kOmpiFrameworks)
    if (name == f) return true;
  for (const char* p : kOmpiPrefixes)
    if (name.rfind(p, 0) == 0) return true;
  return false;
}

namespace {
// The Open MPI names mapped to Lazarus' (add_ompi), also the candidates of
// "did you mean" for a misspelled one.
const char* const kMapped[] = {"btl",
                               "pml",
                               "mtl",
                               "coll",
                               "plm_rsh_agent",
                               "orte_rsh_agent",
                               "prte_plm_ssh_agent",
                               "btl_tcp_if_include",
                               "btl_tcp_if_exclude",
                               "oob_tcp_if_include",
                               "hwloc_base_binding_policy",
                               "rmaps_base_mapping_policy",
                               "rmaps_base_oversubscribe",
                               "mpi_yield_when_idle",
                               "coll_tuned_use_dynamic_rules"};
}  // namespace

bool ForeignParams::maps_ompi_name(const std::string& name) {
  for (const char* m : kMapped)
    if (name == m) return true;
  return maps_coll_algorithm(name);
}

bool ForeignParams::maps_coll_algorithm(const std::string& name) {
  return name.rfind("coll_tuned_", 0) == 0 && name.size() > 21 && name.compare(name.size() - 10, 10, "_algorithm") == 0;
}

void ForeignParams::no_effect(const std::string& what, const std::string& where, const std::string& why) {
  warnings_.push_back(what + " (" + where + ") has no effect here" + (why.empty() ? "" : ": " + why));
}

void ForeignParams::set(const std::string& name, const std::string& value) { mca_.emplace_back(name, value); }

void ForeignParams::add_ompi(const std::string& name, const std::string& value, const std::string& where) {
  const std::string what = "Open MPI's " + name + " " + value;
  const std::string v(str::trim(value));
  if (name == "btl" || name == "pml" || name == "mtl") {
    const bool exclude = !v.empty() && v[0] == '^';
    std::vector<std::string> mapped, dropped;
    for (const std::string& c : str::split(exclude ? v.substr(1) : v, ',')) {
      const std::string t = transport_of(str::to_lower(std::string(str::trim(c))));
      if (t.empty())
        dropped.push_back(c);
      else if (std::find(mapped.begin(), mapped.end(), t) == mapped.end())
        mapped.push_back(t);
    }
    if (!exclude && name != "btl" && !mapped.empty() && std::find(mapped.begin(), mapped.end(), "self") == mapped.end())
      mapped.push_back("self");  // pml ucx: UCX for every peer, self for the rank itself
    if (mapped.empty()) {
      no_effect(what, where,
                name == "btl" ? "no Lazarus transport is named (Lazarus' transports: self, shm, tcp, ucx, ofi)"
                              : "Lazarus' point-to-point engine is its own; its transports are chosen with "
                                "--mca transport");
      return;
    }
    set("transport", (exclude ? "^" : "") + str::join(mapped, ","));
    if (!dropped.empty())
      warnings_.push_back(what + " (" + where + "): transport " + (exclude ? "^" : "") + str::join(mapped, ",") +
                          " here; " + str::join(dropped, ",") + " has no Lazarus counterpart");
    return;
  }
  if (name == "coll") {
    const bool exclude = !v.empty() && v[0] == '^';
    std::vector<std::string> mapped;
    for (const std::string& c : str::split(exclude ? v.substr(1) : v, ','))
      if (c == "tuned" || c == "basic") mapped.push_back(c);
    if (mapped.empty()) return no_effect(what, where, "Lazarus' collective components are tuned and basic");
    return set("coll", (exclude ? "^" : "") + str::join(mapped, ","));
  }
  if (name == "plm_rsh_agent" || name == "orte_rsh_agent" || name == "prte_plm_ssh_agent") {
    // "ssh : rsh": the first that exists, in Open MPI; the first here.
    return set("launch_agent", std::string(str::trim(v.substr(0, v.find(':')))));
  }
  if (name == "btl_tcp_if_include") return set("transport_tcp_if_include", v);
  if (name == "btl_tcp_if_exclude") return set("transport_tcp_if_exclude", v);
  if (name == "oob_tcp_if_include") {
    const std::string first = str::split(v, ',').empty() ? v : str::split(v, ',').front();
    if (first.find('/') != std::string::npos)
      return no_effect(what, where, "oob_address takes an interface, address or host name, not a subnet");
    return set("oob_address", first);
  }
  if (name == "hwloc_base_binding_policy") {
    options_.bind_to = str::to_lower(strip_modifiers(v));
    return;
  }
  if (name == "rmaps_base_mapping_policy") {
    options_.map_by = v;
    return;
  }
  if (name == "rmaps_base_oversubscribe") {
    options_.oversubscribe = v == "1" || str::to_lower(v) == "true" ? 1 : 0;
    return;
  }
  if (name == "mpi_yield_when_idle")
    return no_effect(what, where,
                     "a blocking wait yields the CPU whenever the rank's CPUs are shared by more "
                     "ranks, and sleeps in poll() after p2p_spin_count turns, whatever this says");
  if (name == "coll_tuned_use_dynamic_rules")
    return no_effect(what, where, "coll_tuned_*_algorithm are applied without it");
  if (maps_coll_algorithm(name)) {
    const std::string op = name.substr(11, name.size() - 21), alg = str::to_lower(v);
    if (alg == "0" || alg == "ignore") return set(name, "auto");  // Open MPI: its own choice; so is ours
    // Open MPI's numbers and names -> coll/tuned's names; its own names pass.
    static const std::map<std::string, std::map<std::string, std::string>> kOmpi = {
        {"allreduce",
         {{"3", "recursive_doubling"}, {"4", "ring"}, {"5", "ring"}, {"segmented_ring", "ring"}, {"6", "rabenseifner"}}},
        {"allgather", {{"2", "bruck"}, {"4", "ring"}}},
        {"alltoall", {{"1", "linear"}, {"basic_linear", "linear"}, {"2", "pairwise"}, {"3", "bruck"},
                      {"modified_bruck", "bruck"}}},
        {"bcast", {{"6", "binomial"}, {"8", "scatter_allgather"}, {"9", "scatter_allgather"},
                   {"scatter_allgather_ring", "scatter_allgather"}}},
        {"reduce", {{"5", "binomial"}}},
        {"barrier", {{"4", "dissemination"}, {"bruck", "dissemination"}}},
        {"reduce_scatter", {{"1", "reduce_scatterv"}, {"non-overlapping", "reduce_scatterv"}}},
    };
    const auto ops = kOmpi.find(op);
    if (ops != kOmpi.end()) {
      const auto named = ops->second.find(alg);
      if (named != ops->second.end()) return set(name, named->second);
    }
    // Not a number: Lazarus' own name, or a misspelling its parameter refuses
    // with the list of names.
    if (alg.find_first_not_of("0123456789") != std::string::npos) return set(name, v);
    return no_effect(what, where, "Lazarus' coll/tuned has no algorithm numbered " + alg + " by Open MPI for " + op +
                                      " (its algorithms: lazarus info --param coll tuned)");
  }
  const std::string hint = str::did_you_mean(name, std::vector<std::string>(std::begin(kMapped), std::end(kMapped)));
  no_effect(what, where, "Lazarus has no counterpart of it" + hint);
}

void ForeignParams::add_mpich(const std::string& name, const std::string& value, const std::string& where) {
  const std::string what = "MPICH's MPIR_CVAR_" + name + "=" + value;
  const std::string v = str::to_lower(value);
  if (name == "NEMESIS_TCP_NETWORK_IFACE" || name == "CH3_NETWORK_IFACE") return set("transport_tcp_if_include", value);
  if (name == "NOLOCAL" || name == "CH3_NOLOCAL") {
    if (v == "1" || v == "true" || v == "yes") set("transport", "^shm");
    return;
  }
  // MPICH's algorithm names -> coll/tuned's (coll_tuned_<op>_algorithm).
  static const std::map<std::string, std::pair<const char*, std::map<std::string, std::string>>> kCvars = {
      {"ALLREDUCE_INTRA_ALGORITHM",
       {"allreduce",
        {{"recursive_doubling", "recursive_doubling"}, {"reduce_scatter_allgather", "rabenseifner"}, {"ring", "ring"}}}},
      {"ALLGATHER_INTRA_ALGORITHM", {"allgather", {{"brucks", "bruck"}, {"ring", "ring"}}}},
      {"ALLTOALL_INTRA_ALGORITHM",
       {"alltoall", {{"pairwise", "pairwise"}, {"scattered", "linear"}, {"brucks", "bruck"}}}},
      {"BCAST_INTRA_ALGORITHM",
       {"bcast",
        {{"binomial", "binomial"}, {"scatter_recursive_doubling_allgather", "scatter_allgather"},
         {"scatter_ring_allgather", "scatter_allgather"}}}},
      {"REDUCE_INTRA_ALGORITHM", {"reduce", {{"binomial", "binomial"}}}},
      {"BARRIER_INTRA_ALGORITHM", {"barrier", {{"dissemination", "dissemination"}}}},
  };
  const auto cvar = kCvars.find(name);
  if (cvar != kCvars.end()) {
    const std::string param = std::string("coll_tuned_") + cvar->second.first + "_algorithm";
    if (v == "auto") return set(param, "auto");
    const auto alg = cvar->second.second.find(v);
    if (alg != cvar->second.second.end()) return set(param, alg->second);
  }
  no_effect(what, where, "Lazarus has no counterpart of it");
}

void ForeignParams::add_environment(char** envp) {
  for (char** e = envp; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = entry.substr(0, eq), value = entry.substr(eq + 1);
    if (name.rfind("OMPI_MCA_", 0) == 0)
      add_ompi(name.substr(9), value, name);
    else if (name.rfind("MPIR_CVAR_", 0) == 0)
      add_mpich(name.substr(10), value, name);
  }
}

Status ForeignParams::add_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot read the Open MPI parameter file '" + path + "'");
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    const std::string t(str::trim(line));
    if (t.empty()) continue;
    const size_t eq = t.find('=');
    if (eq == std::string::npos)
      return InvalidArgument(path + ":" + std::to_string(n) + ": expected 'name = value', not '" + t + "'");
    add_ompi(std::string(str::trim(t.substr(0, eq))), std::string(str::trim(t.substr(eq + 1))),
             path + ":" + std::to_string(n));
  }
  return Status::Ok();
}

}  // namespace lz::launcher
