#include "launcher/checkpoint_coordinator.h"

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "lazarus/log.h"

namespace lz::launcher {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string json_line(const nlohmann::ordered_json& j) { return j.dump(); }

}  // namespace

CheckpointCoordinator::CheckpointCoordinator(const JobSpec& spec, EventLoop& loop, Host& host)
    : spec_(spec), loop_(loop), host_(host), states_(static_cast<size_t>(host.size())) {
  if (spec_.restored) last_snapshot_ = spec_.restored_dir;
}

CheckpointCoordinator::~CheckpointCoordinator() { shutdown(); }

void CheckpointCoordinator::begin_round() {
  for (auto& c : states_) {
    c.ready = c.drained = c.answered = false;
    c.sent.clear();
    c.image_bytes = 0;
  }
  failure_.clear();
  started_ = now_seconds();
  phase_ = Phase::kRequested;
}

void CheckpointCoordinator::start() { arm_interval_timer(); }

void CheckpointCoordinator::shutdown() {
  if (snap_ && snap_->pending() && store_) (void)store_->abort(*snap_);
  snap_.reset();
  for (auto& [sp, line] : lines_)
    if (line.snap && line.snap->pending() && store_) (void)store_->abort(*line.snap);
  lines_.clear();
}

void CheckpointCoordinator::on_rank_connected(int rank, bool restored) {
  if (restored) states_[static_cast<size_t>(rank)].cr_ready = true;
  if (phase_ == Phase::kWaitReady) try_start();
}

void CheckpointCoordinator::on_control(uint64_t conn, const std::string& line) {
  nlohmann::json req = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!req.is_object() || !req.contains("op") || !req["op"].is_string()) {
    control_->reply(conn, json_line({{"event", "failed"}, {"reason", "malformed control request"}}), true);
    return;
  }
  const std::string op = req["op"];
  if (op == "checkpoint") {
    const bool term = req.value("terminate", false);
    const bool wait = req.value("wait", false);
    request({conn, wait}, term ? oob::kCrTerminate : 0, "lazarus checkpoint");
    return;
  }
  if (op == "migrate" || op == "evacuate") {
    std::vector<int> ranks;
    if (req.contains("ranks") && req["ranks"].is_array())
      for (const auto& r : req["ranks"])
        if (r.is_number_integer()) ranks.push_back(r.get<int>());
    migrate_request({conn, req.value("wait", true)}, ranks, req.value("to", std::string()),
                    op == "evacuate" ? req.value("host", std::string()) : std::string());
    return;
  }
  control_->reply(conn, json_line({{"event", "failed"}, {"reason", "unknown control request '" + op + "'"}}), true);
}

Status CheckpointCoordinator::refusal() const {
  if (host_.stopping()) return Status(Code::kAborted, "the job is stopping");
  if (spec_.cr_component.empty() || spec_.cr_component == "none")
    return Unavailable("checkpointing is off for job " + spec_.job_id + " (cr=none); start it with --mca cr criu" +
                       (spec_.cr_unavailable.empty() ? "" : " (here: " + spec_.cr_unavailable + ")"));
  for (size_t i = 0; i < static_cast<size_t>(host_.size()); ++i) {
    if (host_.rank(static_cast<int>(i)).exited)
      return Unavailable(host_.rank(static_cast<int>(i)).describe() + " has exited; the job cannot be checkpointed");
    if (states_[i].finalizing || host_.rank(static_cast<int>(i)).finalized)
      return Unavailable("rank " + std::to_string(i) + " is finalizing (MPI_Finalize); no checkpoint any more");
  }
  return Status::Ok();
}

void CheckpointCoordinator::refuse(const Waiter& w, const std::string& why) {
  if (w.conn != 0 && control_)
    control_->reply(w.conn, json_line({{"event", "failed"}, {"reason", why}}), true);
  else
    host_.say("checkpoint refused: " + why);
}

