#include "cr/cr_service.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <thread>
#include <vector>

#include "cr/app_service.h"
#include "cr/bridge_drain.h"
#include "cr/cr_params.h"
#include "cr/entry_lock.h"
#include "cr/image_hooks.h"
#include "cr/own_files.h"
#include "io/io_queue.h"
#include "lazarus/log.h"
#include "oob/messages.h"
#include "oob/restart_info.h"
#include "p2p/comm.h"
#include "p2p/comm_record.h"
#include "p2p/counters.h"
#include "p2p/dpm.h"
#include "p2p/engine.h"
#include "p2p/runtime.h"

namespace lz::rt {

using oob::MsgType;

namespace {
constexpr int kPollMs = 250;          // bounded sleep of the idle loop
constexpr int kRestartInfoMs = 30000;  // a restorer writes the info before it resumes us

uint64_t directory_bytes(const std::string& dir) {
  std::error_code ec;
  uint64_t total = 0;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code e2;
    if (it->is_regular_file(e2)) {
      auto n = it->file_size(e2);
      if (!e2) total += n;
    }
  }
  return total;
}

// The launcher hears of a fatal CR problem through the rank's exit: a rank
// without a channel to its launcher cannot go on.
[[noreturn]] void die(const std::string& what) {
  log::error("checkpoint: %s; this rank cannot go on", what.c_str());
  std::_Exit(1);
}

// The kAborted status of checkpoint `seq`'s ABORT (`payload`: its reason).
Status launcher_aborted(uint64_t seq, const std::string& payload) {
  oob::CrReasonMsg r;
  Status s = oob::decode_cr_reason(payload, &r);
  return Status(Code::kAborted,
                "the launcher aborted checkpoint " + std::to_string(seq) + (s.ok() ? ": " + r.reason : std::string()));
}
}  // namespace

// The crcp module's view of the runtime: bookmarks from the engine, the
// exchange through the launcher (READY -> DRAIN | ABORT). At a cr=app
// migration's safe point (`messages_only`) the bookmarks count messages, not
// frames, and sends are not held: the program sends nothing new there, but
// the replies of rendezvous under way must flow for the drain to end.
class CrService::Coordinator final : public crcp::Coordinator {
 public:
  Coordinator(CrService& svc, uint64_t seq, bool messages_only)
      : svc_(svc), seq_(seq), messages_only_(messages_only) {}
  int rank() const override { return svc_.rt_.rank(); }
  int size() const override { return svc_.rt_.size(); }
  crcp::Bookmark sent_to(int p) const override {
    return messages_only_ ? svc_.rt_.engine().messages_sent_to(p) : svc_.rt_.engine().sent_to(p);
  }
  crcp::Bookmark received_from(int p) const override {
    return messages_only_ ? svc_.rt_.engine().messages_received_from(p) : svc_.rt_.engine().received_from(p);
  }
  StatusOr<std::vector<crcp::Bookmark>> exchange(const std::vector<crcp::Bookmark>& mine) override {
    oob::CrBookmarksMsg m{seq_, {}};
    for (const auto& b : mine) m.peers.push_back({b.messages, b.bytes});
    svc_.send(MsgType::kCheckpointReady, oob::encode_cr_bookmarks(m));
    uint16_t type = 0;
    std::string payload;
    LZ_RETURN_IF_ERROR(svc_.await(seq_, MsgType::kCheckpointDrain, MsgType::kCheckpointAbort, &type, &payload));
    if (type == static_cast<uint16_t>(MsgType::kCheckpointAbort)) {
      aborted = true;
      return launcher_aborted(seq_, payload);
    }
    oob::CrBookmarksMsg d;
    LZ_RETURN_IF_ERROR(oob::decode_cr_bookmarks(payload, static_cast<uint32_t>(size()), &d));
    std::vector<crcp::Bookmark> theirs;
    for (const auto& b : d.peers) theirs.push_back({b.messages, b.bytes});
    return theirs;
  }
  Status progress_receives(std::chrono::milliseconds budget) override {
    svc_.rt_.engine().progress_wait(static_cast<int>(budget.count()));
    return Status::Ok();
  }
  void hold_sends(bool hold) override {
    if (!messages_only_) svc_.rt_.engine().hold_sends(hold);
  }

