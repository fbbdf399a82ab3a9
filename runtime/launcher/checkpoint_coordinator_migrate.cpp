// CheckpointCoordinator, migration of ranks: `lazarus migrate` and
// `lazarus evacuate` (cr=criu; cr=app after a negotiation, see
// checkpoint_coordinator.h). The sequence is the checkpoint's (oob/frame.h);
// what differs is who writes an image (only the moving ranks), who ends
// (only they, after their dump), and what completes it (every moving rank
// restored on its target and DONE with outcome restarted, the others DONE
// continued). See checkpoint_coordinator.h.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <system_error>

#include "launcher/checkpoint_coordinator.h"
#include "launcher/host_list.h"
#include "lazarus/log.h"
#include "lazarus/snapshot_layout.h"
#include "lazarus/strings.h"

namespace lz::launcher {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A moving rank ends once criu has written its image and killed it; criu
// itself may still be closing its files then. How long its image may take
// to become complete after the rank's end, and how often to look.
constexpr double kImageWait = 30;
constexpr double kImageRetry = 0.02;

// Migration messages are told apart from checkpoint ones by their number
// alone (the ranks match every answer to the request's seq): far above any
// snapshot sequence a store will reach.
constexpr uint64_t kMigrationSeqBase = uint64_t{1} << 48;

}  // namespace

uint64_t CheckpointCoordinator::current_seq() const {
  if (snap_) return snap_->seq();
  if (migration_) return migration_->seq;
  return 0;
}

bool CheckpointCoordinator::moving(int rank) const {
  return migration_ && rank >= 0 && static_cast<size_t>(rank) < migration_->to.size() &&
         !migration_->to[static_cast<size_t>(rank)].empty();
}

bool CheckpointCoordinator::expects_exit(int rank) const {
  return phase_ == Phase::kGo && moving(rank) && !migration_->restored[static_cast<size_t>(rank)];
}

Status CheckpointCoordinator::plan_migration(const std::vector<int>& ranks, const std::string& to,
                                             const std::string& host, Migration* m) const {
  const int np = host_.size();
  // The job's hosts in the order of their first rank, with their rank counts.
  std::vector<std::string> hosts;
  std::map<std::string, int> load;
  for (int i = 0; i < np; ++i) {
    const std::string& h = host_.rank(i).place.host;
    if (load[h]++ == 0) hosts.push_back(h);
  }
  for (const std::string& h : spec_.spare_hosts)  // no rank yet: an evacuation fills them first
    if (load.emplace(h, 0).second) hosts.push_back(h);
  const std::string listed = str::join(hosts, ", ");
  auto job_host = [&](const std::string& name) -> std::string {
    for (const auto& h : hosts)
      if (h == name || (is_local_host(name) && is_local_host(h))) return h;
    return {};
  };
  m->to.assign(static_cast<size_t>(np), std::string());
  if (host.empty()) {  // migrate
    if (ranks.empty()) return InvalidArgument("no rank to migrate (--rank R[,R2...])");
    if (to.empty()) return InvalidArgument("no target host (--to HOST)");
    for (int r : ranks)
      if (r < 0 || r >= np)
        return NotFound("rank " + std::to_string(r) + " is not a rank of job " + spec_.job_id + " (it has " +
                        std::to_string(np) + " ranks: 0.." + std::to_string(np - 1) + ")");
    // A host of the job, or this host (a migration to the same host gives the
    // rank a new process and new addresses).
    std::string target = job_host(to);
    if (target.empty() && is_local_host(to)) target = to;
    if (target.empty())
      return NotFound("unknown host '" + to + "': job " + spec_.job_id + " runs on " + listed +
                      " (a rank moves to one of its hosts or to this one)");
    LZ_RETURN_IF_ERROR(host_.can_restore_on(target));
    std::string names;
    for (int r : ranks) {
      if (!m->to[static_cast<size_t>(r)].empty()) continue;
      m->to[static_cast<size_t>(r)] = target;
      names += (names.empty() ? "" : ",") + std::to_string(r);
    }
    m->what = std::string(ranks.size() > 1 ? "ranks " : "rank ") + names + " to host " + target;
    return Status::Ok();
  }
  // evacuate: every rank of `host`, spread over the others, fewest ranks first.
  const std::string from = job_host(host);
  if (from.empty()) return NotFound("unknown host '" + host + "': job " + spec_.job_id + " runs on " + listed);
  if (hosts.size() < 2)
    return InvalidArgument("job " + spec_.job_id + " runs on host " + from +
                           " only: there is no other host to evacuate its ranks to");
  std::string names;
  for (int r = 0; r < np; ++r) {
    if (host_.rank(r).place.host != from) continue;
    std::string best;
    for (const auto& h : hosts)
      if (h != from && (best.empty() || load[h] < load[best])) best = h;
    LZ_RETURN_IF_ERROR(host_.can_restore_on(best));
    ++load[best];
    m->to[static_cast<size_t>(r)] = best;
    names += (names.empty() ? "" : ",") + std::to_string(r) + "->" + best;
  }
  m->evacuate = true;
  m->what = "host " + from + " (ranks " + names + ")";
  return Status::Ok();
}

