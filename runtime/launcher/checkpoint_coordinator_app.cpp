// The launcher's side of application-level checkpoints (cr=app): forward
// negotiation of a requested checkpoint's safe point, one pending snapshot
// per line, and its commit once every rank's part is complete. The
// sequence is in oob/frame.h; the ranks' side in runtime/cr/app_service.h.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "launcher/checkpoint_coordinator.h"
#include "lazarus/log.h"

namespace lz::launcher {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void CheckpointCoordinator::reply(const std::vector<Waiter>& waiters, const std::string& json, bool last) {
  for (const auto& w : waiters) {
    if (w.conn == 0 || !control_) continue;
    control_->reply(w.conn, json, last || !w.wait);
  }
}

void CheckpointCoordinator::app_request(Waiter w, bool for_parent) {
  const size_t n = static_cast<size_t>(host_.size());
  auto no = [&](const std::string& why) {
    refuse(w, why);
    if (for_parent) app_report_line(0, "", why);  // epoch 0: the request (checkpoint_coordinator_app_tree.cpp)
  };
  if (migration_) return no("a migration of job " + spec_.job_id + " is under way; checkpoint once it ended");
  for (size_t i = 0; i < n; ++i)
    if (!states_[i].cr_ready || !host_.rank(static_cast<int>(i)).connected)
      return no("rank " + std::to_string(i) +
                " is not ready for checkpoints yet (a rank becomes ready at the end of MPI_Init)");
  negotiation_waiters_.push_back(w);
  if (negotiation_ != 0) return;  // joins the negotiation under way
  negotiation_ = ++next_request_;
  positions_.assign(n, std::nullopt);
  host_.broadcast(oob::MsgType::kAppNegotiate, oob::encode_app_point({0, negotiation_, ""}));
  app_ask_children(negotiation_);
  log::debug("negotiation %llu: asking every rank for its safe-point count",
             static_cast<unsigned long long>(negotiation_));
}

void CheckpointCoordinator::app_position(int rank, const oob::AppPointMsg& m) {
  if (m.seq != negotiation_ || negotiation_ == 0) return;
  positions_[static_cast<size_t>(rank)] = m.safe_point;
  uint64_t most = 0;
  for (const auto& p : positions_) {
    if (!p) return;
    most = std::max(most, *p);
  }
  // Forward negotiation (CPPC): one past the farthest rank, so nobody goes back.
  const uint64_t target = most + 1;
  if (migration_ && migration_->app && phase_ == Phase::kIdle) {
    host_.broadcast(oob::MsgType::kAppTarget, oob::encode_app_point({target, negotiation_, oob::kAppTargetMigrate}));
    negotiation_ = 0;
    app_migration_at(target);
    return;
  }
  host_.broadcast(oob::MsgType::kAppTarget, oob::encode_app_point({target, negotiation_, ""}));
  log::debug("negotiation %llu: snapshot at safe point %llu", static_cast<unsigned long long>(negotiation_),
             static_cast<unsigned long long>(target));
  negotiation_ = 0;
  auto it = lines_.find(target);
  if (it != lines_.end() && it->second.snap) {
    reply(negotiation_waiters_,
          nlohmann::json({{"event", "accepted"}, {"seq", it->second.snap->seq()}, {"path", it->second.snap->final_dir()},
                          {"safe_point", target}})
              .dump(),
          false);
    for (const auto& w : negotiation_waiters_)
      if (w.wait) it->second.waiters.push_back(w);
  } else {
    auto& tw = target_waiters_[target];
    tw.insert(tw.end(), negotiation_waiters_.begin(), negotiation_waiters_.end());
  }
  negotiation_waiters_.clear();
}

void CheckpointCoordinator::app_cancel_negotiation(const std::string& reason) {
  if (negotiation_ != 0) {
    host_.broadcast(oob::MsgType::kAppTarget, oob::encode_app_point({0, negotiation_, ""}));
    negotiation_ = 0;
  }
  reply(negotiation_waiters_, nlohmann::json({{"event", "failed"}, {"reason", reason}}).dump(), true);
  for (const auto& w : negotiation_waiters_)
    if (w.conn == 0) host_.say("checkpoint failed: " + reason);
  negotiation_waiters_.clear();
  for (auto& [sp, waiters] : target_waiters_)
    reply(waiters, nlohmann::json({{"event", "failed"}, {"reason", reason}}).dump(), true);
  target_waiters_.clear();
}

void CheckpointCoordinator::app_line(int rank, const oob::CrBookmarksMsg& m) {
  const uint64_t sp = m.seq;
  const size_t n = static_cast<size_t>(host_.size());
  auto it = lines_.find(sp);
  if (it == lines_.end()) {
    Status s = open_store();
    StatusOr<snapshot::PendingSnapshot> snap = s.ok() ? store_->begin(store_->next_seq()) : StatusOr<snapshot::PendingSnapshot>(s);
    if (!snap.ok()) {
      host_.say("snapshot at safe point " + std::to_string(sp) + " not taken: " + snap.status().message());
      host_.send(rank, oob::MsgType::kAppDir, oob::encode_app_point({sp, 0, ""}));
      return;
    }
    AppLine line;
    line.snap.emplace(std::move(*snap));
    line.started = now_seconds();
    line.lined.assign(n, false);
    line.done.assign(n, false);
    line.epoch = m.peers.empty() ? 0 : m.peers.front().bytes;  // APP_LINE: the epoch in bytes
    line.sent.assign(n, {});
    auto tw = target_waiters_.find(sp);
    if (tw != target_waiters_.end()) {
      line.waiters = std::move(tw->second);
      target_waiters_.erase(tw);
      reply(line.waiters,
            nlohmann::json({{"event", "accepted"}, {"seq", line.snap->seq()}, {"path", line.snap->final_dir()},
                            {"safe_point", sp}})
                .dump(),
            false);
      std::erase_if(line.waiters, [](const Waiter& w) { return w.conn != 0 && !w.wait; });
    }
    it = lines_.emplace(sp, std::move(line)).first;
    log::debug("snapshot %llu begun at safe point %llu", static_cast<unsigned long long>(it->second.snap->seq()),
               static_cast<unsigned long long>(sp));
  }
  AppLine& line = it->second;
  auto dir = line.snap->rank_dir(rank);
  if (!dir.ok()) {
    app_abort_line(sp, dir.status().message());
    host_.send(rank, oob::MsgType::kAppDir, oob::encode_app_point({sp, 0, ""}));
    return;
  }
  host_.send(rank, oob::MsgType::kAppDir, oob::encode_app_point({sp, line.snap->seq(), *dir}));
  const auto r = static_cast<size_t>(rank);
  line.lined[r] = true;
  for (const auto& b : m.peers) line.sent[r].push_back(b.messages);
  for (size_t q = 0; q < n; ++q)
    if (!line.lined[q]) return;
  // Every rank crossed the line: tell each what its peers had sent it.
  for (size_t p = 0; p < n; ++p) {
    oob::CrBookmarksMsg e{sp, {}};  // lines are named by safe point (app_done)
    for (size_t q = 0; q < n; ++q) e.peers.push_back({line.sent[q][p], 0});
    host_.send(static_cast<int>(p), oob::MsgType::kAppExpect, oob::encode_cr_bookmarks(e));
  }
}

// The ranks name a line by its safe point in APP_EXPECT, CHECKPOINT_DONE and
// CHECKPOINT_FAILED, not by snapshot number: a dropped line's number is
// given to the next one, and a late message about the dropped line must not
// be taken for the new one's.
void CheckpointCoordinator::app_done(int rank, uint64_t safe_point, uint64_t bytes) {
  auto it = lines_.find(safe_point);
  if (it == lines_.end() || !it->second.snap) return;
  AppLine& line = it->second;
  line.done[static_cast<size_t>(rank)] = true;
  line.bytes += bytes;
  app_maybe_commit(safe_point);
}

void CheckpointCoordinator::app_abort_line(uint64_t safe_point, const std::string& reason) {
  auto it = lines_.find(safe_point);
  if (it == lines_.end()) return;
  AppLine& line = it->second;
  const uint64_t seq = line.snap ? line.snap->seq() : 0;
  if (line.snap && store_) (void)store_->abort(*line.snap);
  app_report_line(line.epoch, "", reason);
  host_.say("snapshot " + std::to_string(seq) + " (safe point " + std::to_string(safe_point) + ") dropped: " + reason);
  reply(line.waiters, nlohmann::json({{"event", "failed"}, {"reason", reason}}).dump(), true);
  lines_.erase(it);
}

void CheckpointCoordinator::app_commit(uint64_t safe_point, const std::vector<std::string>& spawned) {
  AppLine& line = lines_.at(safe_point);
  snapshot::SnapshotMeta meta;
  meta.np = host_.size();
  meta.cr = spec_.cr_component;
  meta.crcp = spec_.crcp_component;
  Status listed = app_list_tree(line, spawned);
  auto info = listed.ok() ? store_->commit(*line.snap, meta) : StatusOr<snapshot::SnapshotInfo>(listed);
  if (!info.ok()) {
    app_abort_line(safe_point, "cannot commit: " + info.status().message());
    return;
  }
  app_report_line(line.epoch, info->path, "");
  const double secs = now_seconds() - line.started;
  // An incremental snapshot names the older ones it needs (kept while it is).
  std::string deps;
  for (uint64_t d : info->depends) deps += (deps.empty() ? ", depends on " : ", ") + std::to_string(d);
  char text[512];
  std::snprintf(text, sizeof text, "snapshot %llu committed at safe point %llu: %s (%llu bytes, %.2f s%s)",
                static_cast<unsigned long long>(info->seq), static_cast<unsigned long long>(safe_point),
                info->path.c_str(), static_cast<unsigned long long>(info->total_bytes), secs, deps.c_str());
  host_.say(text);
  last_snapshot_ = info->path;
  host_.job_file_changed();
  nlohmann::ordered_json committed{{"event", "committed"},       {"seq", info->seq},   {"path", info->path},
                                   {"bytes", info->total_bytes}, {"seconds", secs},    {"message", text},
                                   {"safe_point", safe_point},   {"terminated", false}};
  if (!info->depends.empty()) committed["depends"] = info->depends;
  reply(line.waiters, committed.dump(), true);
  lines_.erase(safe_point);
  // Older lines still pending are superseded: the newest snapshot is the recovery line.
  while (!lines_.empty() && lines_.begin()->first < safe_point)
    app_abort_line(lines_.begin()->first, "superseded by snapshot " + std::to_string(info->seq));
}

void CheckpointCoordinator::app_on_frame(int rank, oob::Frame& f) {
  const RankProcess& r = host_.rank(rank);
  RankState& c = states_[static_cast<size_t>(rank)];
  const uint32_t np = static_cast<uint32_t>(host_.size());
  auto broke = [&](const Status& s) { host_.fail(1, r.describe() + " broke the OOB protocol: " + s.message()); };
  using oob::MsgType;
  switch (static_cast<MsgType>(f.type)) {
    case MsgType::kCrReady: {
      oob::SeqMsg m;
      if (Status s = oob::decode_seq(f.payload, &m); !s.ok()) return broke(s);
      c.cr_ready = true;
      return;
    }
    case MsgType::kCrFinalizing: {
      oob::SeqMsg m;
      if (Status s = oob::decode_seq(f.payload, &m); !s.ok()) return broke(s);
      c.finalizing = true;
      const std::string why = "rank " + std::to_string(rank) + " began MPI_Finalize; no checkpoint any more";
      app_cancel_negotiation(why);
      if (migration_ && phase_ != Phase::kGo) abort_checkpoint(why);  // before GO nothing moved
      return;
    }
    case MsgType::kAppPosition: {
      oob::AppPointMsg m;
      if (Status s = oob::decode_app_point(f.payload, &m); !s.ok()) return broke(s);
      app_position(rank, m);
      return;
    }
    case MsgType::kAppLine: {
      oob::CrBookmarksMsg m;
      if (Status s = oob::decode_cr_bookmarks(f.payload, np, &m); !s.ok()) return broke(s);
      app_line(rank, m);
      return;
    }
    case MsgType::kCheckpointDone: {
      oob::CrDoneMsg m;
      if (Status s = oob::decode_cr_done(f.payload, &m); !s.ok()) return broke(s);
      app_done(rank, m.seq, m.image_bytes);
      return;
    }
    case MsgType::kCheckpointFailed: {
      oob::CrReasonMsg m;
      if (Status s = oob::decode_cr_reason(f.payload, &m); !s.ok()) return broke(s);
      app_abort_line(m.seq, "rank " + std::to_string(rank) + ": " + m.reason);  // m.seq: the safe point
      return;
    }
    case MsgType::kCheckpointReady:
    case MsgType::kCheckpointDrained:  // of a migration's round that ended (aborted) meanwhile
      log::debug("%s: stale %s ignored", r.describe().c_str(), oob::msg_type_name(f.type).c_str());
      return;
    default:
      log::warn("%s sent %s, which a launcher of a cr=app job does not expect; ignored", r.describe().c_str(),
                oob::msg_type_name(f.type).c_str());
      return;
  }
}

void CheckpointCoordinator::app_on_rank_lost(const std::string& why) {
  app_cancel_negotiation(why);
  if (migration_) abort_checkpoint(why);
  // A line every rank finished waits only for spawned jobs' (app_maybe_commit).
  std::vector<uint64_t> lost;
  for (const auto& [sp, line] : lines_)
    if (std::find(line.done.begin(), line.done.end(), false) != line.done.end()) lost.push_back(sp);
  for (uint64_t sp : lost) app_abort_line(sp, why);
}

}  // namespace lz::launcher