  bool aborted = false;

 private:
  CrService& svc_;
  uint64_t seq_;
  bool messages_only_;
};

CrService::CrService(Runtime& rt) : rt_(rt) {
  const ParamStore& ps = rt.registry().params();
  if (ps.is_registered(kParamCrDrainTimeout)) drain_timeout_ = ps.get_double(kParamCrDrainTimeout);
  if (ps.is_registered(kParamCrHookTimeout)) hook_timeout_ = ps.get_double(kParamCrHookTimeout);
}

CrService::~CrService() {
  // A process ending from the service's own thread (exit() while handling
  // a message) cannot join it: std::thread would throw EDEADLK and end the
  // process in std::terminate instead of with its exit status.
  if (thread_.joinable() && thread_.get_id() == std::this_thread::get_id()) thread_.detach();
  if (thread_.joinable()) {
    stop_.store(true);
    uint64_t one = 1;
    ssize_t n = write(stop_fd_, &one, sizeof one);
    (void)n;
    thread_.join();
  }
  if (stop_fd_ >= 0) close(stop_fd_);
}

Status CrService::start() {
  Engine& eng = rt_.engine();
  LZ_RETURN_IF_ERROR(eng.enable_interrupts());
  eng.set_interrupt_handler([] { cr_park(); });
  stop_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (stop_fd_ < 0) return ErrnoError("eventfd for the CR service", errno);
  control_fd_ = rt_.bootstrap().control_fd();
  LZ_RETURN_IF_ERROR(rt_.bootstrap()
                         .send_control(static_cast<uint16_t>(MsgType::kCrReady), oob::encode_seq({0}))
                         .with_context("CR_READY"));
  thread_ = std::thread([this] { run(); });
  return Status::Ok();
}

void CrService::stop_for_finalize() {
  if (!thread_.joinable()) return;
  // The caller is inside MPI and not parked: this thread does not touch the
  // channel now (it only polls it, or waits for the lock).
  Status s = rt_.bootstrap().send_control(static_cast<uint16_t>(MsgType::kCrFinalizing), oob::encode_seq({0}));
  if (!s.ok()) log::debug("CR_FINALIZING not sent: %s", s.message().c_str());
  stop_.store(true, std::memory_order_release);
  uint64_t one = 1;
  ssize_t n = write(stop_fd_, &one, sizeof one);
  (void)n;
  thread_.join();
  rt_.engine().interrupt_requested.store(false);
}

void CrService::send(MsgType type, const std::string& payload) {
  Status s = rt_.bootstrap().send_control(static_cast<uint16_t>(type), payload);
  if (!s.ok()) log::warn("checkpoint: sending %s: %s", oob::msg_type_name(static_cast<uint16_t>(type)).c_str(),
                         s.message().c_str());
}

void CrService::send_failed(uint64_t seq, const std::string& reason) {
  log::warn("checkpoint %llu failed: %s", static_cast<unsigned long long>(seq), reason.c_str());
  send(MsgType::kCheckpointFailed,
       oob::encode_cr_reason({seq, reason.substr(0, oob::kMaxReasonBytes)}));
}

void CrService::run() {
  Engine& eng = rt_.engine();
  Bootstrap& boot = rt_.bootstrap();
  AppService* app = app_service();
  const int app_fd = app != nullptr && app->active() ? app->wake_fd() : -1;
  while (!stop_.load(std::memory_order_acquire)) {
    pollfd fds[3] = {{stop_fd_, POLLIN, 0}, {app_fd, POLLIN, 0}, {control_fd_, POLLIN, 0}};
    const nfds_t n = control_fd_ >= 0 ? 3 : 2;
    int rc = boot.queued_control() > 0 ? 1 : poll(fds, n, kPollMs);
    if (stop_.load(std::memory_order_acquire)) break;
    if (rc <= 0) continue;
    const bool line_done = fds[1].revents != 0;
    const bool readable = boot.queued_control() > 0 || (n == 3 && fds[2].revents != 0);
    if (!readable && !line_done) continue;
    if (!cr_lock_acquire(&stop_, [&eng] { eng.request_interrupt(); })) break;
    // Entry lock held: the application thread is outside MPI or parked.
    if (line_done) app->finish_line();
    for (;;) {
      auto m = boot.next_control();
      if (!m.ok()) {
        log::debug("CR service: control channel closed: %s", m.status().message().c_str());
        if (rt_.coordinated() && !stop_.load(std::memory_order_acquire)) {
          // Under srun no launcher ends this process: the job is over
          // (its coordinator ended it, or is gone), so it ends here.
          std::fprintf(stderr, "rank %d: the job's coordinator ended the job (%s); exiting\n", rt_.rank(),
                       m.status().message().c_str());
          std::fflush(stderr);
          std::_Exit(1);
        }
        break;
      }
      if (!m->has_value()) break;
      handle((*m)->type, (*m)->payload);
    }
    control_fd_ = boot.connected() ? boot.control_fd() : -1;
    eng.interrupt_requested.store(false, std::memory_order_relaxed);
    cr_lock_release();
  }
}