void CheckpointCoordinator::migrate_request(Waiter w, const std::vector<int>& ranks, const std::string& to,
                                            const std::string& host) {
  const char* verb = host.empty() ? "migration" : "evacuation";
  auto refuse = [&](const std::string& why) {
    if (w.conn != 0 && control_)
      control_->reply(w.conn, nlohmann::ordered_json{{"event", "failed"}, {"reason", why}}.dump(), true);
    else
      host_.say(std::string(verb) + " refused: " + why);
  };
  if (Status s = refusal(); !s.ok()) return refuse(s.message());
  if (in_tree())
    return refuse("job " + spec_.job_id +
                  " is part of a spawn tree (MPI_Comm_spawn); moving its ranks is not supported yet");
  if (in_progress())
    return refuse("a checkpoint or migration of job " + spec_.job_id + " is under way; try again once it ended");
  Migration m;
  if (Status s = plan_migration(ranks, to, host, &m); !s.ok()) return refuse(s.message());
  m.seq = kMigrationSeqBase + ++migrations_;
  m.restored.assign(m.to.size(), false);
  m.ended.assign(m.to.size(), 0.0);
  m.app = app_mode();
  if (m.app) {
    // The safe point first (forward negotiation, as for a checkpoint); the
    // round runs there (app_migration_at). Every rank must be able to answer.
    for (int i = 0; i < host_.size(); ++i)
      if (!states_[static_cast<size_t>(i)].cr_ready || !host_.rank(i).connected)
        return refuse("rank " + std::to_string(i) +
                      " is not ready for migration yet (a rank becomes ready at the end of MPI_Init)");
  }
  migration_.emplace(std::move(m));
  log::debug("%s of %s requested", verb, migration_->what.c_str());
  waiters_.push_back(w);
  if (migration_->app) {
    negotiation_ = ++next_request_;
    positions_.assign(static_cast<size_t>(host_.size()), std::nullopt);
    host_.broadcast(oob::MsgType::kAppNegotiate, oob::encode_app_point({0, negotiation_, ""}));
    return;
  }
  phase_ = Phase::kWaitReady;
  wait_timer_ = loop_.add_timer(oob::deadline_in(spec_.cr_ready_wait), [this] {
    wait_timer_ = 0;
    if (phase_ != Phase::kWaitReady) return;
    fail_waiters("the ranks did not become ready for checkpointing in time; nothing moved");
    reset();
  });
  try_start();
}

