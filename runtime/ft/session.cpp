#include "session.h"

#include <sys/random.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "lazarus/log.h"
#include "lazarus/snapshot_layout.h"
#include "recovery_line.h"
#include "snapshot/snapshot_params.h"

namespace lz::ft {
namespace {

std::string program_name(const std::vector<std::string>& argv) {
  std::string p = argv.empty() ? std::string() : argv[0];
  if (p.empty()) {
    char buf[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) p.assign(buf, static_cast<size_t>(n));
  }
  const std::string base = std::filesystem::path(p).filename().string();
  return base.empty() ? std::string("program") : base;
}

// Eight hex digits, like the launcher's job ids.
std::string new_job_id() {
  uint32_t r = 0;
  if (getrandom(&r, sizeof r, 0) != static_cast<ssize_t>(sizeof r))
    r = static_cast<uint32_t>(getpid()) ^ static_cast<uint32_t>(time(nullptr));
  char id[9];
  std::snprintf(id, sizeof id, "%08x", r);
  return id;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// Rank 0's part of create(): what every rank must agree on, as lines:
// "ok", job id, snapshot to resume from (may be empty); or "error", message.
std::string decide(Registry& reg, int np, const std::vector<std::string>& argv, bool writes,
                   std::optional<snapshot::SnapshotStore>* store) {
  const ParamStore& ps = reg.params();
  const std::string root = snapshot::snapshot_root(ps);
  const std::string name = program_name(argv);
  std::vector<std::string> skipped;
  auto line = find_recovery_line(root, name, np, ps.get_string("cr_app_restart"), &skipped);
  for (const auto& why : skipped) log::warn("%s", why.c_str());
  if (!line.ok()) return "error\n" + line.status().message();
  std::string id = new_job_id(), store_root = root, resume;
  if (line->has_value()) {
    id = (*line)->job_id;
    resume = (*line)->snapshot_dir;
    // Go on writing into the store of the snapshot resumed from.
    store_root = std::filesystem::path((*line)->job_dir).parent_path().string();
    log::warn("restarting from %s", resume.c_str());
  }
  if (writes) {
    snapshot::JobRecord job;
    job.name = name;
    job.id = id;
    job.argv = argv;
    job.np = np;
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) != nullptr) job.cwd = cwd;
    job.parameters = {{"cr", "app"}};
    auto s = snapshot::SnapshotStore::open(store_root, job, snapshot::store_options(ps));
    if (!s.ok()) return "error\n" + s.status().message();
    store->emplace(std::move(*s));
  }
  return "ok\n" + id + "\n" + resume;
}

}  // namespace

StatusOr<std::unique_ptr<Session>> Session::create(Coordinator& coord, std::vector<std::string> argv) {
  std::unique_ptr<Session> s(new Session(coord));
  log::set_identity("lazarus-ft rank " + std::to_string(coord.rank()));
  s->registry_ = std::make_unique<Registry>();
  Registry& reg = *s->registry_;
  LZ_RETURN_IF_ERROR(snapshot::register_snapshot_params(reg));
  ConfigOptions opt;
  opt.mca = {{"cr", "app"}};
  opt.load_plugins = false;  // cr/app is the one back end this library drives
  // The files and LZ_MCA_* may hold settings for Lazarus jobs (transports,
  // other back ends) that this library has no use for: ignored, not errors.
  std::vector<std::string> ignored;
  opt.ignored = &ignored;
  LZ_RETURN_IF_ERROR(reg.configure(opt));
  // cr/app's names are all known here: one of them unknown is a typo.
  if (coord.rank() == 0)
    for (const auto& what : ignored) {
      if (what.rfind("'cr_app_", 0) == 0) log::warn("unknown parameter %s ignored", what.c_str());
      else log::debug("setting %s is not used by liblazarus-ft", what.c_str());
    }
  LZ_ASSIGN_OR_RETURN(auto picked, reg.framework("cr")->select(reg.query_context()));
  if (picked.empty()) return Internal("no cr component to select (cr/app is missing from this library)");
  if (picked[0].module == nullptr) return Internal("cr/app declined: " + picked[0].declined.message());
  s->module_ = std::move(picked[0].module);
  s->cr_ = dynamic_cast<cr::Module*>(s->module_.get());
  if (s->cr_ == nullptr) return Internal("cr/app's module is not a cr module");
  const ParamStore& ps = reg.params();
  s->every_ = ps.get_int("cr_app_every");
  s->interval_ = ps.get_double("cr_app_interval");
  const bool writes = s->every_ > 0 || s->interval_ > 0;

  std::string agreed;
  if (coord.rank() == 0) agreed = decide(reg, coord.size(), argv, writes, &s->store_);
  LZ_RETURN_IF_ERROR(coord.broadcast(agreed));
  std::vector<std::string> lines = split_lines(agreed);
  if (lines.empty() || lines[0] != "ok")
    return InvalidArgument(lines.size() > 1 ? agreed.substr(agreed.find('\n') + 1) : "rank 0 could not start: " + agreed);
  s->job_id_ = lines.size() > 1 ? lines[1] : "";
  Status described = Status::Ok();
  if (lines.size() > 2 && !lines[2].empty()) {
    auto info = s->cr_->describe_snapshot(lines[2]);
    if (info.ok()) {
      s->restart_ = lines[2];
      s->restart_info_ = *info;
    } else {
      described = info.status().with_context("the snapshot to restart from (" + lines[2] + ")");
    }
  }
  std::vector<uint64_t> failed{described.ok() ? 0u : 1u};
  LZ_RETURN_IF_ERROR(coord.sum(failed));
  if (!described.ok()) return described;
  if (failed[0] != 0) return DataLoss("another rank cannot read the snapshot to restart from (" + lines[2] + ")");
  s->last_line_ = std::chrono::steady_clock::now();
  return s;
}