void CrService::handle(uint16_t type, const std::string& payload) {
  if (AppService::handles(type)) {
    if (AppService* app = app_service(); app != nullptr) app->handle(type, payload);
    return;
  }
  AppService* app = app_service();
  if (type == static_cast<uint16_t>(MsgType::kCheckpointAbort) && app != nullptr) {
    app->drop_round(payload);  // a migration given up before this rank reached its safe point
    return;
  }
  if (type != static_cast<uint16_t>(MsgType::kCheckpointRequest)) {
    // A late ABORT/GO of a checkpoint that already ended here.
    log::debug("CR service: ignoring %s outside a checkpoint", oob::msg_type_name(type).c_str());
    return;
  }
  oob::CrRequestMsg req;
  if (Status s = oob::decode_cr_request(payload, &req); !s.ok()) {
    log::error("checkpoint request: %s", s.message().c_str());
    return;
  }
  if (const int n = dpm_calls_under_way(); n > 0) {
    // Before anything is held: the call goes on, and a later checkpoint finds it done.
    send_failed(req.seq, "an MPI_Comm_spawn, _accept, _connect or _join is under way in this process (" +
                             std::to_string(n) + "); checkpoint once it has ended");
    return;
  }
  if (rt_.engine().has_bridges() && !(req.flags & oob::kCrSpawnTree)) {
    // Before anything is held or drained: the job goes on as it was.
    send_failed(req.seq,
                "this process is connected to another job outside a spawn tree (MPI_Comm_accept/_connect or "
                "MPI_Comm_join), and a checkpoint of jobs joined that way is not supported yet (jobs started by "
                "MPI_Comm_spawn are checkpointed with the job that spawned them)");
    return;
  }
  if (rt_.engine().has_bridges() && (req.flags & oob::kCrAtSafePoint)) {
    // The bridges drain with sends held, which a safe point's round does not do.
    send_failed(req.seq, "a rank connected to another job (a spawn tree) cannot move under cr=app yet");
    return;
  }
  if ((req.flags & oob::kCrAtSafePoint) && app != nullptr) {
    app->defer_round(req);  // run by the application thread at the safe point
    return;
  }
  checkpoint(req.seq, req.flags, req.dir);
}

Status CrService::await(uint64_t seq, MsgType a, MsgType b, uint16_t* type, std::string* payload) {
  Bootstrap& boot = rt_.bootstrap();
  Engine& eng = rt_.engine();
  for (;;) {
    LZ_ASSIGN_OR_RETURN(auto m, boot.next_control());
    if (m.has_value()) {
      const bool wanted = m->type == static_cast<uint16_t>(a) || m->type == static_cast<uint16_t>(b);
      // A message that does not decode is dropped like any other stray one.
      const uint64_t got =
          oob::cr_seq_of(m->type, m->payload, static_cast<uint32_t>(rt_.size())).value_or(~uint64_t{0});
      if (wanted && got == seq) {
        *type = m->type;
        *payload = std::move(m->payload);
        return Status::Ok();
      }
      log::debug("checkpoint %llu: ignoring %s for %llu", static_cast<unsigned long long>(seq),
                 oob::msg_type_name(m->type).c_str(), static_cast<unsigned long long>(got));
      continue;
    }
    // Sends are held; receives and the transports' own output go on, so the
    // peers' drains complete while this rank waits for the launcher.
    eng.progress_wait(10, boot.connected() ? boot.control_fd() : -1);
  }
}