Status CheckpointCoordinator::begin_migration() {
  Migration& m = *migration_;
  if (wait_timer_) {
    loop_.cancel_timer(wait_timer_);
    wait_timer_ = 0;
  }
  // Beside the job's snapshots, on the path its hosts share, but no snapshot
  // of the store: it is never committed and goes once the ranks run again.
  m.dir = spec_.snapshot_root + "/.migrate." + spec_.job_id + "." + std::to_string(migrations_);
  std::error_code ec;
  std::filesystem::create_directories(m.dir, ec);
  if (ec) return IoError("cannot create " + m.dir + " for the moving ranks' images: " + ec.message());
  ::chmod(m.dir.c_str(), 0700);
  for (size_t i = 0; i < m.to.size(); ++i) {
    if (m.to[i].empty()) continue;
    const std::string d = snapshot_rank_dir(m.dir, static_cast<int>(i));
    std::filesystem::create_directories(d, ec);
    if (ec) return IoError("cannot create " + d + ": " + ec.message());
    ::chmod(d.c_str(), 0700);
  }
  begin_round();
  // A rank that changes hosts changes which transport reaches it: the
  // staying ranks reconnect to the launcher after GO (kCrNewLayout) and read
  // the new layout from its WELCOME; the moved ones read it when restored.
  bool new_layout = false;
  for (size_t i = 0; i < m.to.size(); ++i) {
    if (m.to[i].empty() || m.to[i] == host_.rank(static_cast<int>(i)).place.host) continue;
    host_.announce_move(static_cast<int>(i), m.to[i]);
    new_layout = true;
  }
  const uint32_t app = m.app ? oob::kCrAtSafePoint : 0;
  for (size_t i = 0; i < m.to.size(); ++i) {
    const bool moves = !m.to[i].empty();
    const uint32_t stay = oob::kCrNoImage | (new_layout ? oob::kCrNewLayout : 0) | app;
    const uint32_t go = oob::kCrTerminate | (m.app ? oob::kCrHandover | app : 0);
    host_.send(static_cast<int>(i), oob::MsgType::kCheckpointRequest,
               oob::encode_cr_request(
                   {m.seq, moves ? go : stay, moves ? snapshot_rank_dir(m.dir, static_cast<int>(i)) : std::string()}));
  }
  std::vector<Waiter> keep;
  for (const auto& w : waiters_) {
    if (w.conn == 0 || !control_) {
      keep.push_back(w);
      continue;
    }
    control_->reply(w.conn, nlohmann::ordered_json{{"event", "accepted"}, {"what", m.what}}.dump(), !w.wait);
    if (w.wait) keep.push_back(w);
  }
  waiters_ = std::move(keep);
  return Status::Ok();
}

void CheckpointCoordinator::app_migration_at(uint64_t safe_point) {
  log::debug("%s of %s at safe point %llu", migration_->evacuate ? "evacuation" : "migration",
             migration_->what.c_str(), static_cast<unsigned long long>(safe_point));
  if (Status s = begin_migration(); !s.ok()) {
    // The ranks stop at the safe point for a round that never comes: ABORT
    // lets them go on (oob/frame.h).
    abort_checkpoint(s.message());
  }
}

bool CheckpointCoordinator::migration_round_frame(const oob::Frame& f) const {
  if (!migration_ || phase_ == Phase::kIdle || phase_ == Phase::kWaitReady) return false;
  // Only the types a rank sends in a round: anything else of a rank's is
  // the cr/app module's (app_on_frame).
  switch (static_cast<oob::MsgType>(f.type)) {
    case oob::MsgType::kCheckpointReady:
    case oob::MsgType::kCheckpointDrained:
    case oob::MsgType::kCheckpointDone:
    case oob::MsgType::kCheckpointFailed:
      break;
    default:
      return false;
  }
  const std::optional<uint64_t> seq = oob::cr_seq_of(f.type, f.payload, static_cast<uint32_t>(host_.size()));
  return seq.has_value() && *seq == migration_->seq;
}

