#include "launcher/launcher.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>

#include "cr/runtime_params.h"
#include "launcher/app_rank_mover.h"
#include "launcher/binding.h"
#include "launcher/foreign_params.h"
#include "launcher/host_list.h"
#include "launcher/job.h"
#include "launcher/job_plan.h"
#include "launcher/local_starter.h"
#include "launcher/output_options.h"
#include "launcher/rank_mover.h"
#include "launcher/remote_starter.h"
#include "launcher/restart.h"
#include "launcher/slurm_allocation.h"
#include "lazarus/auth.h"
#include "lazarus/frameworks/cr.h"
#include "lazarus/net.h"
#include "lazarus/registry.h"
#include "lazarus/strings.h"
#include "lazarus/userns/job_namespace.h"
#include "lazarus/userns/pid_namespace.h"
#include "oob/oob_params.h"
#include "snapshot/snapshot_params.h"
#include "snapshot/snapshot_store.h"

extern char** environ;

namespace lz::launcher {
namespace {

// Job variables of an enclosing job (mpirun run from inside a rank) must not
// leak into this job's ranks.
bool is_job_variable(const std::string& entry) {
  static const char* const kVars[] = {
      "LZ_JOB_ID=",   "LZ_RANK=",     "LZ_SIZE=",      "LZ_LOCAL_RANK=", "LZ_LOCAL_SIZE=", "LZ_NODE_ID=",
      "LZ_HOSTNAME=", "LZ_OOB_ADDR=", "LZ_SECRET_FD=", "LZ_MCA_",        "LZ_APPNUM=",     "LZ_UNIVERSE_SIZE="};
  for (const char* v : kVars)
    if (entry.rfind(v, 0) == 0) return true;
  return false;
}

void set_env(std::vector<std::string>& env, const std::string& name, const std::string& value) {
  const std::string prefix = name + "=";
  for (auto& e : env)
    if (e.rfind(prefix, 0) == 0) {
      e = prefix + value;
      return;
    }
  env.push_back(prefix + value);
}

}  // namespace

StatusOr<std::vector<std::string>> build_env(const std::vector<std::string>& exports, const ParamStore& params,
                                             EnvPolicy policy, const std::vector<std::string>& keep) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (is_job_variable(*e)) continue;
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    // PATH always: without it a rank's program is not found (execvp).
    const bool kept = policy == EnvPolicy::kAll || name == "PATH" ||
                      (policy == EnvPolicy::kList && std::find(keep.begin(), keep.end(), name) != keep.end());
    if (kept) env.push_back(entry);
  }
  for (const std::string& x : exports) {
    size_t eq = x.find('=');
    std::string name = x.substr(0, eq);
    if (name.empty() || name.find_first_of(" \t\n") != std::string::npos)
      return InvalidArgument("-x '" + x + "': expected VAR or VAR=value");
    if (eq != std::string::npos) {
      set_env(env, name, x.substr(eq + 1));
    } else if (const char* v = std::getenv(name.c_str()); v != nullptr) {
      set_env(env, name, v);  // local ranks inherit it anyway; explicit for remote starters
    } else {
      return InvalidArgument("-x " + name + ": the variable is not set in the launcher's environment");
    }
  }
  // Parameters: the launcher resolved every source; ranks get the outcome.
  for (const Param* p : params.all())
    if (p->source.kind != SourceKind::kDefault)
      set_env(env, std::string(ParamStore::kEnvPrefix) + p->name, format_param_value(p->spec.type, p->value));
  return env;
}

StatusOr<SockAddr> bind_address(const ParamStore& params) {
  const std::string& where = params.get_string(oob::kParamAddress);
  int64_t port = params.get_int(oob::kParamPort);
  if (port < 0 || port > 65535) return InvalidArgument("oob_port " + std::to_string(port) + " is not a TCP port");
  const std::string host = where.empty() ? "0.0.0.0" : where;
  auto a = oob::interface_address(host, static_cast<uint16_t>(port));
  if (a.ok()) return a;
  auto r = oob::resolve(host, static_cast<uint16_t>(port));
  if (!r.ok()) return r.status().with_context("oob_address '" + host + "' is neither an interface nor an address");
  return r;
}