void CrService::checkpoint(uint64_t seq, uint32_t flags, const std::string& dir) {
  Engine& eng = rt_.engine();
  Bootstrap& boot = rt_.bootstrap();
  crcp::Module& crcp = rt_.crcp_module();
  const bool at_safe_point = (flags & oob::kCrAtSafePoint) != 0;
  Coordinator coord(*this, seq, at_safe_point);
  const uint64_t started_ns = Counters::now_ns();
  log::debug("checkpoint %llu requested into %s", static_cast<unsigned long long>(seq), dir.c_str());

  // ---- before GO: nothing released; a failure resumes without dumping -----------
  if (std::string missing = eng.transports_without_checkpoint(); !missing.empty()) {
    send_failed(seq, "transport(s) " + missing + " cannot be checkpointed (no checkpoint hooks)");
    return;
  }
  // The channels to other jobs drain in-band (cr/bridge_drain.h) in a
  // checkpoint of the whole spawn tree; handle() refused any other.
  const bool bridges = eng.has_bridges() && !at_safe_point;
  // At a safe point the held sends are this round's, not the crcp module's;
  // so are they when the bridges drained (crcp/none holds nothing in a
  // one-rank job).
  auto resume = [&](bool restarted) {
    if (at_safe_point) {
      eng.hold_sends(false);
      return;
    }
    crcp.resume(coord, restarted).ignore();
    if (bridges) eng.hold_sends(false);
  };
  Status s = at_safe_point ? quiesce_at_safe_point(coord, flags) : crcp.quiesce(coord);
  if (s.ok() && bridges) s = drain_bridges(seq, coord);
  // A get under way may need its owner's progress; every owner progresses
  // until all ranks are drained (the wait for GO below), none after GO.
  // New ones do not start while sends are held (Engine::hold_sends).
  const auto gets_until = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<int64_t>(drain_timeout_ * 1000));
  while (s.ok() && eng.transfers_running() != 0) {
    if (std::chrono::steady_clock::now() >= gets_until)
      s = Timeout(std::to_string(eng.transfers_running()) + " get(s) or zero-copy send(s) still running " +
                  std::to_string(static_cast<int>(drain_timeout_)) + " s after the drain");
    else
      eng.progress_wait(10);
  }
  // MPI-IO's non-blocking operations end before the image: a write under
  // way would otherwise land after the snapshot recorded the file's size.
  // None starts meanwhile (starting one is an MPI call, held off).
  if (s.ok()) lz::io::IoQueue::instance().drain();
  // A shared-memory window is memory other processes write: each rank's
  // program stops at an MPI call before the rank reports its drain done, so
  // that no process writes it once every rank has (osc/checkpoint.h).
  const ImageHooks& hooks = image_hooks();
  if (s.ok() && !at_safe_point && hooks.app_stopped_needed != nullptr && hooks.app_stopped_needed() &&
      !cr_lock_wait_stopped(drain_timeout_))
    s = Timeout("rank " + std::to_string(rt_.rank()) + "'s program did not come to an MPI call within " +
                std::to_string(static_cast<int>(drain_timeout_)) +
                " s; a job with shared-memory windows is checkpointed once every rank's program is in MPI "
                "(cr_drain_timeout)");
  if (!s.ok()) {
    resume(false);
    if (coord.aborted) log::debug("%s", s.message().c_str());
    else if (s.code() != Code::kAborted || boot.connected()) send_failed(seq, "drain: " + s.message());
    return;
  }
  send(MsgType::kCheckpointDrained, oob::encode_seq({seq}));
  const uint64_t drain_ns = Counters::now_ns() - started_ns;
  uint16_t type = 0;
  std::string payload;
  s = await(seq, MsgType::kCheckpointGo, MsgType::kCheckpointAbort, &type, &payload);
  if (!s.ok() || type == static_cast<uint16_t>(MsgType::kCheckpointAbort)) {
    resume(false);
    return;
  }

  // ---- after GO: whatever happens, reconnect, re-publish and fence ----------------
  bool restarted = false;
  Status failure = eng.checkpoint_transports(static_cast<int>(hook_timeout_ * 1000));
  // Shared-memory windows become private memory for the image, and shared
  // again after it; a rank that stays while others move (kCrNoImage) takes
  // part too, since the moved ranks' new processes map the new segment.
  const bool privatized = failure.ok() && !at_safe_point && (flags & oob::kCrHandover) == 0 &&
                          hooks.needs_work != nullptr && hooks.needs_work();
  if (privatized) failure = hooks.before_image();
  int restart_fd = -1;
  bool disconnected = false;
  if (failure.ok()) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
      failure = ErrnoError("pipe for the restart channel", errno);
    } else {
      close(p[1]);
      restart_fd = p[0];
    }
  }
  // A rank that stays during a migration keeps its process and its OOB
  // socket: it only re-creates its transports, as a continuing rank does.
  const bool no_image = (flags & oob::kCrNoImage) != 0;
  if (failure.ok() && (!no_image || (flags & oob::kCrNewLayout) != 0)) {
    failure = boot.disconnect();
    disconnected = failure.ok();
  }
  if (failure.ok() && (flags & oob::kCrHandover)) {
    // Ends this process once the state is written; back here only on failure.
    failure = app_service()->hand_over(dir, seq);
  } else if (failure.ok() && !no_image) {
    cr::LocalSnapshot snap;
    snap.dir = dir;
    snap.seq = seq;
    snap.rank = rt_.rank();
    snap.terminate = (flags & oob::kCrTerminate) != 0;
    snap.restart_fd = restart_fd;
    // A back end that does not record the process's files as it saves it
    // gets them recorded here, just before.
    if (!(rt_.cr_module().capabilities() & cr::kCapRecordsFiles))
      failure = record_own_files(rt_.registry().params(), dir);
    auto out = failure.ok() ? rt_.cr_module().checkpoint(snap) : StatusOr<cr::Outcome>(failure);
    if (!out.ok()) failure = out.status().with_context("cr " + rt_.cr_name());
    else restarted = *out == cr::Outcome::kRestarted;
  }
  if (restarted) {
    auto info = oob::read_restart_info(restart_fd, kRestartInfoMs);
    if (!info.ok()) die("reading the restart information: " + info.status().message());
    if (info->rank != rt_.rank())
      die("the restorer says this is rank " + std::to_string(info->rank) + ", the image is rank " +
          std::to_string(rt_.rank()));
    if (Status r = boot.reconnect_to(info->address, info->job_id, info->secret); !r.ok())
      die("connecting to the restarted job's launcher at " + info->address + ": " + r.message());
    log::debug("restarted from snapshot %llu in job %s", static_cast<unsigned long long>(info->snapshot_seq),
               info->job_id.c_str());
  } else if (disconnected || !boot.connected()) {
    if (Status r = boot.reconnect(); !r.ok()) die("reconnecting to the launcher: " + r.message());
  }
  if (restart_fd >= 0) close(restart_fd);
  if (Status r = eng.resume_transports(restarted); !r.ok() && failure.ok()) failure = r;
  if (privatized)
    if (Status r = hooks.after_image(drain_timeout_ + hook_timeout_); !r.ok())
      die("sharing the shared-memory windows again: " + r.message());

  if (failure.ok()) {
    oob::CrDoneMsg done{seq, restarted ? oob::kCrOutcomeRestarted : oob::kCrOutcomeContinued,
                        no_image ? 0 : directory_bytes(dir)};
    send(MsgType::kCheckpointDone, oob::encode_cr_done(done));
    // The tool interface's performance variables. A restored process's
    // clock started elsewhere: its checkpoint counts, its time does not.
    Counters& c = counters();
    Counters::bump(c.checkpoints);
    if (!restarted) {
      Counters::bump(c.checkpoint_ns, Counters::now_ns() - started_ns);
      Counters::bump(c.drain_ns, drain_ns);
    }
  } else {
    send_failed(seq, failure.message());
  }
  if (Status r = eng.reconnect_transports(); !r.ok()) die(r.message());
  // Every member of a bridge fences it once per round that reached GO,
  // whatever happened here since, or the others would wait for it. Bounded
  // by the time the other jobs of the tree may take to close their
  // transports and come back; a bridge that cannot re-open leaves its
  // peers waiting on this process, which ends as for a lost launcher.
  if (bridges) {
    if (Status r = eng.reconnect_bridges(drain_timeout_ + hook_timeout_); !r.ok()) {
      const std::string why = "re-opening the bridges to other jobs after the checkpoint: " + r.message();
      send_failed(seq, why);
      die(why);
    }
  }
  resume(restarted);
  log::debug("checkpoint %llu: %s", static_cast<unsigned long long>(seq),
             restarted ? "restarted" : (failure.ok() ? "continued" : "failed, continued"));
}