void CheckpointCoordinator::request(Waiter w, uint32_t flags, const std::string& origin) {
  if (Status s = refusal(); !s.ok()) {
    refuse(w, s.message());
    return;
  }
  if (Status s = tree_refusal(); !s.ok()) {
    refuse(w, s.message());
    return;
  }
  log::debug("checkpoint requested by %s", origin.c_str());
  if (app_mode()) {
    if (flags & oob::kCrTerminate) {
      const std::string why = "--term is not available with cr=app; checkpoint, then stop the job";
      refuse(w, why);
      return;
    }
    app_request(w);
    return;
  }
  if ((flags & oob::kCrTerminate) && spec_.adopted) {
    // Its ranks are not this process's children: their ends after the dump
    // would not be seen, and the commit waits for them.
    refuse(w, "--term is not available for a job started by its process manager (" + spec_.manager_job +
                  "); checkpoint, then end the job with it (scancel)");
    return;
  }
  if (migration_) {
    const std::string why = "a migration of job " + spec_.job_id + " is under way; checkpoint once it ended";
    refuse(w, why);
    return;
  }
  flags_ |= flags;
  if (in_progress()) {
    if ((flags & oob::kCrTerminate) && phase_ != Phase::kWaitReady) terminating_ = phase_ == Phase::kGo;
    if (phase_ != Phase::kWaitReady && w.conn != 0 && snap_) {
      control_->reply(
          w.conn,
          json_line({{"event", "accepted"}, {"seq", snap_->seq()}, {"path", snap_->final_dir()}, {"joined", true}}),
          !w.wait);
    }
    waiters_.push_back(w);
    return;
  }
  waiters_.push_back(w);
  phase_ = Phase::kWaitReady;
  wait_timer_ = loop_.add_timer(oob::deadline_in(spec_.cr_ready_wait), [this] {
    wait_timer_ = 0;
    if (phase_ != Phase::kWaitReady) return;
    std::string who;
    for (size_t i = 0; i < static_cast<size_t>(host_.size()); ++i)
      if (!states_[i].cr_ready || !host_.rank(static_cast<int>(i)).connected)
        who += (who.empty() ? "" : ", ") + std::to_string(i);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", spec_.cr_ready_wait);
    fail_waiters("ranks " + who + " did not become ready for checkpointing within " + buf +
                 " s (a rank becomes ready at the end of MPI_Init, with a cr component other than none)");
    reset();
  });
  try_start();
}

void CheckpointCoordinator::try_start() {
  if (phase_ != Phase::kWaitReady) return;
  if (Status s = refusal(); !s.ok()) {
    fail_waiters(s.message());
    reset();
    return;
  }
  for (size_t i = 0; i < static_cast<size_t>(host_.size()); ++i)
    if (!states_[i].cr_ready || !host_.rank(static_cast<int>(i)).connected || host_.rank(static_cast<int>(i)).detached)
      return;
  if (Status s = begin(); !s.ok()) {
    fail_waiters(s.message());
    if (snap_ && store_) (void)store_->abort(*snap_);
    reset();
  }
}

Status CheckpointCoordinator::open_store() {
  if (store_) return Status::Ok();
  snapshot::StoreOptions o;
  o.keep = spec_.cr_keep;
  o.progress = snapshot::Progress::Mode::kAuto;
  auto st = snapshot::SnapshotStore::open(spec_.snapshot_root, spec_.record, o);
  if (!st.ok()) return st.status().with_context("cannot open the snapshot store");
  store_.emplace(std::move(*st));
  host_.job_file_changed();
  return Status::Ok();
}

Status CheckpointCoordinator::begin() {
  if (migration_) return begin_migration();
  LZ_RETURN_IF_ERROR(open_store());
  if (wait_timer_) {
    loop_.cancel_timer(wait_timer_);
    wait_timer_ = 0;
  }
  LZ_ASSIGN_OR_RETURN(snapshot::PendingSnapshot snap, store_->begin(store_->next_seq()));
  snap_.emplace(std::move(snap));
  std::vector<std::string> dirs;
  for (size_t i = 0; i < static_cast<size_t>(host_.size()); ++i) {
    LZ_ASSIGN_OR_RETURN(std::string d, snap_->rank_dir(static_cast<int>(i)));
    dirs.push_back(std::move(d));
  }
  begin_round();
  tree_begin(snap_->seq());
  for (size_t i = 0; i < static_cast<size_t>(host_.size()); ++i)
    host_.send(static_cast<int>(i), oob::MsgType::kCheckpointRequest,
               oob::encode_cr_request({snap_->seq(), flags_, dirs[i]}));
  log::debug("checkpoint %llu requested from %zu ranks", static_cast<unsigned long long>(snap_->seq()),
             static_cast<size_t>(host_.size()));
  std::vector<Waiter> keep;
  for (const auto& w : waiters_) {
    if (w.conn == 0 || !control_) {
      keep.push_back(w);
      continue;
    }
    control_->reply(w.conn, json_line({{"event", "accepted"}, {"seq", snap_->seq()}, {"path", snap_->final_dir()}}),
                    !w.wait);
    if (w.wait) keep.push_back(w);
  }
  waiters_ = std::move(keep);
  return Status::Ok();
}