void CheckpointCoordinator::restore_moving(int rank) {
  if (phase_ != Phase::kGo || !moving(rank)) return;
  Migration& m = *migration_;
  const size_t i = static_cast<size_t>(rank);
  if (m.restored[i]) return;
  // Restored from here on: a restore through another host's helper runs the
  // event loop while it waits, and the rank's DONE (or another moving rank's
  // end) may come meanwhile. The round does not finish while a restore is
  // under way (maybe_finish_go), but a lost rank may still abort it: the
  // restore gets copies, and `m` is used again only if it still exists.
  m.restored[i] = true;
  if (m.restoring++ == 0) m.restores_began = now_seconds();
  const uint64_t seq = m.seq;
  const std::string target = m.to[i], dir = m.dir;
  Status s = host_.restore_rank(rank, target, dir);
  if (!migration_ || migration_->seq != seq) {
    if (!s.ok()) log::warn("restore of rank %d on %s failed after its migration ended: %s", rank, target.c_str(),
                           s.message().c_str());
    return;
  }
  if (--m.restoring == 0) {
    m.restores_ended = now_seconds();
    m.restore_secs += m.restores_ended - m.restores_began;
  }
  m.restored[i] = s.ok();
  if (s.ok()) {
    log::debug("rank %d restored on %s, %.3f s after the request", rank, target.c_str(), now_seconds() - started_);
    if (phase_ == Phase::kGo) maybe_finish_go();  // its DONE may have come during the restore
    return;
  }
  if (s.code() == Code::kDataLoss && now_seconds() - m.ended[i] < kImageWait) {
    loop_.add_timer(oob::deadline_in(kImageRetry), [this, rank] { restore_moving(rank); });
    return;
  }
  // The rank is gone and cannot come back: the job cannot go on.
  states_[i].answered = true;
  const std::string why = "cannot restore rank " + std::to_string(rank) + " on " + m.to[i] + ": " + s.message();
  after_go_failure(why);
  if (!host_.stopping()) host_.fail(1, why);
}

void CheckpointCoordinator::finish_migration() {
  Migration& m = *migration_;
  const double end = now_seconds(), secs = end - started_;
  // quiesce: request to GO (every rank drained); dump: GO to the last moving
  // rank's end (its image written); restore: while a restore was under way
  // (one rank's may overlap another's dump); reconnect: from the later of
  // the last end and the last restore to the last DONE.
  const double quiesce = m.go_at - started_, dump = m.last_end - m.go_at;
  const double rest = end - std::max(m.last_end, m.restores_ended);
  char text[512];
  // cr=app: quiesce includes reaching the negotiated safe point, "save"
  // is writing the variables and hand-over, "start" the new processes.
  std::snprintf(text, sizeof text,
                "%s of %s done: evacuation time %.3f s (request to the moved ranks running again: quiesce %.3f s, "
                "%s %.3f s, %s %.3f s, reconnect %.3f s)",
                m.evacuate ? "evacuation" : "migration", m.what.c_str(), secs, quiesce, m.app ? "save" : "dump", dump,
                m.app ? "start" : "restore", m.restore_secs, rest);
  host_.say(text);
  drop_migration_images();
  host_.job_file_changed();
  for (const auto& w : waiters_) {
    if (w.conn == 0 || !control_) continue;
    control_->reply(w.conn,
                    nlohmann::ordered_json{{"event", "migrated"},
                                           {"what", m.what},
                                           {"seconds", secs},
                                           {"quiesce", quiesce},
                                           {"dump", dump},
                                           {"restore", m.restore_secs},
                                           {"reconnect", rest},
                                           {"message", text}}
                        .dump(),
                    true);
  }
  waiters_.clear();
  reset();
}

void CheckpointCoordinator::drop_migration_images() {
  if (!migration_ || migration_->dir.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(migration_->dir, ec);
  if (ec) log::warn("cannot remove %s: %s", migration_->dir.c_str(), ec.message().c_str());
}

}  // namespace lz::launcher
