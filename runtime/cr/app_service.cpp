#include "cr/app_service.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "cr/app_handover.h"
#include "cr/own_files.h"
#include "io/io_queue.h"
#include "lazarus/log.h"
#include "lazarus/snapshot_layout.h"
#include "oob/messages.h"
#include "p2p/comm_record.h"
#include "p2p/counters.h"
#include "p2p/engine.h"
#include "p2p/protocol.h"
#include "p2p/runtime.h"

namespace lz::rt {


using oob::MsgType;

namespace {
std::unique_ptr<AppService> g_app;
}  // namespace

AppService* app_service() { return g_app.get(); }
void set_app_service(std::unique_ptr<AppService> s) { g_app = std::move(s); }

AppService::AppService(Runtime& rt) : rt_(rt) {}

AppService::~AppService() {
  if (line_ != nullptr) line_->set_on_complete(nullptr);
  if (mlog_ != nullptr) {
    rt_.engine().set_message_log(nullptr);
    rt_.engine().set_line_count_handler(nullptr);
  }
  if (wake_fd_ >= 0) close(wake_fd_);
}

Status AppService::start() {
  active_ = (rt_.cr_module().capabilities() & cr::kCapAppLevel) != 0 && rt_.cr_name() != "none";
  if (!active_) return Status::Ok();
  const ParamStore& ps = rt_.registry().params();
  if (ps.is_registered("cr_app_every")) every_ = ps.get_int("cr_app_every");
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return ErrnoError("eventfd for application-level checkpoints", errno);
  crcp::Module& crcp = rt_.crcp_module();
  if (crcp.capabilities() & crcp::kCapMessageLog) {
    LZ_RETURN_IF_ERROR(crcp.attach(rt_.rank(), rt_.size()).with_context("crcp " + rt_.crcp_name()));
    line_ = crcp.line_protocol();
    mlog_ = crcp.message_log();
    if (line_ == nullptr || mlog_ == nullptr)
      return Internal("crcp " + rt_.crcp_name() + " declares a message log but offers none");
    rt_.engine().set_message_log(mlog_);
    const int fd = wake_fd_;
    line_->set_on_complete([fd] {
      uint64_t one = 1;
      ssize_t n = write(fd, &one, sizeof one);
      (void)n;
    });
    rt_.engine().set_line_count_handler(
        [this](int index, uint64_t epoch, uint64_t sent) { on_line_count(index, epoch, sent); });
  }
  // Until the first safe point: what a process taking this rank's place
  // would have to make again alone.
  CommRecord::instance().set_recording(true);
  const char* dir = std::getenv("LZ_CR_APP_RESTART");
  const char* joining = std::getenv("LZ_CR_APP_JOIN");
  if (joining != nullptr && *joining != '\0') {
    if (dir == nullptr || *dir == '\0')
      return InvalidArgument("LZ_CR_APP_JOIN is set without LZ_CR_APP_RESTART (the launcher sets both)");
    restart_dir_ = dir;
    return join();
  }
  if (dir != nullptr && *dir != '\0') {
    restart_dir_ = dir;
    auto info = rt_.cr_module().describe_snapshot(restart_dir_);
    if (!info.ok()) return info.status().with_context("the snapshot to restart from (" + restart_dir_ + ")");
    restart_info_ = *info;
    restarting_ = true;
  } else if (const char* e = std::getenv("LZ_CR_APP_EPOCH"); e != nullptr && *e != '\0' && line_ != nullptr) {
    // A spawned job numbers its lines as the job that spawned it (a
    // restarted one has its epoch from its line file).
    char* end = nullptr;
    const unsigned long long v = std::strtoull(e, &end, 10);
    if (*end != '\0' || v > UINT32_MAX)
      return InvalidArgument("LZ_CR_APP_EPOCH=" + std::string(e) + " is not an epoch");
    line_->start_epoch(static_cast<uint32_t>(v));
  }
  return Status::Ok();
}

std::optional<uint32_t> AppService::spawn_epoch() const {
  if (!active_ || line_ == nullptr) return std::nullopt;
  return line_->epoch();
}

Status AppService::restore() {
  if (!restarting_)
    return InvalidArgument("this process is not restarting from a snapshot (LZ_Restarting gives 0)" +
                           std::string(active_ ? "" : "; application-level snapshots need --mca cr app"));
  if (!protocol_loaded_) {
    if (line_ != nullptr)
      LZ_RETURN_IF_ERROR(line_->load_line(restart_dir_, rt_.rank(), rt_.size(), restart_info_.nranks));
    if (mlog_ != nullptr) {
      std::vector<crcp::Replayed> replay = mlog_->take_replay();
      for (const crcp::Replayed& m : replay)
        if (m.m.world_src >= rt_.engine().peer_count())
          return InvalidArgument(
              "the snapshot holds a message from a process of another job (peer " + std::to_string(m.m.world_src) +
              ") that this process is not connected to again: under cr=app a program makes its spawned jobs "
              "again (MPI_Comm_spawn, MPI_Comm_get_parent) before LZ_Restore, as it makes its communicators");
      rt_.engine().replay(std::move(replay));
    }
    calls_ = restart_info_.safe_point - 1;
    resume_point_ = restart_info_.safe_point;
    protocol_loaded_ = true;
  }
  std::vector<cr::AppVariable> todo = vars_.unloaded();
  // A process that took a moved rank's place has made the rank's
  // communicators again (or not: then it cannot go on as that rank).
  Status s = CommRecord::instance().finish_replay();
  if (s.ok() && !todo.empty()) {
    cr::AppLoad load{restart_dir_, rt_.rank(), rt_.size(), &todo};
    s = rt_.cr_module().load_variables(load);
    if (s.ok()) vars_.mark_loaded();
  }
  if (joined_ != 0) {  // running again in the moved rank's place (or not)
    if (s.ok()) send(MsgType::kCheckpointDone, oob::encode_cr_done({joined_, oob::kCrOutcomeRestarted, 0}));
    else send(MsgType::kCheckpointFailed, oob::encode_cr_reason({joined_, s.message().substr(0, oob::kMaxReasonBytes)}));
    joined_ = 0;
  }
  return s;
}

StatusOr<bool> AppService::safe_point() {
  ++calls_;
  if (calls_ == 1) CommRecord::instance().set_recording(false);  // the setup's communicators are recorded
  if (!active_) return false;
  if (const size_t open = rt_.engine().open_receives(); open != 0)
    return InvalidArgument(std::to_string(open) + " receive" + (open == 1 ? " is" : "s are") +
                           " pending at a safe point (call " + std::to_string(calls_) +
                           "); a pending receive's buffer is not part of the saved state, so complete every "
                           "receive (MPI_Wait) before LZ_Checkpoint (pending sends are allowed)");
  if (resume_point_ != 0 && calls_ <= resume_point_) {
    if (calls_ == resume_point_) resume_point_ = 0;  // the call the snapshot was taken at
    return false;
  }
  if (negotiating_ && target_ == 0 && calls_ == reported_ + 1)
    LZ_RETURN_IF_ERROR(wait_for("the negotiated safe point (APP_TARGET)", &AppService::have_target));
  bool due = every_ > 0 && calls_ % static_cast<uint64_t>(every_) == 0;
  if (negotiating_ && target_ != 0 && calls_ >= target_) {
    const bool migration = migrating_ && calls_ == target_;
    due = due || (calls_ == target_ && !migrating_);
    negotiating_ = false;
    target_ = 0;
    if (migration) {
      Status s = migration_point();
      migrating_ = false;
      round_.reset();
      if (!s.ok()) log::warn("migration at safe point %llu: %s", static_cast<unsigned long long>(calls_),
                             s.message().c_str());
    }
  }
  if (!due) return false;
  if (Status s = take_line(calls_); !s.ok()) {
    log::warn("snapshot at safe point %llu not written: %s", static_cast<unsigned long long>(calls_),
              s.message().c_str());
    return false;
  }
  return true;
}

Status AppService::take_line(uint64_t safe_point) {
  if (pending_) {
    std::string why = "superseded by the snapshot at safe point " + std::to_string(safe_point);
    // A peer of another job that never reached its line: its program may take none.
    if (!awaited_.empty())
      why += " before " + peer_name(*awaited_.begin()) +
             " reached its line (a spawned program without LZ_Checkpoint safe points never does)";
    fail_pending(why);
  }
  line_began_ns_ = Counters::now_ns();
  std::vector<uint64_t> sent = line_ != nullptr ? line_->begin_line()
                                                : std::vector<uint64_t>(static_cast<size_t>(rt_.size()), 0);
  line_epoch_ = line_ != nullptr ? line_->epoch() : 0;
  line_refusal_ = open_bridge_line(sent);
  // The world's part (the peers of other jobs count in-band); the epoch in
  // every entry's bytes (oob/frame.h APP_LINE).
  oob::CrBookmarksMsg m{safe_point, {}};
  for (size_t p = 0; p < static_cast<size_t>(rt_.size()); ++p) m.peers.push_back({sent[p], line_epoch_});
  line_point_ = safe_point;
  send(MsgType::kAppLine, oob::encode_cr_bookmarks(m));
  LZ_RETURN_IF_ERROR(wait_for("the snapshot directory (APP_DIR)", &AppService::have_dir));
  if (!line_refusal_.empty()) {
    pending_ = true;
    fail_pending(line_refusal_);
    return Unavailable(line_refusal_);
  }
  cr::AppSave save{dir_, rt_.bootstrap().job().job_id, seq_, safe_point, rt_.rank(), rt_.size(), &vars_.all()};
  // The program's files as they are at this safe point, for the restart
  // that re-runs it from here: with the MPI-IO writes it started before
  // the safe point landed (it may wait for them only after it; none starts
  // meanwhile, the program being here).
  lz::io::IoQueue::instance().drain();
  Status files = record_own_files(rt_.registry().params(), dir_);
  if (files.ok() && save_state_) files = save_state_(dir_);
  auto bytes = files.ok() ? rt_.cr_module().save_variables(save) : StatusOr<uint64_t>(files);
  if (!bytes.ok()) {
    pending_ = true;
    fail_pending(bytes.status().message());
    return bytes.status();
  }
  bytes_ = *bytes;
  line_saved_ns_ = Counters::now_ns();
  pending_ = true;
  if (line_ == nullptr || line_->line_complete()) finish_line();
  return Status::Ok();
}

void AppService::finish_line() {
  uint64_t drained;
  ssize_t n = read(wake_fd_, &drained, sizeof drained);
  (void)n;
  if (!pending_ || (line_ != nullptr && !line_->line_complete())) return;
  uint64_t extra = 0;
  if (line_ != nullptr) {
    auto b = line_->save_line({dir_, rt_.bootstrap().job().job_id, rt_.rank(), seq_, line_point_});
    if (!b.ok()) {
      fail_pending("saving the message log: " + b.status().message());
      return;
    }
    extra = *b;
  }
  pending_ = false;
  // The line is named by its safe point (the launcher reuses a dropped
  // line's snapshot number).
  send(MsgType::kCheckpointDone, oob::encode_cr_done({line_point_, oob::kCrOutcomeContinued, bytes_ + extra}));
  // The tool interface's performance variables; the drain of a line is the
  // wait for its late messages (crcp/c3) after the variables were saved.
  Counters& c = counters();
  const uint64_t now = Counters::now_ns();
  Counters::bump(c.checkpoints);
  Counters::bump(c.checkpoint_ns, now - line_began_ns_);
  Counters::bump(c.drain_ns, now - line_saved_ns_);
  log::debug("snapshot %llu (safe point %llu): this rank's part is complete", static_cast<unsigned long long>(seq_),
             static_cast<unsigned long long>(line_point_));
}

std::string AppService::open_bridge_line(const std::vector<uint64_t>& sent) {
  Engine& eng = rt_.engine();
  awaited_.clear();
  if (line_ == nullptr || eng.peer_count() == rt_.size()) return "";
  std::string why;
  if (size_t early = line_->early_count(rt_.size()); early != 0)
    why = std::to_string(early) +
          " message(s) from another job of the spawn tree arrived before this line but were "
          "sent after the sender's (a spawned job's snapshot cannot hold them)";
  std::vector<int> peers;
  for (int p = rt_.size(); p < eng.peer_count(); ++p) {
    if (eng.peer_lost(p) || peers_ended_.count(p) != 0) {
      if (why.empty())
        why = peer_name(p) + " has ended: a snapshot of a spawn tree under cr=app needs every job of it running";
      continue;
    }
    const uint64_t mine = static_cast<size_t>(p) < sent.size() ? sent[static_cast<size_t>(p)] : 0;
    if (Status s = eng.send_line_count(p, line_epoch_, mine); !s.ok()) {
      if (why.empty()) why = "telling " + peer_name(p) + " of this line: " + s.message();
      continue;
    }
    peers.push_back(p);
  }
  line_->await_peers(peers);
  for (int p : peers) {
    awaited_.insert(p);
    auto& counts = peer_counts_[p];
    auto it = counts.find(line_epoch_);
    if (it != counts.end()) on_line_count(p, line_epoch_, it->second);
    counts.erase(counts.begin(), counts.upper_bound(line_epoch_));
  }
  return why;
}

void AppService::on_line_count(int index, uint64_t epoch, uint64_t sent) {
  if (epoch == wire::kLineEnded) {
    peers_ended_.insert(index);
    if (awaited_.count(index) != 0) {
      const std::string why = peer_name(index) + " ended before its line of epoch " + std::to_string(line_epoch_);
      if (pending_)
        fail_pending(why);
      else if (line_refusal_.empty())
        line_refusal_ = why;
    }
    return;
  }
  if (epoch == line_epoch_ && awaited_.erase(index) != 0) {
    line_->expect_peer(index, sent);
    return;
  }
  if (epoch > line_epoch_) peer_counts_[index][epoch] = sent;  // a line this rank has not reached yet
}

std::string AppService::peer_name(int index) const {
  const ProcessName n = rt_.engine().process_name(index);
  return "rank " + std::to_string(n.rank) + " of job " + n.job;
}

void AppService::fail_pending(const std::string& reason) {
  if (!pending_) return;
  pending_ = false;
  send(MsgType::kCheckpointFailed, oob::encode_cr_reason({line_point_, reason.substr(0, oob::kMaxReasonBytes)}));
}

bool AppService::handles(uint16_t type) {
  switch (static_cast<MsgType>(type)) {
    case MsgType::kAppDir:
    case MsgType::kAppExpect:
    case MsgType::kAppNegotiate:
    case MsgType::kAppTarget:
      return true;
    default:
      return false;
  }
}

void AppService::handle(uint16_t type, const std::string& payload) {
  const auto t = static_cast<MsgType>(type);
  if (t == MsgType::kAppExpect) {
    oob::CrBookmarksMsg m;
    if (Status s = oob::decode_cr_bookmarks(payload, static_cast<uint32_t>(rt_.size()), &m); !s.ok()) {
      log::error("%s", s.message().c_str());
      return;
    }
    if (line_ == nullptr || m.seq != line_point_) return;  // a dropped line's: stale
    std::vector<uint64_t> v;
    for (const auto& b : m.peers) v.push_back(b.messages);
    line_->expect(v);
    return;
  }
  oob::AppPointMsg m;
  if (Status s = oob::decode_app_point(payload, &m); !s.ok()) {
    log::error("%s", s.message().c_str());
    return;
  }
  switch (t) {
    case MsgType::kAppDir:
      if (m.safe_point != line_point_) return;
      seq_ = m.seq;
      dir_ = m.dir;
      dir_for_ = m.safe_point;
      return;
    case MsgType::kAppNegotiate:
      request_ = m.seq;
      negotiating_ = true;
      reported_ = calls_;
      target_ = 0;
      send(MsgType::kAppPosition, oob::encode_app_point({calls_, request_, ""}));
      return;
    case MsgType::kAppTarget:
      if (m.seq != request_ || !negotiating_) return;
      target_ = m.safe_point;
      migrating_ = target_ != 0 && m.dir == oob::kAppTargetMigrate;
      if (target_ == 0) negotiating_ = false;  // the launcher gave the request up
      return;
    default:
      return;
  }
}

void AppService::finish_before_finalize() {
  // The peers of other jobs: this rank takes no more lines.
  Engine& eng = rt_.engine();
  if (active_ && line_ != nullptr)
    for (int p = rt_.size(); p < eng.peer_count(); ++p)
      if (!eng.peer_lost(p)) (void)eng.send_line_count(p, wire::kLineEnded, 0);
  if (!pending_) return;
  constexpr double kFinalizeWait = 30;
  Status s = wait_for("the snapshot's line to complete before MPI_Finalize", &AppService::line_finishable, kFinalizeWait);
  if (!s.ok()) {
    fail_pending(s.message() + " (a late message this rank never received?)");
    return;
  }
  finish_line();
}

Status AppService::wait_for(const char* what, bool (AppService::*done)() const, double timeout_s) {
  Bootstrap& boot = rt_.bootstrap();
  Engine& eng = rt_.engine();
  const auto start = std::chrono::steady_clock::now();
  while (!(this->*done)()) {
    if (timeout_s > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeout_s)
      return Timeout(std::string("waited ") + std::to_string(static_cast<int>(timeout_s)) + " s for " + what);
    auto m = boot.next_control();
    if (!m.ok()) return m.status().with_context(std::string("waiting for ") + what);
    if (m->has_value()) {
      if (handles((*m)->type)) handle((*m)->type, (*m)->payload);
      else handle_other((*m)->type, (*m)->payload);
      continue;
    }
    eng.progress_wait(10, boot.connected() ? boot.control_fd() : -1);
  }
  return Status::Ok();
}

void AppService::handle_other(uint16_t type, const std::string& payload) {
  if (type == static_cast<uint16_t>(MsgType::kCheckpointAbort)) return drop_round(payload);
  if (type == static_cast<uint16_t>(MsgType::kCheckpointRequest)) {
    oob::CrRequestMsg req;
    if (Status s = oob::decode_cr_request(payload, &req); !s.ok()) {
      log::error("checkpoint request: %s", s.message().c_str());
      return;
    }
    if (req.flags & oob::kCrAtSafePoint) return defer_round(req);
  }
  log::debug("ignoring %s at a safe point", oob::msg_type_name(type).c_str());
}

void AppService::defer_round(const oob::CrRequestMsg& req) {
  if (!migrating_) {
    log::warn("a migration's round (%llu) came with no migration negotiated; ignored",
              static_cast<unsigned long long>(req.seq));
    return;
  }
  round_ = req;
}

void AppService::drop_round(const std::string& payload) {
  oob::CrReasonMsg m;
  if (Status s = oob::decode_cr_reason(payload, &m); !s.ok()) {
    log::error("%s", s.message().c_str());
    return;
  }
  if (!migrating_ || (round_ && round_->seq != m.seq)) return;  // another round's
  log::debug("migration given up before safe point %llu: %s", static_cast<unsigned long long>(target_),
             m.reason.c_str());
  migrating_ = false;
  round_.reset();
  negotiating_ = false;
  target_ = 0;
}

Status AppService::migration_point() {
  LZ_RETURN_IF_ERROR(wait_for("the migration's round (CHECKPOINT_REQUEST)", &AppService::have_round));
  if (!round_) return Status::Ok();  // given up meanwhile
  const oob::CrRequestMsg req = *round_;
  round_.reset();
  if (!run_round_) return Internal("no checkpoint service runs the migration's round");
  run_round_(req.seq, req.flags, req.dir);
  return Status::Ok();
}

Status AppService::hand_over(const std::string& rank_dir, uint64_t seq) {
  Engine& eng = rt_.engine();
  const std::string& job_id = rt_.bootstrap().job().job_id;
  cr::AppSave save{rank_dir, job_id, seq, calls_, rt_.rank(), rt_.size(), &vars_.all(), /*whole_allocation=*/true};
  auto bytes = rt_.cr_module().save_variables(save);
  if (!bytes.ok()) return bytes.status().with_context("writing the registered variables");
  if (save_state_) LZ_RETURN_IF_ERROR(save_state_(rank_dir));
  AppHandover h;
  h.job_id = job_id;
  h.rank = rt_.rank();
  h.safe_point = calls_;
  h.migration = seq;
  h.next_context = eng.next_context();
  h.comms = CommRecord::instance().entries();
  for (int p = 0; p < rt_.size(); ++p) {
    h.sent.push_back(eng.messages_sent_to(p).messages);
    h.received.push_back(eng.messages_received_from(p).messages);
  }
  if (line_ != nullptr) {
    auto counters = line_->export_counters();
    if (!counters.ok()) return counters.status().with_context("crcp " + rt_.crcp_name());
    h.counters = std::move(*counters);
  }
  auto messages = eng.take_all_unexpected();
  if (!messages.ok()) return messages.status().with_context("the messages this rank has not received yet");
  h.messages = std::move(*messages);
  const size_t n = h.messages.size();
  if (Status s = write_app_handover(rank_dir, h); !s.ok()) {
    eng.replay(std::move(h.messages));  // this process goes on: its messages back, in order
    return s;
  }
  log::debug("handed over at safe point %llu (%zu message(s) not received yet); this process ends",
             static_cast<unsigned long long>(calls_), n);
  std::fflush(nullptr);
  std::_Exit(0);
}

Status AppService::join() {
  const std::string rank_dir = snapshot_rank_dir(restart_dir_, rt_.rank());
  auto h = read_app_handover(rank_dir, rt_.bootstrap().job().job_id, rt_.rank());
  if (!h.ok()) return h.status().with_context("taking over rank " + std::to_string(rt_.rank()));
  if (line_ != nullptr) LZ_RETURN_IF_ERROR(line_->import_counters(h->counters).with_context("crcp " + rt_.crcp_name()));
  rt_.engine().set_next_context(h->next_context);
  CommRecord::instance().start_replay(std::move(h->comms));
  LZ_RETURN_IF_ERROR(rt_.engine().add_message_counts(h->sent, h->received).with_context(rank_dir + "/handover"));
  // Before the program receives anything: the messages the old process had
  // not received (a peer may already be sending new ones).
  rt_.engine().replay(std::move(h->messages));
  restart_info_.nranks = rt_.size();
  restart_info_.safe_point = h->safe_point;
  restarting_ = true;
  protocol_loaded_ = true;
  calls_ = h->safe_point - 1;
  resume_point_ = h->safe_point;
  joined_ = h->migration;
  log::debug("took over rank %d at safe point %llu", rt_.rank(), static_cast<unsigned long long>(h->safe_point));
  return Status::Ok();
}

void AppService::send(MsgType type, const std::string& payload) {
  Status s = rt_.bootstrap().send_control(static_cast<uint16_t>(type), payload);
  if (!s.ok())
    log::warn("application-level checkpoint: sending %s: %s", oob::msg_type_name(static_cast<uint16_t>(type)).c_str(),
              s.message().c_str());
}

}  // namespace lz::rt