void CheckpointCoordinator::on_frame(int rank, oob::Frame& f) {
  if (app_mode() && !migration_round_frame(f)) return app_on_frame(rank, f);
  const RankProcess& r = host_.rank(rank);
  using oob::MsgType;
  RankState& c = states_[static_cast<size_t>(r.rank)];
  const uint32_t np = static_cast<uint32_t>(static_cast<size_t>(host_.size()));
  auto broke = [&](const Status& s) { host_.fail(1, r.describe() + " broke the OOB protocol: " + s.message()); };
  const uint64_t cur = current_seq();
  switch (static_cast<MsgType>(f.type)) {
    case MsgType::kCrReady: {
      oob::SeqMsg m;
      if (Status s = oob::decode_seq(f.payload, &m); !s.ok()) return broke(s);
      c.cr_ready = true;
      try_start();
      return;
    }
    case MsgType::kCrFinalizing: {
      oob::SeqMsg m;
      if (Status s = oob::decode_seq(f.payload, &m); !s.ok()) return broke(s);
      c.finalizing = true;
      const std::string why = "rank " + std::to_string(r.rank) + " began MPI_Finalize; no checkpoint any more";
      if (phase_ == Phase::kWaitReady) {
        fail_waiters(why);
        reset();
      } else if (phase_ == Phase::kRequested || phase_ == Phase::kDrain) {
        abort_checkpoint(why);
      }
      return;
    }
    case MsgType::kCheckpointReady: {
      oob::CrBookmarksMsg m;
      if (Status s = oob::decode_cr_bookmarks(f.payload, np, &m); !s.ok()) return broke(s);
      if (phase_ != Phase::kRequested || m.seq != cur || c.ready) {
        log::debug("%s: stale CHECKPOINT_READY %llu ignored", r.describe().c_str(),
                   static_cast<unsigned long long>(m.seq));
        return;
      }
      c.ready = true;
      c.sent = std::move(m.peers);
      for (const auto& o : states_)
        if (!o.ready) return;
      // Everyone is quiet: tell each rank what its peers sent it.
      phase_ = Phase::kDrain;
      for (uint32_t p = 0; p < np; ++p) {
        oob::CrBookmarksMsg d;
        d.seq = cur;
        for (uint32_t q = 0; q < np; ++q) d.peers.push_back(states_[q].sent[p]);
        host_.send(static_cast<int>(p), MsgType::kCheckpointDrain, oob::encode_cr_bookmarks(d));
      }
      return;
    }
    case MsgType::kCheckpointDrained: {
      oob::SeqMsg m;
      if (Status s = oob::decode_seq(f.payload, &m); !s.ok()) return broke(s);
      if (phase_ != Phase::kDrain || m.seq != cur || c.drained) return;
      c.drained = true;
      for (const auto& o : states_)
        if (!o.drained) return;
      if (tree_round_) {
        tree_round_->local_drained = true;
        tree_maybe_go();
        return;
      }
      go();
      return;
    }
    case MsgType::kCheckpointDone: {
      oob::CrDoneMsg m;
      if (Status s = oob::decode_cr_done(f.payload, &m); !s.ok()) return broke(s);
      // A moved rank, restored into this job, answers "restarted".
      const bool moved =
          m.outcome == oob::kCrOutcomeRestarted && moving(r.rank) && migration_->restored[static_cast<size_t>(r.rank)];
      if ((m.outcome == oob::kCrOutcomeRestarted && !moved) || phase_ != Phase::kGo || m.seq != cur || c.answered) {
        log::debug("%s: CHECKPOINT_DONE %llu (outcome %u) outside a checkpoint of this launcher; ignored",
                   r.describe().c_str(), static_cast<unsigned long long>(m.seq), m.outcome);
        return;
      }
      c.answered = true;
      c.image_bytes = m.image_bytes;
      maybe_finish_go();
      return;
    }
    case MsgType::kCheckpointFailed: {
      oob::CrReasonMsg m;
      if (Status s = oob::decode_cr_reason(f.payload, &m); !s.ok()) return broke(s);
      if (!in_progress() || phase_ == Phase::kWaitReady || m.seq != cur) return;
      const std::string why = "rank " + std::to_string(r.rank) + ": " + m.reason;
      if (phase_ != Phase::kGo) {
        abort_checkpoint(why);
        return;
      }
      c.answered = true;
      after_go_failure(why);
      return;
    }
    default:
      log::warn("%s sent %s, which a launcher does not expect; ignored", r.describe().c_str(),
                oob::msg_type_name(f.type).c_str());
      return;
  }
}