namespace {
bool is_loopback(const SockAddr& a) {
  const std::string h = a.host();
  return h.rfind("127.", 0) == 0 || h == "::1";
}

}  // namespace

namespace {

bool all_local(const std::vector<Placement>& placement) {
  std::map<std::string, bool> seen;  // one lookup per host, not per rank
  for (const auto& p : placement) {
    auto it = seen.find(p.host);
    if (it == seen.end()) it = seen.emplace(p.host, is_local_host(p.host)).first;
    if (!it->second) return false;
  }
  return true;
}

// The local address the kernel routes to `host` from (a UDP connect sends
// nothing): the interface toward the remote hosts.
std::string source_address_toward(const std::string& host) {
  auto dst = oob::resolve(host, 9);
  if (!dst.ok()) return "";
  oob::Fd fd(socket(dst->family(), SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd.valid() || connect(fd.get(), reinterpret_cast<const sockaddr*>(&dst->ss), dst->len) != 0) return "";
  auto self = oob::local_address(fd.get());
  if (!self.ok() || is_loopback(*self)) return "";
  return self->host();
}

}  // namespace

// What ranks and helpers connect to. Never a loopback address when a rank
// may run on another host: the address of the interface the first remote
// host is reached through (ranks on other remote hosts reach it as well on
// any ordinary network; oob_address names another). For a job on this host
// alone loopback is the simplest choice.
std::string advertised_host(const SockAddr& bound, const std::vector<Placement>& placement) {
  if (!bound.is_wildcard()) return bound.host();
  if (all_local(placement)) return bound.ss.ss_family == AF_INET6 ? "::1" : "127.0.0.1";
  for (const auto& p : placement) {
    if (is_local_host(p.host)) continue;
    std::string a = source_address_toward(p.host);
    if (!a.empty()) return a;
    break;
  }
  auto self = oob::resolve(local_hostname(), 0);
  if (self.ok() && !is_loopback(*self)) return self->host();
  std::string best;
  if (auto itfs = local_interfaces(); itfs.ok()) {
    for (const NetInterface& i : *itfs) {
      if (i.addr.family() != AF_INET || is_loopback(i.addr)) continue;
      best = i.addr.host();
      break;
    }
  }
  return best.empty() ? "127.0.0.1" : best;
}

namespace {

// The hosts of `hosts` on which `placement` puts no rank, each once (the
// spare hosts of JobSpec::spare_hosts).
std::vector<std::string> hosts_without_ranks(const std::vector<HostEntry>& hosts,
                                             const std::vector<Placement>& placement) {
  std::vector<std::string> out;
  for (const auto& h : hosts) {
    auto on_it = [&](const Placement& p) { return p.host == h.name; };
    if (std::none_of(placement.begin(), placement.end(), on_it) &&
        std::find(out.begin(), out.end(), h.name) == out.end())
      out.push_back(h.name);
  }
  return out;
}

// The ranks' placement followed by one entry per spare host: every host the
// job may use, for make_starter and the OOB address.
std::vector<Placement> ranks_and_spares(const JobSpec& spec) {
  std::vector<Placement> where = spec.placement;
  for (const std::string& h : spec.spare_hosts) where.push_back(Placement{h, 0, 0, 0, {}});
  return where;
}

}  // namespace

Status fill_oob_spec(const ParamStore& params, JobSpec& spec) {
  spec.kill_grace = params.get_double(oob::kParamKillGrace);
  spec.handshake_timeout = params.get_double(oob::kParamHandshakeTimeout);
  spec.helper_keepalive = params.get_double(oob::kParamHelperKeepalive);
  LZ_ASSIGN_OR_RETURN(SockAddr bind, bind_address(params));
  // A job on this host alone listens on loopback only, unless told otherwise:
  // nothing from another host has any business with it.
  const std::vector<Placement> where = ranks_and_spares(spec);
  if (params.get_string(oob::kParamAddress).empty() && all_local(where)) {
    auto lo = oob::resolve("127.0.0.1", bind.port());
    if (lo.ok()) bind = *lo;
  }
  spec.bind_address = bind;
  spec.advertised_host = advertised_host(bind, where);
  return Status::Ok();
}

namespace {

std::vector<std::string> command_words(const std::string& text) {
  std::vector<std::string> words;
  for (std::string w : str::split(text, ' ')) {
    while (!w.empty() && (w.back() == '\t' || w.back() == '\n')) w.pop_back();
    if (!w.empty()) words.push_back(w);
  }
  return words;
}

// The helper is this very executable (mpirun is a link to it), at the same
// path on every host: a shared installation, as Open MPI assumes its prefix;
// or <launch_prefix>/bin/lazarus (mpirun --prefix).
StatusOr<std::string> helper_executable(const ParamStore& params) {
  const std::string& prefix = params.get_string(oob::kParamLaunchPrefix);
  if (!prefix.empty()) return prefix + "/bin/lazarus";
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return ErrnoError("readlink /proc/self/exe (the path of lazarus for the remote helpers)", errno);
  self[n] = '\0';
  return std::string(self);
}

}  // namespace

namespace {

void configure_helpers(RemoteStarter& starter, const ParamStore& params) {
  starter.helper_keepalive(params.get_double(oob::kParamHelperKeepalive));
  // Helpers of a job in its own user namespace make theirs (ranks need the
  // capability there, and the namespace's PID namespace keeps their pids).
  starter.helpers_in_pid_namespace(params.get_bool(oob::kParamHelperPidNamespace) || userns::inside());
}

}  // namespace

StatusOr<std::unique_ptr<RankStarter>> remote_starter(const ParamStore& params) {
  std::vector<std::string> agent = command_words(params.get_string(oob::kParamLaunchAgent));
  if (agent.empty())
    return InvalidArgument(
        "launch_agent is empty: ranks on other hosts need a command to start their helper (e.g. ssh)");
  LZ_ASSIGN_OR_RETURN(std::string self, helper_executable(params));
  auto starter =
      std::make_unique<RemoteStarter>(std::move(agent), std::move(self), params.get_double(oob::kParamLaunchAgentTimeout));
  configure_helpers(*starter, params);
  return std::unique_ptr<RankStarter>(std::move(starter));
}

StatusOr<bool> use_slurm(const ParamStore& params) {
  const std::string& how = params.get_string(oob::kParamLauncher);
  if (how != "slurm") return how == "auto" && in_slurm_allocation();
  if (!in_slurm_allocation())
    return InvalidArgument(
        "launcher=slurm, but this is not inside a Slurm allocation (SLURM_JOB_ID is not set): run under salloc or "
        "sbatch");
  return true;
}

StatusOr<std::unique_ptr<RankStarter>> make_starter(const ParamStore& params, const std::vector<Placement>& placement) {
  LZ_ASSIGN_OR_RETURN(bool slurm, use_slurm(params));
  if (slurm) {
    std::vector<std::string> srun = command_words(params.get_string(oob::kParamLaunchSrun));
    if (srun.empty()) return InvalidArgument("launch_srun is empty: launcher=slurm needs the srun command");
    LZ_ASSIGN_OR_RETURN(std::string self, helper_executable(params));
    auto starter = std::make_unique<RemoteStarter>(std::move(srun), std::move(self),
                                                   params.get_double(oob::kParamLaunchAgentTimeout), HelperLaunch::kSrun);
    configure_helpers(*starter, params);
    return std::unique_ptr<RankStarter>(std::move(starter));
  }
  if (all_local(placement)) return std::unique_ptr<RankStarter>(std::make_unique<LocalStarter>());
  if (params.get_string(oob::kParamLauncher) == "local") {
    for (const auto& p : placement)
      if (!is_local_host(p.host)) return InvalidArgument("launcher=local, but host " + p.host + " is not this host");
  }
  return remote_starter(params);
}

std::string new_job_id() {
  auto n = auth::random_nonce();
  char buf[16];
  std::snprintf(buf, sizeof buf, "%02x%02x%02x%02x", n[0], n[1], n[2], n[3]);
  return buf;
}

std::string selected_cr(Registry& reg, std::string* why, bool* app_level) {
  Framework* fw = reg.framework("cr");
  if (fw == nullptr) return "none";
  auto sel = fw->select(reg.query_context());
  if (!sel.ok() || sel->empty()) {
    *why = sel.ok() ? "no cr component" : sel.status().message();
    return "none";
  }
  if (app_level != nullptr)
    *app_level = sel->front().module && (sel->front().module->capabilities() & cr::kCapAppLevel) != 0;
  return sel->front().entry->desc->name;
}

// A core-image back end that needs privilege (cr=criu), for a user without it.
static bool needs_job_namespace(Registry& reg, const JobSpec& spec) {
  if (spec.cr_component == "none" || !userns::wanted()) return false;
  Framework* fw = reg.framework("cr");
  if (fw == nullptr) return false;
  auto sel = fw->select(reg.query_context());
  return sel.ok() && !sel->empty() && sel->front().module &&
         (sel->front().module->capabilities() & cr::kCapNeedsPrivilege) != 0;
}

void fill_cr_spec(Registry& reg, JobSpec& spec) {
  spec.snapshot_root = snapshot::snapshot_root(reg.params());
  spec.cr_keep = snapshot::store_options(reg.params()).keep;
  spec.cr_component = selected_cr(reg, &spec.cr_unavailable, &spec.cr_app_level);
  if (reg.params().is_registered("cr_app_interval")) spec.cr_app_interval = reg.params().get_double("cr_app_interval");
  if (Framework* fw = reg.framework("crcp"); fw != nullptr) {
    auto sel = fw->select(reg.query_context());
    if (sel.ok() && !sel->empty()) spec.crcp_component = sel->front().entry->desc->name;
  }
}

void fill_job_record(const ParamStore& params, JobSpec& spec) {
  const std::string& argv0 = spec.apps.front().argv.front();
  spec.record.name = argv0.substr(argv0.find_last_of('/') + 1);
  spec.record.id = spec.job_id;
  spec.record.np = static_cast<int>(spec.placement.size());
  for (const auto& p : spec.placement) spec.record.hosts.push_back(p.host);
  for (const Param* p : params.all())
    if (p->source.kind != SourceKind::kDefault)
      spec.record.parameters.emplace_back(p->name, format_param_value(p->spec.type, p->value));
}

namespace {

void error(const std::string& text) {
  for (const auto& line : str::split(text, '\n')) std::fprintf(stderr, "lazarus run: error: %s\n", line.c_str());
}

// Whether the job's store holds a committed snapshot, valid or not (a
// checkpoint cut short leaves only <n>.partial).
bool has_snapshot(const std::string& store_dir) {
  if (access(store_dir.c_str(), F_OK) != 0) return false;
  auto store = snapshot::SnapshotStore::open_existing(store_dir);
  if (!store.ok()) return true;  // recover_job says what is wrong with it
  std::vector<std::string> damaged;
  auto committed = store->list(&damaged);
  return !committed.ok() || !committed->empty() || !damaged.empty();
}

// --recover auto for a job that died before its first snapshot: the only
// way back is the start (a rank can die of a checkpoint itself, for example
// when its criu helper is killed while CRIU's code runs inside the rank).
int run_again(const RunOptions& o, const std::string& death, int rc) {
  const std::string why = death + "; no snapshot of this job exists yet";
  if (o.restarts_done >= o.max_restarts) {
    std::fprintf(stderr, "lazarus run: %s; not running it again: --max-restarts %d reached\n", why.c_str(),
                 o.max_restarts);
    return rc;
  }
  RunOptions again = o;
  ++again.restarts_done;
  std::fprintf(stderr, "lazarus run: %s: running it again from the start (restart %d of %d)\n", why.c_str(),
               again.restarts_done, again.max_restarts);
  return run_launcher(again);
}

// Every --mca pair of `o` a Lazarus name keeps; Open MPI names (and those of
// the environment and --am files, first) become the Lazarus parameters and
// options they stand for, each warned about once where it has no effect.
StatusOr<std::vector<std::pair<std::string, std::string>>> translate_foreign(const ParamStore& params, RunOptions& o) {
  ForeignParams f;
  f.add_environment(environ);
  for (const std::string& file : o.ompi_param_files) LZ_RETURN_IF_ERROR(f.add_file(file));
  std::vector<std::pair<std::string, std::string>> out(f.mca().begin(), f.mca().end());
  const std::vector<std::string> ours = params.names();
  for (const auto& [name, value] : o.mca) {
    // A name Lazarus knows, or one a letter or two from it (a misspelling the
    // store refuses with its "did you mean"), is Lazarus'; an Open MPI name
    // is mapped or warned about.
    const bool foreign =
        ForeignParams::maps_coll_algorithm(name) ||
        (!params.is_registered(name) && (ForeignParams::maps_ompi_name(name) ||
                                         (ForeignParams::is_ompi_name(name) && str::closest(name, ours).empty())));
    if (!foreign) {
      out.emplace_back(name, value);
      continue;
    }
    const size_t before = f.mca().size();
    f.add_ompi(name, value, "--mca");
    out.insert(out.end(), f.mca().begin() + static_cast<long>(before), f.mca().end());
  }
  for (const std::string& w : f.warnings()) std::fprintf(stderr, "lazarus run: warning: %s\n", w.c_str());
  const ForeignOptions& fo = f.options();
  if (o.bind_to.empty()) o.bind_to = fo.bind_to;
  if (o.map_by.empty()) o.map_by = fo.map_by;
  if (fo.oversubscribe >= 0 && !o.oversubscribe_given) o.oversubscribe = fo.oversubscribe == 1;
  return out;
}

}  // namespace

int run_launcher(const RunOptions& options) {
  if (options.apps.empty() || options.apps.front().argv.empty()) {
    error("no program to run (usage: lazarus run [OPTIONS] PROGRAM [ARGS...]; see --help)");
    return 2;
  }
  for (const std::string& w : options.warnings) std::fprintf(stderr, "lazarus run: warning: %s\n", w.c_str());
  Registry reg;
  if (Status s = rt::register_runtime_params(reg); !s.ok()) {
    error(s.message());
    return 2;
  }
  // Open MPI's and MPICH's tuning names (OMPI_MCA_*, MPIR_CVAR_*, --am files,
  // --mca btl ...) in Lazarus' terms, below the command line's own. What is
  // Lazarus' is known only once its components, the plugins of
  // component_path included (coll_allring_verbose), have registered theirs:
  // a first configuration with the same settings, unknown names only listed,
  // says.
  RunOptions o = options;
  Registry known;
  {
    ConfigOptions probe;
    probe.mca = o.mca;
    probe.config_files = o.config_files;
    std::vector<std::string> unknown;
    probe.ignored = &unknown;
    if (Status s = rt::register_runtime_params(known); s.ok()) (void)known.configure(probe);
  }
  auto foreign = translate_foreign(known.params(), o);
  if (!foreign.ok()) {
    error(foreign.status().message());
    return 2;
  }
  ConfigOptions cfg;
  cfg.mca = *foreign;
  cfg.config_files = o.config_files;
  if (Status s = reg.configure(cfg); !s.ok()) {
    error(s.message());
    return 2;
  }

  std::vector<HostEntry> hosts;
  if (!o.hostfile.empty()) {
    auto h = parse_hostfile(o.hostfile);
    if (!h.ok()) {
      error(h.status().message());
      return 2;
    }
    hosts = std::move(*h);
  }
  for (const std::string& spec : o.hosts) {
    auto h = parse_host_option(spec);
    if (!h.ok()) {
      error(h.status().message());
      return 2;
    }
    hosts.insert(hosts.end(), h->begin(), h->end());
  }
  auto slurm = use_slurm(reg.params());
  if (!slurm.ok()) {
    error(slurm.status().message());
    return 2;
  }
  if (hosts.empty() && *slurm) {
    // The allocation's nodes, with its tasks per node as their slots.
    auto h = slurm_allocation_hosts();
    if (!h.ok()) {
      error(h.status().message());
      return 2;
    }
    hosts = std::move(*h);
  }
  if (hosts.empty()) hosts = default_hosts();
  auto plan = plan_job(o, hosts);
  if (!plan.ok()) {
    error(plan.status().message());
    return 2;
  }
  if (o.display_allocation)
    for (const std::string& line : describe_allocation(plan->hosts))
      std::fprintf(stderr, "[lazarus] %s\n", line.c_str());
  if (Status s = bind_local_ranks(o.bind_to, plan->map, plan->placement, plan->cpus_per_rank); !s.ok()) {
    error(s.message());
    return 2;
  }
  if (o.report_bindings)
    for (const std::string& line : describe_bindings(plan->placement))
      std::fprintf(stderr, "[lazarus] %s\n", line.c_str());

  if (o.checkpoint_interval > 0 || o.recover) {
    std::string why;
    std::string cr = selected_cr(reg, &why);
    if (cr == "none") {
      error(std::string(o.recover ? "--recover auto" : "--checkpoint-interval") +
            " needs checkpointing, which is off (cr=none" + (why.empty() ? "" : ": " + why) +
            "); add --mca cr criu");
      return 2;
    }
  }

  JobSpec spec;
  spec.job_id = new_job_id();
  spec.placement = std::move(plan->placement);
  spec.rank_app = std::move(plan->rank_app);
  spec.universe_size = 0;
  for (const auto& h : plan->hosts) spec.universe_size += h.slots;
  // A spawned job is in its spawning job's universe (SpawnedJobs::start).
  if (const char* u = std::getenv("LZ_SPAWN_UNIVERSE"); u != nullptr) {
    char* end = nullptr;
    const long n = std::strtol(u, &end, 10);
    if (end != u && *end == '\0' && n > 0 && n <= (1L << 30))
      spec.universe_size = std::max(spec.universe_size, static_cast<int>(n));
  }
  char cwd[4096] = "";
  if (getcwd(cwd, sizeof cwd) != nullptr) spec.record.cwd = cwd;
  for (const AppContext& a : o.apps) {
    std::vector<std::string> exports = o.exports;
    exports.insert(exports.end(), a.exports.begin(), a.exports.end());
    auto env = build_env(exports, reg.params(), a.env_set ? a.env : o.env, a.env_set ? a.env_list : o.env_list);
    if (!env.ok()) {
      error(env.status().message());
      return 2;
    }
    JobApp app{a.argv, std::move(*env), a.wdir};
    // --path: the program is looked for there first (execvpe searches the ranks' PATH).
    if (!a.path.empty())
      for (auto& e : app.env)
        if (e.rfind("PATH=", 0) == 0) e = "PATH=" + a.path + ":" + e.substr(5);
    snapshot::AppRecord rec{a.argv, 0, a.wdir, {}};
    for (const std::string& x : exports) {
      const std::string name = x.substr(0, x.find('='));
      for (const auto& e : app.env)
        if (e.rfind(name + "=", 0) == 0) rec.environment.emplace_back(name, e.substr(name.size() + 1));
    }
    spec.record.apps.push_back(std::move(rec));
    spec.apps.push_back(std::move(app));
  }
  for (int a : spec.rank_app) ++spec.record.apps[static_cast<size_t>(a)].np;
  if (o.display_map)
    for (const std::string& line : describe_map(spec)) std::fprintf(stderr, "[lazarus] %s\n", line.c_str());
  auto output = output_spec(o);
  if (!output.ok()) {
    error(output.status().message());
    return 2;
  }
  spec.output = *output;
  auto stdin_ranks = parse_stdin_target(o.stdin_target, static_cast<int>(spec.placement.size()));
  if (!stdin_ranks.ok()) {
    error(stdin_ranks.status().message());
    return 2;
  }
  spec.stdin_ranks = std::move(*stdin_ranks);
  spec.timeout = o.timeout;
  spec.command_line = o.command_line;
  fill_cr_spec(reg, spec);
  // A back end asked for by name that cannot run here stops the job now,
  // with the reason and its fix, rather than in every rank's MPI_Init.
  if (const Param* cr = reg.params().find("cr");
      spec.cr_component == "none" && !spec.cr_unavailable.empty() && cr != nullptr &&
      cr->source.kind != SourceKind::kDefault && format_param_value(cr->spec.type, cr->value) != "none") {
    error(spec.cr_unavailable);
    return 2;
  }
  // Hosts left without a rank wait for ranks that move, where moved ranks
  // can come back: a cr=app job's anywhere (a new process takes the rank's
  // place), a process image only where helpers run in PID namespaces.
  const bool app_level = spec.cr_app_level || spec.cr_component == "app";
  // Incremental snapshots are cr=app's so far: a core-image job is told that
  // its snapshots stay full rather than finding out from their sizes.
  if (!app_level && spec.cr_component != "none" && reg.params().is_registered("cr_incremental") &&
      reg.params().get_string("cr_incremental") == "on")
    std::fprintf(stderr,
                 "lazarus run: warning: cr_incremental on has no effect under cr=%s: its snapshots are "
                 "written in full (incremental snapshots are built for cr=app)\n",
                 spec.cr_component.c_str());
  if (app_level || (spec.cr_component != "none" && reg.params().get_bool(oob::kParamHelperPidNamespace)))
    spec.spare_hosts = hosts_without_ranks(plan->hosts, spec.placement);
  if (Status s = fill_oob_spec(reg.params(), spec); !s.ok()) {
    error(s.message());
    return 2;
  }
  spec.checkpoint_interval = o.checkpoint_interval > 0 ? o.checkpoint_interval : spec.cr_app_interval;
  // The first program's, as manifests of single-program jobs always had.
  spec.record.argv = spec.record.apps.front().argv;
  spec.record.environment = spec.record.apps.front().environment;
  if (spec.record.apps.size() == 1) spec.record.apps.clear();
  fill_job_record(reg.params(), spec);

  // An ordinary user's cr=criu job runs in namespaces of its own (user,
  // PID, mount: job_namespace.h), where its ranks hold the capability CRIU
  // needs and keep their pids when restored or moved. Others reach the job
  // through this process, outside.
  const bool own_namespace = needs_job_namespace(reg, spec);
  const pid_t outer_pid = getpid();
  auto run_job = [&]() -> int {
    if (own_namespace && getpid() == 1) spec.registry_pid = outer_pid;
    int rc = 0;
    std::vector<std::string> lost;
    std::string death, store_dir = spec.snapshot_root + "/" + spec.record.name + "." + spec.record.id;
    {
      auto starter = make_starter(reg.params(), ranks_and_spares(spec));
      if (!starter.ok()) {
        error(starter.status().message());
        return 2;
      }
      // A back end that restores process images (cr=criu) lets the job move
      // ranks (`lazarus migrate`): the launcher restores them with its own
      // instance of the job's cr module.
      std::optional<std::vector<QueryResult>> cr_sel;
      std::unique_ptr<RankMover> mover;
      // An application-level job moves a rank by starting a new process in
      // its place, which loads what the rank wrote at the safe point.
      if (app_level) {
        mover = std::make_unique<AppRankMover>(**starter);
      } else if (spec.cr_component != "none") {
        if (Framework* fw = reg.framework("cr"); fw != nullptr) {
          auto sel = fw->select(reg.query_context());
          if (sel.ok() && !sel->empty() && sel->front().module &&
              (sel->front().module->capabilities() & cr::kCapRestore)) {
            cr_sel.emplace(std::move(*sel));
            std::vector<std::string> params;
            for (const auto& [k, v] : spec.record.parameters) params.push_back(k + "=" + v);
            mover = make_rank_mover(**starter, static_cast<cr::Module&>(*cr_sel->front().module), std::move(params));
          }
        }
      }
      Job job(std::move(spec), **starter);
      job.set_mover(mover.get());
      rc = job.run();
      death = job.rank_death();
      lost = job.lost_hosts();
    }
    if (!o.recover || death.empty()) return rc;
    if (!has_snapshot(store_dir)) return run_again(o, death, rc);
    RestartOptions r;
    r.hosts = o.hosts;
    r.hostfile = o.hostfile;
    r.mca = o.mca;
    r.config_files = o.config_files;
    r.timeout = o.timeout;
    r.tag_output = o.tag_output;
    r.output = *output;
    r.command_line = o.command_line;
    r.checkpoint_interval = o.checkpoint_interval;
    r.recover = true;
    r.max_restarts = o.max_restarts;
    r.restarts_done = o.restarts_done;
    r.lost_hosts = std::move(lost);
    return recover_job(store_dir, death, rc, r);
  };
  if (!own_namespace) return run_job();
  setenv("LZ_OUTER_PID", std::to_string(outer_pid).c_str(), 1);
  std::string err;
  int rc = userns::run_in_pid_namespace(run_job, &err);
  if (rc < 0) {
    error("cr=" + spec.cr_component + " as uid " + std::to_string(geteuid()) + ": " + err +
          " (or choose --mca cr app, which needs no privilege)");
    return 2;
  }
  return rc;
}

}  // namespace lz::launcher
