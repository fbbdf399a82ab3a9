// Job: the checkpoint coordinator (the launcher's side of the CR protocol in
// oob/frame.h) and the control socket's requests.
//
// One checkpoint at a time. A request that arrives while one is waiting or
// running joins it and gets its outcome (a --term request makes it a
// terminating one). Phases:
//   kWaitReady  until every rank is CR-ready (bounded by cr_ready_wait)
//   kRequested  REQUEST sent, collecting READY bookmarks
//   kDrain      DRAIN sent, collecting DRAINED
//   kGo         GO sent, collecting DONE / FAILED (or the rank's exit)
// Before GO a failure aborts the checkpoint everywhere (ABORT to the others);
// after GO the ranks go on by themselves and only the snapshot is dropped.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "launcher/job.h"
#include "lazarus/log.h"

namespace lz::launcher {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string json_line(const nlohmann::ordered_json& j) { return j.dump(); }

}  // namespace

void Job::on_control(uint64_t conn, const std::string& line) {
  nlohmann::json req = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!req.is_object() || !req.contains("op") || !req["op"].is_string()) {
    control_->reply(conn, json_line({{"event", "failed"}, {"reason", "malformed control request"}}), true);
    return;
  }
  const std::string op = req["op"];
  if (op == "checkpoint") {
    const bool term = req.value("terminate", false);
    const bool wait = req.value("wait", false);
    cr_request({conn, wait}, term ? oob::kCrTerminate : 0, "lazarus checkpoint");
    return;
  }
  control_->reply(conn, json_line({{"event", "failed"}, {"reason", "unknown control request '" + op + "'"}}), true);
}

Status Job::cr_refusal() const {
  if (stopping_) return Status(Code::kAborted, "the job is stopping");
  if (spec_.cr_component.empty() || spec_.cr_component == "none")
    return Unavailable("checkpointing is off for job " + spec_.job_id +
                              " (cr=none); start it with --mca cr criu" +
                              (spec_.cr_unavailable.empty() ? "" : " (here: " + spec_.cr_unavailable + ")"));
  for (size_t i = 0; i < ranks_.size(); ++i) {
    if (ranks_[i].exited) return Unavailable(ranks_[i].describe() + " has exited; the job cannot be checkpointed");
    if (cr_ranks_[i].finalizing || ranks_[i].finalized)
      return Unavailable("rank " + std::to_string(i) + " is finalizing (MPI_Finalize); no checkpoint any more");
  }
  return Status::Ok();
}

void Job::cr_request(CrWaiter w, uint32_t flags, const std::string& origin) {
  if (Status s = cr_refusal(); !s.ok()) {
    if (w.conn != 0 && control_)
      control_->reply(w.conn, json_line({{"event", "failed"}, {"reason", s.message()}}), true);
    else
      say("checkpoint refused: " + s.message());
    return;
  }
  log::debug("checkpoint requested by %s", origin.c_str());
  cr_flags_ |= flags;
  if (cr_in_progress()) {
    if ((flags & oob::kCrTerminate) && cr_phase_ != CrPhase::kWaitReady) cr_terminating_ = cr_phase_ == CrPhase::kGo;
    if (cr_phase_ != CrPhase::kWaitReady && w.conn != 0 && snap_) {
      control_->reply(w.conn,
                      json_line({{"event", "accepted"}, {"seq", snap_->seq()}, {"path", snap_->final_dir()},
                                 {"joined", true}}),
                      !w.wait);
    }
    cr_waiters_.push_back(w);
    return;
  }
  cr_waiters_.push_back(w);
  cr_phase_ = CrPhase::kWaitReady;
  cr_wait_timer_ = loop_.add_timer(oob::deadline_in(spec_.cr_ready_wait), [this] {
    cr_wait_timer_ = 0;
    if (cr_phase_ != CrPhase::kWaitReady) return;
    std::string who;
    for (size_t i = 0; i < ranks_.size(); ++i)
      if (!cr_ranks_[i].cr_ready || !ranks_[i].connected) who += (who.empty() ? "" : ", ") + std::to_string(i);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", spec_.cr_ready_wait);
    cr_fail_waiters("ranks " + who + " did not become ready for checkpointing within " + buf +
                    " s (a rank becomes ready at the end of MPI_Init, with a cr component other than none)");
    cr_reset();
  });
  cr_try_start();
}