void CheckpointCoordinator::go() {
  phase_ = Phase::kGo;
  if (migration_) migration_->go_at = now_seconds();
  if (flags_ & oob::kCrTerminate) terminating_ = true;
  host_.broadcast(oob::MsgType::kCheckpointGo, oob::encode_seq({current_seq()}));
}

void CheckpointCoordinator::on_rank_lost(int rank, const std::string& why) {
  // A cr=app migration's round goes as a core-image one's from REQUEST on.
  if (app_mode() && !(migration_ && phase_ != Phase::kIdle)) return app_on_rank_lost(why);
  if (!in_progress()) return;
  RankState& c = states_[static_cast<size_t>(rank)];
  switch (phase_) {
    case Phase::kIdle:
      return;
    case Phase::kWaitReady:
      fail_waiters(why);
      reset();
      return;
    case Phase::kRequested:
    case Phase::kDrain:
      abort_checkpoint(why);
      return;
    case Phase::kGo:
      if (c.answered) return;
      // A moving rank ends once its image is written: bring it back (from
      // the next loop turn: the Job is still handling this end).
      if (expects_exit(rank)) {
        migration_->ended[static_cast<size_t>(rank)] = migration_->last_end = now_seconds();
        loop_.add_timer(oob::deadline_in(0.001), [this, rank] { restore_moving(rank); });  // (0 would be never)
        return;
      }
      c.answered = true;
      // With --term a rank ends once its image is written (cr/criu kills the
      // dumped process): its end is its answer; commit() then checks its files.
      if (terminating_) {
        maybe_finish_go();
        return;
      }
      after_go_failure(why);
      return;
  }
}

void CheckpointCoordinator::abort_checkpoint(const std::string& reason) {
  const uint64_t seq = current_seq();
  host_.broadcast(oob::MsgType::kCheckpointAbort, oob::encode_cr_reason({seq, reason}));
  tree_abort_children(reason);
  if (migration_) {
    host_.say("migration of " + migration_->what + " aborted (nothing moved): " + reason);
    drop_migration_images();
  } else {
    host_.say("checkpoint " + std::to_string(seq) + " aborted: " + reason);
  }
  if (snap_ && store_) (void)store_->abort(*snap_);
  fail_waiters(reason);
  reset();
}

void CheckpointCoordinator::after_go_failure(const std::string& reason) {
  if (failure_.empty()) failure_ = reason;
  maybe_finish_go();
}

void CheckpointCoordinator::maybe_finish_go() {
  for (const auto& c : states_)
    if (!c.answered) return;
  if (!tree_children_done()) return;  // on_child_done() calls here again
  // A restore running the event loop holds the migration: it calls here again once done.
  if (migration_ && migration_->restoring > 0) {
    log::debug("every rank answered the migration round; it ends once the restore under way returns");
    return;
  }
  if (migration_ && failure_.empty()) {
    finish_migration();
    return;
  }
  if (migration_) {
    host_.say("migration of " + migration_->what + " failed: " + failure_);
    drop_migration_images();
    fail_waiters(failure_);
    reset();
    return;
  }
  if (!failure_.empty()) {
    const uint64_t seq = snap_ ? snap_->seq() : 0;
    host_.say("checkpoint " + std::to_string(seq) + " failed: " + failure_);
    if (snap_ && store_) (void)store_->abort(*snap_);
    fail_waiters(failure_);
    const bool term = terminating_;
    reset();
    if (term && !host_.stopping()) host_.fail(1, "the terminating checkpoint failed");
    return;
  }
  // With --term the ranks end while their checkpointer (criu, reparented to
  // us as subreaper) may still be writing its last files: commit once no
  // child of ours is left (bounded; commit() then checks every file anyway).
  if (terminating_) {
    if (host_.has_transient_children() && now_seconds() - started_ < 120) {
      loop_.add_timer(oob::deadline_in(0.05), [this] {
        host_.reap();
        if (phase_ == Phase::kGo) maybe_finish_go();
      });
      return;
    }
  }
  commit();
}

