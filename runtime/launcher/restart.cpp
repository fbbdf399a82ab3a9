#include "launcher/restart.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include "cr/runtime_params.h"
#include "launcher/app_rank_mover.h"
#include "launcher/binding.h"
#include "launcher/host_list.h"
#include "launcher/job.h"
#include "launcher/launcher.h"
#include "launcher/rank_mover.h"
#include "launcher/local_starter.h"
#include "launcher/remote_starter.h"
#include "launcher/restore_starter.h"
#include "launcher/spawn_tree.h"
#include "lazarus/frameworks/cr.h"
#include "lazarus/registry.h"
#include "lazarus/strings.h"
#include "lazarus/userns/pid_namespace.h"
#include "oob/oob_params.h"
#include "oob/tree_messages.h"
#include "snapshot/snapshot_store.h"
#include "lazarus/procfiles/file_rollback.h"

namespace lz::launcher {
namespace {

void error(const std::string& who, const std::string& text) {
  for (const auto& line : str::split(text, '\n')) std::fprintf(stderr, "%s: error: %s\n", who.c_str(), line.c_str());
}

void note(const std::string& who, const std::string& text) { std::fprintf(stderr, "%s: %s\n", who.c_str(), text.c_str()); }

void roll_back_app_files(const std::string& who, const std::string& snapshot, int np, bool keep) {
  auto rb = procfiles::FileRollback::load(snapshot);
  if (!rb.ok()) {
    note(who, "warning: " + rb.status().message());
    return;
  }
  procfiles::RollbackOptions o;
  o.keep_all = keep;
  o.lenient = true;
  for (int r = 0; r < np; ++r) {
    auto report = rb->apply(r, o);
    if (!report.ok()) continue;  // lenient: every problem is a warning
    for (const auto& line : report->done) note("lazarus", "rank " + std::to_string(r) + ": " + line);
    for (const auto& line : report->warnings) note("lazarus", "rank " + std::to_string(r) + ": warning: " + line);
  }
}

std::string parent_dir(const std::string& p) {
  size_t s = p.find_last_of('/');
  return s == std::string::npos ? "." : s == 0 ? "/" : p.substr(0, s);
}

// The snapshot to restart from: the one named, verified, or the newest that
// verifies. The store is closed again before the job runs (the restored job
// takes its lock at its first checkpoint).
struct Chosen {
  snapshot::SnapshotInfo info;
  snapshot::JobRecord record;
  std::string store_dir;
};

StatusOr<Chosen> choose_snapshot(const std::string& path, const std::string& who) {
  snapshot::StoreOptions so;
  LZ_ASSIGN_OR_RETURN(snapshot::SnapshotStore store, snapshot::SnapshotStore::open_existing(path, so));
  Chosen c;
  if (store.requested_seq()) {
    LZ_ASSIGN_OR_RETURN(c.info, store.info(*store.requested_seq()));
    LZ_RETURN_IF_ERROR(store.verify(c.info.seq));
  } else {
    std::vector<std::string> skipped;
    auto n = store.newest_valid(&skipped);
    for (const auto& why : skipped) note(who, "skipping " + why);
    if (!n.ok()) return n.status();
    c.info = *n;
  }
  c.record = store.job();
  c.store_dir = store.dir();
  return c;
}

// Whether the snapshot at `path` (or the newest of a store) was written by a
// back end that restores process images (and so needs its pids free: a new
// PID namespace). An application-level one re-runs the program instead.
bool restores_images(const std::string& path, const std::vector<std::pair<std::string, std::string>>& cli_mca) {
  auto store = snapshot::SnapshotStore::open_existing(path);
  if (!store.ok()) return true;  // restart_here() reports the problem
  std::string cr_name;
  if (store->requested_seq()) {
    auto info = store->info(*store->requested_seq());
    if (info.ok()) cr_name = info->cr;
  } else if (auto list = store->list(); list.ok() && !list->empty()) {
    cr_name = list->front().cr;
  }
  if (cr_name.empty()) return true;
  Registry reg;
  if (!rt::register_runtime_params(reg).ok()) return true;
  // The job's parameters, then the command line's, as restart_here() merges
  // them: a cr plugin is found only on the component_path they name.
  std::map<std::string, std::string> merged;
  for (const auto& [k, v] : store->job().parameters) merged[k] = v;
  for (const auto& [k, v] : cli_mca) merged[k] = v;
  merged["cr"] = cr_name;
  ConfigOptions cfg;
  cfg.mca.assign(merged.begin(), merged.end());
  if (!reg.configure(cfg).ok()) return true;
  for (const auto& q : reg.framework("cr")->query_all(reg.query_context(true)))
    if (q.entry->desc->name == cr_name && q.module)
      return (q.module->capabilities() & cr::kCapRestore) != 0;
  return true;
}

// "h1:2,h2:2": each host of the placement with its number of ranks, in order.
std::string hosts_summary(const std::vector<Placement>& placement) {
  std::vector<std::pair<std::string, int>> count;
  for (const auto& p : placement) {
    auto it = std::find_if(count.begin(), count.end(), [&](const auto& c) { return c.first == p.host; });
    if (it == count.end())
      count.emplace_back(p.host, 1);
    else
      ++it->second;
  }
  std::string out;
  for (const auto& [h, n] : count) out += (out.empty() ? "" : ",") + h + ":" + std::to_string(n);
  return out;
}

int restart_here(const RestartOptions& o) {
  const std::string& who = o.who;
  auto chosen = choose_snapshot(o.path, who);
  if (!chosen.ok()) {
    error(who, chosen.status().message());
    return 1;
  }
  // A spawned job's ranks hold bridges to the job that spawned them, which
  // restarts them itself (its snapshot lists this one).
  if (const auto by = read_snapshot_list(chosen->info.path, kSpawnedByFile);
      !by.empty() && std::getenv(oob::kSpawnLinkFdEnv) == nullptr) {
    error(who, "snapshot " + chosen->info.path + " is of a job spawned by job " + by.front() +
                   " (MPI_Comm_spawn), with which it was checkpointed: restart that job's snapshot, which restarts "
                   "this one with it");
    return 1;
  }
  // The jobs it spawned come back with it: each of their snapshots must
  // verify before anything is restored (their own restarts check theirs).
  for (const std::string& child : read_snapshot_list(chosen->info.path, kSpawnedFile)) {
    if (auto c = choose_snapshot(child, who); !c.ok()) {
      error(who, "snapshot " + chosen->info.path + " cannot be restarted: the snapshot of a job it spawned, " + child +
                     ", cannot: " + c.status().message());
      return 1;
    }
  }
  const snapshot::JobRecord& rec = chosen->record;
  if (rec.np <= 0 || (rec.argv.empty() && rec.apps.empty())) {
    error(who, "the manifest of " + chosen->store_dir + " records no job (np/argv missing)");
    return 1;
  }

  // Parameters: the manifest's, then the command line's over them.
  Registry reg;
  if (Status s = rt::register_runtime_params(reg); !s.ok()) {
    error(who, s.message());
    return 2;
  }
  std::map<std::string, std::string> merged;
  std::vector<std::pair<std::string, std::string>> mca;
  for (const auto& [k, v] : rec.parameters) merged[k] = v;
  for (const auto& [k, v] : o.mca) merged[k] = v;
  if (!chosen->info.cr.empty()) merged["cr"] = chosen->info.cr;  // the back end that wrote the images
  for (const auto& kv : merged) mca.push_back(kv);
  ConfigOptions cfg;
  cfg.mca = mca;
  cfg.config_files = o.config_files;
  if (Status s = reg.configure(cfg); !s.ok()) {
    error(who, s.message());
    return 2;
  }
  Framework* fw = reg.framework("cr");
  auto sel = fw ? fw->select(reg.query_context()) : StatusOr<std::vector<QueryResult>>(NotFound("no cr framework"));
  if (!sel.ok() || sel->empty()) {
    error(who, "cannot restore snapshot " + std::to_string(chosen->info.seq) + " written by cr '" +
                   chosen->info.cr + "': " + (sel.ok() ? std::string("no cr component") : sel.status().message()));
    return 1;
  }
  auto& cr_module = static_cast<cr::Module&>(*sel->front().module);
  // Core-image back ends restore the saved processes; an application-level
  // one starts the program again, which loads its registered variables.
  const bool rerun = !(cr_module.capabilities() & cr::kCapRestore);
  const int np = o.np > 0 ? o.np : rec.np;
  if (np != rec.np && !(cr_module.capabilities() & cr::kCapChangeRanks)) {
    error(who, "snapshot " + std::to_string(chosen->info.seq) + " was written by cr " + chosen->info.cr + " on " +
                   std::to_string(rec.np) + " ranks and cannot be restarted on " + std::to_string(np) +
                   " (-np needs an application-level snapshot, --mca cr app)");
    return 2;
  }

  std::vector<HostEntry> hosts;
  if (!o.hostfile.empty()) {
    auto h = parse_hostfile(o.hostfile);
    if (!h.ok()) {
      error(who, h.status().message());
      return 2;
    }
    hosts = std::move(*h);
  }
  for (const std::string& spec : o.hosts) {
    auto h = parse_host_option(spec);
    if (!h.ok()) {
      error(who, h.status().message());
      return 2;
    }
    hosts.insert(hosts.end(), h->begin(), h->end());
  }
  if (hosts.empty()) {
    for (const auto& h : rec.hosts) {
      if (!hosts.empty() && hosts.back().name == h) ++hosts.back().slots;
      else hosts.push_back({h, 1});
    }
  }
  if (hosts.empty()) hosts = default_hosts();
  int slots_left = 0;
  if (!o.lost_hosts.empty()) {
    hosts = without_lost_hosts(hosts, o.lost_hosts);
    if (hosts.empty()) {
      error(who, "no host is left to restart on: " + str::join(o.lost_hosts, ", ") +
                     (o.lost_hosts.size() > 1 ? " are" : " is") + " gone");
      return 1;
    }
    for (const auto& h : hosts) slots_left += h.slots;
  }
  auto placement = place_ranks(hosts, np, true);
  if (!placement.ok()) {
    error(who, placement.status().message());
    return 2;
  }
  if (!o.lost_hosts.empty()) {
    std::string moves = describe_moves(rec.hosts, *placement);
    note(who, "host" + std::string(o.lost_hosts.size() > 1 ? "s " : " ") + str::join(o.lost_hosts, ", ") +
                  (o.lost_hosts.size() > 1 ? " are" : " is") +
                  " gone; re-mapping the job's ranks onto the remaining hosts" +
                  (moves.empty() ? std::string() : ": " + moves));
    if (np > slots_left)
      note(who, "oversubscribing: " + std::to_string(np) + " ranks on the " + std::to_string(slots_left) + " slot" +
                    (slots_left == 1 ? "" : "s") + " left");
  }
  // Ranks started anew (application-level snapshots) are bound as by `lazarus
  // run`; a core image is restored with the affinity it was saved with.
  if (Status s = bind_local_ranks("", MapBy::kDefault, *placement); !s.ok()) {
    error(who, s.message());
    return 2;
  }

  JobSpec spec;
  spec.job_id = new_job_id();
  // The programs: the manifest's (MPMD), or its one program on np ranks.
  std::vector<snapshot::AppRecord> apps = rec.apps;
  if (apps.empty()) {
    apps.push_back({rec.argv, np, "", rec.environment});
  } else if (np != rec.np) {
    error(who, "job " + rec.name + "." + rec.id + " runs " + std::to_string(apps.size()) +
                   " programs (MPMD) and restarts on its own rank counts, not -np " + std::to_string(np));
    return 2;
  }
  for (size_t a = 0; a < apps.size(); ++a) {
    spec.apps.push_back({apps[a].argv, {}, apps[a].cwd});
    for (int k = 0; k < apps[a].np; ++k) spec.rank_app.push_back(static_cast<int>(a));
  }
  for (const auto& h : hosts) spec.universe_size += h.slots;
  spec.placement = std::move(*placement);
  spec.output = o.output ? *o.output : OutputSpec{};
  if (!o.output) spec.output.tag = o.tag_output;
  spec.stdin_ranks = {0};
  spec.timeout = o.timeout;
  if (Status s = fill_oob_spec(reg.params(), spec); !s.ok()) {
    error(who, s.message());
    return 2;
  }
  spec.command_line = o.command_line;
  fill_cr_spec(reg, spec);
  spec.snapshot_root = parent_dir(chosen->store_dir);  // the same store: new seq numbers follow
  spec.record = rec;
  spec.record.np = np;
  // The next snapshots record where the ranks run now (a later restart or
  // recovery starts from this placement).
  spec.record.hosts.clear();
  for (const auto& p : spec.placement) spec.record.hosts.push_back(p.host);
  // As `lazarus run` starts: helpers over ssh for other hosts, or srun's
  // inside a Slurm allocation (then on every host, this one too).
  auto made = make_starter(reg.params(), spec.placement);
  if (!made.ok()) {
    error(who, made.status().message());
    return 2;
  }
  std::unique_ptr<RankStarter> remote_starter_owner = std::move(*made);
  auto* remote_starter_ptr = dynamic_cast<RemoteStarter*>(remote_starter_owner.get());
  const bool remote = remote_starter_ptr != nullptr;
  spec.checkpoint_interval = o.checkpoint_interval > 0 ? o.checkpoint_interval : spec.cr_app_interval;
  spec.restored = !rerun;
  spec.restored_seq = chosen->info.seq;
  spec.restored_dir = chosen->info.path;
  if (const char* outer = std::getenv("LZ_OUTER_PID"); outer != nullptr && getpid() == 1)
    spec.registry_pid = static_cast<pid_t>(std::atoi(outer));

  note(who, "restoring job " + rec.name + "." + rec.id + " (" + std::to_string(rec.np) + " ranks) from snapshot " +
                std::to_string(chosen->info.seq) + " (" + chosen->info.path + ") as job " + spec.job_id +
                (np != rec.np ? " on " + std::to_string(np) + " ranks" : std::string()) +
                (remote ? " on hosts " + hosts_summary(spec.placement) : std::string()));
  int rc = 0;
  std::string death;
  std::vector<std::string> lost;
  if (rerun) {
    for (size_t a = 0; a < apps.size(); ++a) {
      std::vector<std::string> exports;
      for (const auto& [name, value] : apps[a].environment) {
        // A spawned job resumed by its parent's MPI_Comm_spawn: the port to
        // join is the new one (SpawnedJobs::start).
        const char* now = name == "LZ_DPM_PARENT" ? std::getenv("LZ_DPM_PARENT") : nullptr;
        exports.push_back(name + "=" + (now != nullptr ? now : value));
      }
      auto env = build_env(exports, reg.params());
      if (!env.ok()) {
        error(who, env.status().message());
        return 2;
      }
      spec.apps[a].env = std::move(*env);
      spec.apps[a].env.push_back("LZ_CR_APP_RESTART=" + chosen->info.path);
    }
    // The program reopens its files itself; those it held at the snapshot
    // go back to their state then first (a log it appends to must not keep
    // the iterations it is about to run again). Problems are warnings: the
    // files are the program's business under cr=app.
    roll_back_app_files(who, chosen->info.path, rec.np, reg.params().get_string("cr_files") == "keep");
    if (!rec.cwd.empty() && chdir(rec.cwd.c_str()) != 0)
      note(who, "cannot change to the job's directory " + rec.cwd + "; starting the program from here");
    LocalStarter local;
    RankStarter& starter = remote ? *remote_starter_owner : static_cast<RankStarter&>(local);
    AppRankMover mover(starter);
    Job job(std::move(spec), starter);
    job.set_mover(&mover);
    rc = job.run();
    death = job.rank_death();
    lost = job.lost_hosts();
  } else {
    RestoreStarter here(cr_module, chosen->info.path, chosen->info.seq);
    // The helpers select the same cr module from the same parameters.
    std::vector<std::string> params;
    for (const auto& [k, v] : mca) params.push_back(k + "=" + v);
    if (remote) remote_starter_ptr->restore_from(chosen->info.path, chosen->info.seq, params, &here);
    RankStarter& starter = remote ? *remote_starter_owner : static_cast<RankStarter&>(here);
    std::unique_ptr<RankMover> mover = make_rank_mover(starter, cr_module, params);
    Job job(std::move(spec), starter);
    job.set_mover(mover.get());
    rc = job.run();
    death = job.rank_death();
    lost = job.lost_hosts();
  }
  if (!o.recover || death.empty()) return rc;
  RestartOptions next = o;
  for (const std::string& h : lost)
    if (std::find(next.lost_hosts.begin(), next.lost_hosts.end(), h) == next.lost_hosts.end())
      next.lost_hosts.push_back(h);
  return recover_job(chosen->store_dir, death, rc, next);
}

}  // namespace

std::vector<HostEntry> without_lost_hosts(const std::vector<HostEntry>& hosts, const std::vector<std::string>& lost) {
  std::vector<HostEntry> left;
  for (const HostEntry& h : hosts)
    if (std::find(lost.begin(), lost.end(), h.name) == lost.end()) left.push_back(h);
  return left;
}

std::string describe_moves(const std::vector<std::string>& old_hosts, const std::vector<Placement>& placement) {
  std::string out;
  for (size_t r = 0; r < placement.size(); ++r) {
    const std::string from = r < old_hosts.size() ? old_hosts[r] : std::string("(none)");
    if (from == placement[r].host) continue;
    out += (out.empty() ? "" : ", ") + ("rank " + std::to_string(r) + " " + from + " -> " + placement[r].host);
  }
  return out;
}

int run_restart(const RestartOptions& o) {
  if (!o.new_pid_namespace || !restores_images(o.path, o.mca)) return restart_here(o);
  // The job registry records the pid others can signal: ours, outside (a
  // launcher that recovers inside its namespace keeps the outermost one).
  if (getpid() != 1 || std::getenv("LZ_OUTER_PID") == nullptr)
    setenv("LZ_OUTER_PID", std::to_string(getpid()).c_str(), 1);
  std::string err;
  int rc = userns::run_in_pid_namespace([&] { return restart_here(o); }, &err);
  if (rc < 0) {
    error(o.who, err);
    return 1;
  }
  return rc;
}

int recover_job(const std::string& store_dir, const std::string& death, int rc, RestartOptions o) {
  const std::string who = "lazarus run";
  if (o.restarts_done >= o.max_restarts) {
    note(who, death + "; not restarting: --max-restarts " + std::to_string(o.max_restarts) + " reached");
    return rc;
  }
  if (access(store_dir.c_str(), F_OK) != 0) {
    note(who, death + "; cannot recover: no snapshot of this job exists yet (" + store_dir + ")");
    return rc;
  }
  std::string path;
  uint64_t seq = 0;
  {
    // Closed again (lock released) before the restored job opens it.
    auto store = snapshot::SnapshotStore::open_existing(store_dir);
    if (!store.ok()) {
      note(who, death + "; cannot recover: " + store.status().message());
      return rc;
    }
    std::vector<std::string> skipped;
    auto n = store->newest_valid(&skipped);
    for (const auto& why : skipped) note(who, "skipping " + why);
    if (!n.ok()) {
      note(who, death + "; cannot recover: " +
                    (n.status().code() != Code::kNotFound ? n.status().message()
                     : skipped.empty()                    ? std::string("no snapshot of this job exists yet")
                                                          : "no valid snapshot of this job is left"));
      return rc;
    }
    path = n->path;
    seq = n->seq;
  }
  ++o.restarts_done;
  note(who, death + "; restarting from snapshot " + std::to_string(seq) + " (restart " +
                std::to_string(o.restarts_done) + " of " + std::to_string(o.max_restarts) + ")");
  o.path = path;
  o.who = who;
  return run_restart(o);
}

}  // namespace lz::launcher