void Job::cr_try_start() {
  if (cr_phase_ != CrPhase::kWaitReady) return;
  if (Status s = cr_refusal(); !s.ok()) {
    cr_fail_waiters(s.message());
    cr_reset();
    return;
  }
  for (size_t i = 0; i < ranks_.size(); ++i)
    if (!cr_ranks_[i].cr_ready || !ranks_[i].connected || ranks_[i].detached) return;
  if (Status s = cr_begin(); !s.ok()) {
    cr_fail_waiters(s.message());
    if (snap_ && store_) (void)store_->abort(*snap_);
    cr_reset();
  }
}

Status Job::open_store() {
  if (store_) return Status::Ok();
  snapshot::StoreOptions o;
  o.keep = spec_.cr_keep;
  o.progress = snapshot::Progress::Mode::kAuto;
  auto st = snapshot::SnapshotStore::open(spec_.snapshot_root, spec_.record, o);
  if (!st.ok()) return st.status().with_context("cannot open the snapshot store");
  store_.emplace(std::move(*st));
  write_job_file();
  return Status::Ok();
}

Status Job::cr_begin() {
  LZ_RETURN_IF_ERROR(open_store());
  if (cr_wait_timer_) {
    loop_.cancel_timer(cr_wait_timer_);
    cr_wait_timer_ = 0;
  }
  LZ_ASSIGN_OR_RETURN(snapshot::PendingSnapshot snap, store_->begin(store_->next_seq()));
  snap_.emplace(std::move(snap));
  std::vector<std::string> dirs;
  for (size_t i = 0; i < ranks_.size(); ++i) {
    LZ_ASSIGN_OR_RETURN(std::string d, snap_->rank_dir(static_cast<int>(i)));
    dirs.push_back(std::move(d));
  }
  for (auto& c : cr_ranks_) {
    c.ready = c.drained = c.answered = false;
    c.sent.clear();
    c.image_bytes = 0;
  }
  cr_failure_.clear();
  cr_started_ = now_seconds();
  cr_phase_ = CrPhase::kRequested;
  for (size_t i = 0; i < ranks_.size(); ++i)
    server_->send(static_cast<int>(i), oob::MsgType::kCheckpointRequest,
                  oob::encode_cr_request({snap_->seq(), cr_flags_, dirs[i]}));
  log::debug("checkpoint %llu requested from %zu ranks", static_cast<unsigned long long>(snap_->seq()), ranks_.size());
  std::vector<CrWaiter> keep;
  for (const auto& w : cr_waiters_) {
    if (w.conn == 0 || !control_) {
      keep.push_back(w);
      continue;
    }
    control_->reply(w.conn, json_line({{"event", "accepted"}, {"seq", snap_->seq()}, {"path", snap_->final_dir()}}),
                    !w.wait);
    if (w.wait) keep.push_back(w);
  }
  cr_waiters_ = std::move(keep);
  return Status::Ok();
}