Status CrService::drain_bridges(uint64_t seq, Coordinator& coord) {
  coord.hold_sends(true);  // the markers' values hold only while nothing more leaves
  Bootstrap& boot = rt_.bootstrap();
  BridgeDrain drain(rt_.engine(), std::chrono::milliseconds(static_cast<int64_t>(drain_timeout_ * 1000)));
  return drain.run(boot.connected() ? boot.control_fd() : -1, [&] { return abort_requested(seq, coord); });
}

Status CrService::abort_requested(uint64_t seq, Coordinator& coord) {
  Bootstrap& boot = rt_.bootstrap();
  for (;;) {
    LZ_ASSIGN_OR_RETURN(auto m, boot.next_control());
    if (!m.has_value()) return Status::Ok();
    const uint64_t got =
        oob::cr_seq_of(m->type, m->payload, static_cast<uint32_t>(rt_.size())).value_or(~uint64_t{0});
    if (m->type == static_cast<uint16_t>(MsgType::kCheckpointAbort) && got == seq) {
      // The tree gave the round up (a peer of another job may never send its marker).
      coord.aborted = true;
      return launcher_aborted(seq, m->payload);
    }
    log::debug("checkpoint %llu: ignoring %s for %llu during the bridge drain", static_cast<unsigned long long>(seq),
               oob::msg_type_name(m->type).c_str(), static_cast<unsigned long long>(got));
  }
}