Session::~Session() = default;

Status Session::restore() {
  if (!restart_)
    return InvalidArgument(
        "this process is not restarting from a snapshot (LZ_Restarting gives 0; set cr_app_restart to auto or a "
        "snapshot to resume)");
  if (!resumed_) {
    // The next LZ_Checkpoint is the call that wrote the snapshot: it takes nothing.
    calls_ = restart_info_.safe_point - 1;
    resume_point_ = restart_info_.safe_point;
    resumed_ = true;
  }
  std::vector<cr::AppVariable> todo = vars_.unloaded();
  if (todo.empty()) return Status::Ok();
  cr::AppLoad load{*restart_, coord_.rank(), coord_.size(), &todo};
  LZ_RETURN_IF_ERROR(cr_->load_variables(load));
  vars_.mark_loaded();
  return Status::Ok();
}

StatusOr<bool> Session::safe_point(uint64_t sent, uint64_t received) {
  ++calls_;
  if (resume_point_ != 0 && calls_ <= resume_point_) {
    if (calls_ == resume_point_) resume_point_ = 0;
    return false;
  }
  bool due = postponed_ || (every_ > 0 && calls_ % static_cast<uint64_t>(every_) == 0);
  std::vector<uint64_t> v;
  if (interval_ > 0) {
    // Rank 0's clock decides for everyone; the counts ride along.
    const bool late = coord_.rank() == 0 &&
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - last_line_).count() >= interval_;
    v = {late ? 1u : 0u, sent, received};
    LZ_RETURN_IF_ERROR(coord_.sum(v));
    due = due || v[0] != 0;
  } else if (due) {
    v = {0, sent, received};
    LZ_RETURN_IF_ERROR(coord_.sum(v));
  }
  if (!due) return false;
  if (v[1] != v[2]) {
    // Messages are on their way across this line: the next safe point tries again.
    postponed_ = true;
    if (coord_.rank() == 0 && (++postponements_ == 1 || postponements_ % 100 == 0))
      log::warn("snapshot at safe point %llu postponed: %llu message(s) sent but not yet received (%llu time(s) so far)",
                static_cast<unsigned long long>(calls_), static_cast<unsigned long long>(v[1] - v[2]),
                static_cast<unsigned long long>(postponements_));
    return false;
  }
  postponed_ = false;
  return take_line();
}

StatusOr<bool> Session::take_line() {
  std::optional<snapshot::PendingSnapshot> snap;
  std::string where;
  if (coord_.rank() == 0) {
    if (!store_) {
      where = "error\nno store open";
    } else if (auto p = store_->begin(store_->next_seq()); !p.ok()) {
      where = "error\n" + p.status().message();
    } else {
      snap.emplace(std::move(*p));
      where = "ok\n" + std::to_string(snap->seq()) + "\n" + snap->dir();
      for (int r = 0; r < coord_.size() && where[0] == 'o'; ++r)
        if (auto d = snap->rank_dir(r); !d.ok()) where = "error\n" + d.status().message();
    }
  }
  LZ_RETURN_IF_ERROR(coord_.broadcast(where));
  std::vector<std::string> lines = split_lines(where);
  if (lines.size() < 3 || lines[0] != "ok") {
    log::warn("snapshot at safe point %llu not written: %s", static_cast<unsigned long long>(calls_),
              where.size() > 6 ? where.substr(6).c_str() : where.c_str());
    return false;
  }
  const uint64_t seq = std::stoull(lines[1]);
  const std::string dir = snapshot_rank_dir(lines[2], coord_.rank());
  cr::AppSave save{dir, job_id_, seq, calls_, coord_.rank(), coord_.size(), &vars_.all()};
  auto bytes = cr_->save_variables(save);
  if (!bytes.ok())
    log::warn("snapshot %llu (safe point %llu): this rank's file not written: %s", static_cast<unsigned long long>(seq),
              static_cast<unsigned long long>(calls_), bytes.status().message().c_str());
  std::vector<uint64_t> failed{bytes.ok() ? 0u : 1u};
  LZ_RETURN_IF_ERROR(coord_.sum(failed));
  if (coord_.rank() == 0) {
    if (failed[0] != 0) {
      log::warn("snapshot %llu dropped: %llu rank(s) could not write their file", static_cast<unsigned long long>(seq),
                static_cast<unsigned long long>(failed[0]));
      store_->abort(*snap).ignore();
    } else if (auto info = store_->commit(*snap, {.np = coord_.size(), .cr = "app", .crcp = "none"}); !info.ok()) {
      log::warn("snapshot %llu not committed: %s", static_cast<unsigned long long>(seq), info.status().message().c_str());
      failed[0] = 1;
    }
    last_line_ = std::chrono::steady_clock::now();
  }
  // Only rank 0 knows whether the commit went through; `taken` says this
  // rank's file was written into a snapshot every rank wrote.
  return failed[0] == 0;
}

}  // namespace lz::ft