void Job::cr_on_frame(RankProcess& r, oob::Frame& f) {
  using oob::MsgType;
  CrRankState& c = cr_ranks_[static_cast<size_t>(r.rank)];
  const uint32_t np = static_cast<uint32_t>(ranks_.size());
  auto broke = [&](const Status& s) { fail(1, r.describe() + " broke the OOB protocol: " + s.message()); };
  const uint64_t cur = snap_ ? snap_->seq() : 0;
  switch (static_cast<MsgType>(f.type)) {
    case MsgType::kCrReady: {
      oob::SeqMsg m;
      if (Status s = oob::decode_seq(f.payload, &m); !s.ok()) return broke(s);
      c.cr_ready = true;
      cr_try_start();
      return;
    }
    case MsgType::kCrFinalizing: {
      oob::SeqMsg m;
      if (Status s = oob::decode_seq(f.payload, &m); !s.ok()) return broke(s);
      c.finalizing = true;
      const std::string why = "rank " + std::to_string(r.rank) + " began MPI_Finalize; no checkpoint any more";
      if (cr_phase_ == CrPhase::kWaitReady) {
        cr_fail_waiters(why);
        cr_reset();
      } else if (cr_phase_ == CrPhase::kRequested || cr_phase_ == CrPhase::kDrain) {
        cr_abort(why);
      }
      return;
    }
    case MsgType::kCheckpointReady: {
      oob::CrBookmarksMsg m;
      if (Status s = oob::decode_cr_bookmarks(f.payload, np, &m); !s.ok()) return broke(s);
      if (cr_phase_ != CrPhase::kRequested || m.seq != cur || c.ready) {
        log::debug("%s: stale CHECKPOINT_READY %llu ignored", r.describe().c_str(), static_cast<unsigned long long>(m.seq));
        return;
      }
      c.ready = true;
      c.sent = std::move(m.peers);
      for (const auto& o : cr_ranks_)
        if (!o.ready) return;
      // Everyone is quiet: tell each rank what its peers sent it.
      cr_phase_ = CrPhase::kDrain;
      for (uint32_t p = 0; p < np; ++p) {
        oob::CrBookmarksMsg d;
        d.seq = cur;
        for (uint32_t q = 0; q < np; ++q) d.peers.push_back(cr_ranks_[q].sent[p]);
        server_->send(static_cast<int>(p), MsgType::kCheckpointDrain, oob::encode_cr_bookmarks(d));
      }
      return;
    }
    case MsgType::kCheckpointDrained: {
      oob::SeqMsg m;
      if (Status s = oob::decode_seq(f.payload, &m); !s.ok()) return broke(s);
      if (cr_phase_ != CrPhase::kDrain || m.seq != cur || c.drained) return;
      c.drained = true;
      for (const auto& o : cr_ranks_)
        if (!o.drained) return;
      cr_phase_ = CrPhase::kGo;
      if (cr_flags_ & oob::kCrTerminate) cr_terminating_ = true;
      server_->broadcast(MsgType::kCheckpointGo, oob::encode_seq({cur}));
      return;
    }
    case MsgType::kCheckpointDone: {
      oob::CrDoneMsg m;
      if (Status s = oob::decode_cr_done(f.payload, &m); !s.ok()) return broke(s);
      if (m.outcome == oob::kCrOutcomeRestarted || cr_phase_ != CrPhase::kGo || m.seq != cur || c.answered) {
        log::debug("%s: CHECKPOINT_DONE %llu (outcome %u) outside a checkpoint of this launcher; ignored",
                   r.describe().c_str(), static_cast<unsigned long long>(m.seq), m.outcome);
        return;
      }
      c.answered = true;
      c.image_bytes = m.image_bytes;
      cr_maybe_finish_go();
      return;
    }
    case MsgType::kCheckpointFailed: {
      oob::CrReasonMsg m;
      if (Status s = oob::decode_cr_reason(f.payload, &m); !s.ok()) return broke(s);
      if (!cr_in_progress() || cr_phase_ == CrPhase::kWaitReady || m.seq != cur) return;
      const std::string why = "rank " + std::to_string(r.rank) + ": " + m.reason;
      if (cr_phase_ != CrPhase::kGo) {
        cr_abort(why);
        return;
      }
      c.answered = true;
      cr_after_go_failure(why);
      return;
    }
    default:
      log::warn("%s sent %s, which a launcher does not expect; ignored", r.describe().c_str(),
                oob::msg_type_name(f.type).c_str());
      return;
  }
}

void Job::cr_rank_lost(RankProcess& r, const std::string& why) {
  CrRankState& c = cr_ranks_[static_cast<size_t>(r.rank)];
  switch (cr_phase_) {
    case CrPhase::kIdle:
      return;
    case CrPhase::kWaitReady:
      cr_fail_waiters(why);
      cr_reset();
      return;
    case CrPhase::kRequested:
    case CrPhase::kDrain:
      cr_abort(why);
      return;
    case CrPhase::kGo:
      if (c.answered) return;
      c.answered = true;
      // With --term a rank ends once its image is written (cr/criu kills the
      // dumped process): its end is its answer; commit() then checks its files.
      if (cr_terminating_) {
        cr_maybe_finish_go();
        return;
      }
      cr_after_go_failure(why);
      return;
  }
}

void Job::cr_abort(const std::string& reason) {
  const uint64_t seq = snap_ ? snap_->seq() : 0;
  server_->broadcast(oob::MsgType::kCheckpointAbort, oob::encode_cr_reason({seq, reason}));
  say("checkpoint " + std::to_string(seq) + " aborted: " + reason);
  if (snap_ && store_) (void)store_->abort(*snap_);
  cr_fail_waiters(reason);
  cr_reset();
}

void Job::cr_after_go_failure(const std::string& reason) {
  if (cr_failure_.empty()) cr_failure_ = reason;
  cr_maybe_finish_go();
}