void CheckpointCoordinator::commit() {
  snapshot::SnapshotMeta meta;
  meta.np = static_cast<int>(static_cast<size_t>(host_.size()));
  meta.cr = spec_.cr_component;
  meta.crcp = spec_.crcp_component;
  Status listed = tree_list_children(snap_->dir());
  auto info = listed.ok() ? store_->commit(*snap_, meta) : StatusOr<snapshot::SnapshotInfo>(listed);
  if (!info.ok()) {
    const std::string why = "cannot commit snapshot " + std::to_string(snap_->seq()) + ": " + info.status().message();
    host_.say(why);
    (void)store_->abort(*snap_);
    fail_waiters(why);
    const bool term = terminating_;
    reset();
    if (term && !host_.stopping()) host_.fail(1, why);
    return;
  }
  const double secs = now_seconds() - started_;
  // An incremental snapshot names the older ones it needs (kept while it is).
  std::string deps;
  for (uint64_t d : info->depends) deps += (deps.empty() ? ", depends on " : ", ") + std::to_string(d);
  char text[512];
  std::snprintf(text, sizeof text, "snapshot %llu committed: %s (%llu bytes, %.2f s%s)",
                static_cast<unsigned long long>(info->seq), info->path.c_str(),
                static_cast<unsigned long long>(info->total_bytes), secs, deps.c_str());
  host_.say(text);
  tree_committed(info->path);
  last_snapshot_ = info->path;
  host_.job_file_changed();
  const bool term = (flags_ & oob::kCrTerminate) != 0;
  for (const auto& w : waiters_) {
    if (w.conn == 0 || !control_) continue;
    nlohmann::ordered_json j{{"event", "committed"},       {"seq", info->seq}, {"path", info->path},
                             {"bytes", info->total_bytes}, {"seconds", secs},  {"message", text},
                             {"terminated", term}};
    if (!info->depends.empty()) j["depends"] = info->depends;
    control_->reply(w.conn, json_line(j), true);
  }
  waiters_.clear();
  const bool spawned = tree_round_ && tree_round_->from_parent;
  reset();
  if (term && !host_.stopping()) {
    if (spawned)
      host_.say("job " + spec_.job_id + " stopped after its checkpoint with job " + tree_->parent_job() +
                ", which spawned it (--term); restarting that job restarts this one");
    else
      host_.say("job " + spec_.job_id +
                " stopped after its checkpoint, as requested (--term); restart it with "
                "`lazarus restart " +
                info->path + "`");
    terminating_ = true;  // ranks may still be on their way out
    host_.stop_after_checkpoint();
  }
}

void CheckpointCoordinator::fail_waiters(const std::string& reason) {
  tree_failed(reason);
  for (const auto& w : waiters_) {
    if (w.conn == 0 || !control_) {
      if (w.conn == 0) host_.say("checkpoint failed: " + reason);
      continue;
    }
    control_->reply(w.conn, json_line({{"event", "failed"}, {"reason", reason}}), true);
  }
  waiters_.clear();
}

void CheckpointCoordinator::reset() {
  if (wait_timer_) {
    loop_.cancel_timer(wait_timer_);
    wait_timer_ = 0;
  }
  phase_ = Phase::kIdle;
  flags_ = 0;
  tree_round_.reset();
  if (!host_.stopping()) terminating_ = false;
  snap_.reset();
  migration_.reset();
  // --checkpoint-interval is the time the job runs between two checkpoints:
  // the next periodic one is due an interval after this one ended, not after
  // it began. Counted from the start, a checkpoint longer than the interval
  // (2 s against 1 s for four ranks over libfabric's tcp;ofi_rxm on a loaded
  // machine) left the job a fraction of a second between checkpoints, all of
  // it spent reconnecting, and it never finished.
  if (interval_timer_ != 0 && !host_.stopping()) {
    loop_.cancel_timer(interval_timer_);
    interval_timer_ = 0;
    arm_interval_timer();
  }
}

void CheckpointCoordinator::arm_interval_timer() {
  if (spec_.checkpoint_interval <= 0) return;
  interval_timer_ = loop_.add_timer(oob::deadline_in(spec_.checkpoint_interval), [this] {
    interval_timer_ = 0;
    if (host_.stopping()) return;
    // A periodic checkpoint that finds the job finishing just does not happen.
    if (refusal().ok() && !in_progress()) request({0, false}, 0, "--checkpoint-interval");
    arm_interval_timer();
  });
}

}  // namespace lz::launcher