Status CrService::quiesce_at_safe_point(Coordinator& coord, uint32_t flags) {
  Engine& eng = rt_.engine();
  // The process that takes a moving rank's place runs the program's code
  // before LZ_Restore alone: it makes the communicators recorded before the
  // first safe point again from the record (p2p/comm_record.h), not others.
  // Refused before anything moves.
  if (flags & oob::kCrHandover) {
    if (const int setup = CommRecord::instance().unrecorded(); setup > 0)
      return Unavailable("rank " + std::to_string(rt_.rank()) + " made " + std::to_string(setup) +
                         " intercommunicator(s) or MPI_Comm_idup result(s) before its first safe point, which the "
                         "new process taking its place could not make again alone (cr=criu moves any rank)");
    if (const int later = Comm::unreplayable_alive(); later > 0)
      return Unavailable("rank " + std::to_string(rt_.rank()) + " holds " + std::to_string(later) +
                         " communicator(s) made after its first safe point (or intercommunicators); the new "
                         "process taking its place makes again only those made before the first LZ_Checkpoint "
                         "(cr=criu moves any rank)");
    if (const int held = CommRecord::instance().unmovable(); held > 0)
      return Unavailable("rank " + std::to_string(rt_.rank()) + " holds " + std::to_string(held) +
                         " one-sided window(s) (an open MPI file has one, for its shared pointer), which the new "
                         "process taking its place could not join alone under cr=app (cr=criu moves any rank)");
  }
  const auto budget = std::chrono::milliseconds(static_cast<int64_t>(drain_timeout_ * 1000));
  // Every message sent before the peers stopped has arrived.
  LZ_RETURN_IF_ERROR(crcp::drain_to_bookmarks(coord, budget));
  // Then the rendezvous they began end here: payloads no receive took are
  // pulled in, so no message needs its sender's memory any more (a moving
  // rank's process ends after GO), and every reply has reached its peer.
  Status s = eng.absorb_unexpected(drain_timeout_);
  const auto until = std::chrono::steady_clock::now() + budget;
  std::string busy;
  while (s.ok() && !(busy = eng.transfers_in_flight()).empty()) {
    if (std::chrono::steady_clock::now() >= until)
      s = Timeout("transfers still under way after " + std::to_string(static_cast<int>(drain_timeout_)) +
                  " s at the safe point: " + busy);
    else
      eng.progress_wait(10);
  }
  eng.hold_sends(true);
  return s;
}

}  // namespace lz::rt