void Job::cr_maybe_finish_go() {
  for (const auto& c : cr_ranks_)
    if (!c.answered) return;
  if (!cr_failure_.empty()) {
    const uint64_t seq = snap_ ? snap_->seq() : 0;
    say("checkpoint " + std::to_string(seq) + " failed: " + cr_failure_);
    if (snap_ && store_) (void)store_->abort(*snap_);
    cr_fail_waiters(cr_failure_);
    const bool term = cr_terminating_;
    cr_reset();
    if (term && !stopping_) fail(1, "the terminating checkpoint failed");
    return;
  }
  // With --term the ranks end while their checkpointer (criu, reparented to
  // us as subreaper) may still be writing its last files: commit once no
  // child of ours is left (bounded; commit() then checks every file anyway).
  if (cr_terminating_) {
    siginfo_t si{};
    bool children = waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0;
    if (children && now_seconds() - cr_started_ < 120) {
      loop_.add_timer(oob::deadline_in(0.05), [this] {
        reap();
        if (cr_phase_ == CrPhase::kGo) cr_maybe_finish_go();
      });
      return;
    }
  }
  cr_commit();
}

void Job::cr_commit() {
  snapshot::SnapshotMeta meta;
  meta.np = static_cast<int>(ranks_.size());
  meta.cr = spec_.cr_component;
  meta.crcp = spec_.crcp_component;
  auto info = store_->commit(*snap_, meta);
  if (!info.ok()) {
    const std::string why = "cannot commit snapshot " + std::to_string(snap_->seq()) + ": " + info.status().message();
    say(why);
    (void)store_->abort(*snap_);
    cr_fail_waiters(why);
    const bool term = cr_terminating_;
    cr_reset();
    if (term && !stopping_) fail(1, why);
    return;
  }
  const double secs = now_seconds() - cr_started_;
  char text[512];
  std::snprintf(text, sizeof text, "snapshot %llu committed: %s (%llu bytes, %.2f s)",
                static_cast<unsigned long long>(info->seq), info->path.c_str(),
                static_cast<unsigned long long>(info->total_bytes), secs);
  say(text);
  last_snapshot_ = info->path;
  write_job_file();
  const bool term = (cr_flags_ & oob::kCrTerminate) != 0;
  for (const auto& w : cr_waiters_) {
    if (w.conn == 0 || !control_) continue;
    nlohmann::ordered_json j{{"event", "committed"}, {"seq", info->seq},       {"path", info->path},
                             {"bytes", info->total_bytes}, {"seconds", secs}, {"message", text},
                             {"terminated", term}};
    control_->reply(w.conn, json_line(j), true);
  }
  cr_waiters_.clear();
  cr_reset();
  if (term && !stopping_) {
    say("job " + spec_.job_id + " stopped after its checkpoint, as requested (--term); restart it with "
        "`lazarus restart " + info->path + "`");
    stopping_ = true;
    exit_code_ = 0;
    cr_terminating_ = true;  // ranks may still be on their way out
    stop_ranks(SIGTERM);
  }
}

void Job::cr_fail_waiters(const std::string& reason) {
  for (const auto& w : cr_waiters_) {
    if (w.conn == 0 || !control_) {
      if (w.conn == 0) say("checkpoint failed: " + reason);
      continue;
    }
    control_->reply(w.conn, json_line({{"event", "failed"}, {"reason", reason}}), true);
  }
  cr_waiters_.clear();
}

void Job::cr_reset() {
  if (cr_wait_timer_) {
    loop_.cancel_timer(cr_wait_timer_);
    cr_wait_timer_ = 0;
  }
  cr_phase_ = CrPhase::kIdle;
  cr_flags_ = 0;
  if (!stopping_) cr_terminating_ = false;
  snap_.reset();
}

void Job::arm_interval_timer() {
  if (spec_.checkpoint_interval <= 0) return;
  interval_timer_ = loop_.add_timer(oob::deadline_in(spec_.checkpoint_interval), [this] {
    interval_timer_ = 0;
    if (stopping_) return;
    // A periodic checkpoint that finds the job finishing just does not happen.
    if (cr_refusal().ok() && !cr_in_progress()) cr_request({0, false}, 0, "--checkpoint-interval");
    arm_interval_timer();
  });
}

}  // namespace lz::launcher
