// Engine: the point-to-point engine of an MPI process.
//
// It owns the transports (one chosen per peer at init: the first selected
// module, by priority, that reaches it), puts the wire envelope (protocol.h)
// on every frame, matches incoming messages against posted receives
// (match_queue.h), runs the eager and rendezvous protocols, counts exact
// per-peer bookmarks for checkpoint coordination, and implements waiting:
// a bounded busy-poll of the transports, then a sleep in poll() on their
// wait fds, re-checking the interrupt flag on every turn.
//
//   Request* r = request_pool().get(); ...fill... ;
//   LZ_RETURN_IF_ERROR(engine.start_send(r));
//   engine.wait_until([&] { return r->complete; });
//
// Protocols (sizes are packed bytes):
//   <= eager limit  one kEager frame (kSync flag for Ssend: completes at kAck)
//   >  eager limit  kRts; receiver with a get()-capable transport reads the
//                   sender's buffer directly and answers kFin (single copy);
//                   otherwise it answers kCts and the sender streams kFrag
//                   frames of max_frame.
// Threading: one thread at a time; the interrupt flag may be set from any
// thread. Under MPI_THREAD_MULTIPLE that thread holds the thread gate
// (wait_gate.h), which a wait lets go of while it sleeps.
//
// Where each part is: engine.cpp (transports per peer, flush at finalize,
// contexts), engine_send.cpp (frames, per-peer send queue, sender side of the
// protocols), engine_recv.cpp (posted receives, matching, incoming frames),
// engine_completion.cpp (completion, peer failure), engine_progress.cpp
// (progress and waiting), engine_cr.cpp (interrupts, transports' CR hooks).
#pragma once

#include <poll.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "lazarus/frameworks/crcp.h"
#include "lazarus/frameworks/transport.h"
#include "lazarus/registry.h"
#include "p2p/match_queue.h"
#include "p2p/nbc_schedule.h"
#include "p2p/peer.h"
#include "p2p/registered_buffer.h"
#include "p2p/protocol.h"
#include "p2p/request.h"
#include "p2p/bridge.h"
#include "p2p/wait_gate.h"

namespace lz::rt {

// Work the engine advances on every progress turn, after the transports and
// the non-blocking collectives: the one-sided windows' agents (runtime/osc),
// which take the operations addressed to their window. advance() may start
// sends and receives; it must not wait.
class ProgressHook {
 public:
  virtual ~ProgressHook() = default;
  virtual void advance() = 0;
};

class Engine final : public transport::Host {
 public:
  Engine();
  ~Engine() override;

  // Selects and initializes the transports, fences the modex once, connects,
  // and chooses a transport per peer (error naming any unreachable peer).
  Status init(Bootstrap& boot, Registry& reg);
  // Progresses until every frame sent so far has left this process: the
  // engine's own queue (frames waiting for transport room) and the
  // transports' (Module::unsent_bytes: a full socket, a handshake under
  // way). A frame that has left is delivered even if this process exits
  // next. Bounded by the peers' lives: a peer that fails meanwhile ends the
  // wait for it with an error naming it (its frames are lost); one still
  // alive but not taking the frames is named every 30 s, and after
  // p2p_flush_timeout seconds (0: no limit) the wait fails naming it.
  Status flush_sends();
  // Finalizes every transport.
  Status finalize();

  // ---- transport::Host ----------------------------------------------------------
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const transport::PeerInfo& peer(int rank) const override { return peer_info_[static_cast<size_t>(rank)]; }
  Modex& modex() override { return *boot_; }
  const std::string& job_secret() const override { return boot_->secret(); }
  void deliver(int src, const void* data, size_t len) override;
  void peer_failed(int rank, const Status& why) override;
  // Placement (transport.h): a streamed rendezvous piece (kFrag), or an
  // eager message a posted receive matches, that the receive takes whole
  // goes straight to the receive's buffer.
  size_t placement_head() const override { return sizeof(wire::Header); }
  void* place(int src, const void* head, size_t len) override;
  void deliver_placed(int src, const void* head, size_t len) override;

  // ---- one-sided transfers (engine_rma.cpp): runtime/osc's native path ----------------
  // The key under which peer `world`'s transport (the one carrying its
  // frames) reads and writes [addr, addr+len) of this process with
  // get_async() and put_async(), registered for `owner` (a window) once
  // per transport (for MPI_Alloc_mem / MPI_Win_allocate memory, the
  // registration cache's) and kept until rma_forget(owner) or the
  // transports' next checkpoint hook,
  // which bumps rma_generation(): a key handed out before is stale then,
  // here and at every peer. False when that transport cannot (no kCapPut
  // and kCapGet, the peer lost, the registration refused); a key may be
  // empty (shm needs none).
  bool rma_key(const void* owner, int world, void* addr, size_t len, std::string* key);
  void rma_forget(const void* owner);
  uint64_t rma_generation() const { return rma_generation_; }
  // Peer `world`'s transport puts and gets with nothing of its process
  // (transport::Attributes::rma_passive).
  bool rma_passive(int world) const {
    return world >= 0 && world < peer_count() && peers_[static_cast<size_t>(world)].rma_passive;
  }
  // The transports are connected (not released for a checkpoint, not finalized).
  bool live() const { return live_; }
  // Writes (put) or reads `len` bytes between `local` and address `remote`
  // of `world`, in a region it registered with `key` (its rma_key()), and
  // completes `r` (filled as for start_send: kind, comm, peer) once the
  // bytes are in the target's memory (a put) or here (a get); a failure
  // completes it with st_error set. An error return: not started (the
  // caller sends a message instead).
  Status start_rma(Request* r, bool put, int world, void* local, size_t len, uint64_t remote, std::string_view key);

  // ---- operations -------------------------------------------------------------------
  // `r` is filled (kind, mode, buf, count, dt, comm, peer, tag, context).
  Status start_send(Request* r);
  // A blocking standard-mode send, without a request, when nothing stands in
  // the way of an eager frame: `count` of `dt` is contiguous and within the
  // peer's eager limit, the peer is alive and has no frames queued, sends are
  // not held and no message log stamps them. *done = false: not taken, use
  // start_send(). Taken, the frame is sent or queued (standard eager sends
  // are buffered) and the send is complete, or the status says why not.
  // Saves a blocking send the request, its completion and the wait.
  // `context` is the communicator's point-to-point or collective context.
  Status send_now(const ::lz_mpi_comm_s* c, int peer, int tag, uint32_t context, const void* buf, int count,
                  const ::lz_datatype_s* dt, bool* done);
  Status start_recv(Request* r);
  // True and fills the status fields of `probe` (source, tag, bytes) if a
  // message matching (src, tag) on `ctx` is waiting.
  bool iprobe(uint32_t ctx, int src, int tag, Request* probe);
  // Matched probe (MPI_Improbe): takes the first message matching (src, tag)
  // on `ctx` out of matching, so that only the receive given it
  // (start_matched_recv) gets it; null when none is waiting. From
  // MPI_ANY_SOURCE under a message log, the match counts as a wildcard
  // receive (replayed after a restart like one).
  Unexpected* take_unexpected(uint32_t ctx, int src, int tag);
  // Any source's message of (ctx, tag), with no wildcard decision logged:
  // for a consumer that takes every such message and whose result does not
  // depend on the order among sources (a window's agent). A logged decision
  // would tie a snapshot to its rank count for nothing.
  Unexpected* take_any(uint32_t ctx, int tag) { return queue(ctx)->find_unexpected(MPI_ANY_SOURCE, tag, true); }
  // Starts receive `r` on a message taken by take_unexpected (MPI_Mrecv),
  // which it consumes.
  void start_matched_recv(Request* r, Unexpected* u);
  // Starts non-blocking collective `r` (kind kColl) run by `schedule`; the
  // engine advances it on every progress turn and completes `r` at its end
  // (st_error MPI_ERR_OTHER when a transfer failed: the message says which).
  void start_nbc(Request* r, std::unique_ptr<NbcSchedule> schedule);
  // Progress hooks (above); removing one during its advance() is allowed.
  void add_progress_hook(ProgressHook* h) { hooks_.push_back(h); }
  void remove_progress_hook(ProgressHook* h);
  // MPI_Cancel. A posted, unmatched receive is cancelled at once (true). A
  // send is cancelled only while its message has not been matched: its
  // eager or RTS frame still queued here is dropped (true, cancelled at
  // once); an RTS, or a synchronous eager message, already sent and not
  // answered is withdrawn with a kCancel to the receiver (true: the request
  // completes at the receiver's answer, cancelled if the receiver still held
  // the message unmatched, normally otherwise). Anything else (a message
  // gone out without a reply to wait for, a complete transfer, a buffered
  // rendezvous, a message log running) is left to complete normally (false).
  // st_cancelled says which happened once the request is complete.
  bool cancel(Request* r);

  // One turn of progress over the active transports; returns events seen.
  // `wait_polls` > 0: a blocking wait's turn; the sole active transport
  // (the self transport aside) may look up to that many more times when it
  // finds nothing (Module::progress_waiting()).
  int progress(int wait_polls = 0);
  // Progress turns so far (any thread may read it): a thread that serves
  // the engine while the program computes (osc/progress_thread.h) steps in
  // only when it has not moved for a while.
  uint64_t turns() const { return turns_.load(std::memory_order_relaxed); }
  // Progresses (spin, then sleep) until `done()` is true. A peer that fails
  // completes the requests waiting on it with an error (peer_failed), so a
  // `done()` that tests completion becomes true; a checkpoint request runs
  // the interrupt handler inside, invisibly to the caller.
  // Oversubscribed, the spin is p2p_spin_count turns that each yield (the
  // rank we wait for may need this CPU), for at most p2p_spin_yield_time; otherwise it lasts p2p_spin_time
  // microseconds (a count would be too short without the yields: a 256 KiB
  // rendezvous outlasted 2000 turns and paid a sleep and a wake-up).
  template <typename Done>
  void wait_until(Done done) {
    if (done()) return;
    // Spin, sleep until something arrives, and spin again after it: what
    // arrives in a long wait (one-sided operations for this rank's windows
    // while it sits in a barrier) tends to come in runs, each of which
    // would otherwise pay a wake-up from poll().
    for (;;) {
      if (spin(done)) return;
      bool woke = false;
      while (!woke) {
        if (done()) return;
        woke = sleep_turn();
      }
      if (done()) return;
    }
  }
  // The busy-poll phase of wait_until(): true once `done()` is.
  template <typename Done>
  bool spin(Done& done) {
    if (oversubscribed_) {
      // Bounded by time too: on a busy machine each yield can last a whole
      // time slice, and sleeping in poll() then wakes this rank when its
      // message lands instead of when the scheduler comes back to it.
      const int64_t until = yield_time_ns_ > 0 ? now_ns() + yield_time_ns_ : INT64_MAX;
      for (int i = 1; i <= spin_count_; ++i) {
        progress();
        if (done()) return true;
        if (__builtin_expect(gate_ != nullptr, 0) && gate_->contended()) break;
        if (i % 8 == 0 && now_ns() >= until) break;
        sched_yield();
      }
    } else if (spin_time_ns_ > 0) {
      // The clock is first read after 64 turns: most waits end before that,
      // and the read (a vDSO call of ~30 ns here) delayed each wait's first
      // look at the transports (shm 0-8 byte ping-pong, bound: 0.92-0.94x
      // the time with it, run_bench side by side; see the commit).
      int64_t until = 0;
      for (unsigned i = 1;; ++i) {
        progress(kWaitPolls);
        if (done()) return true;
        if (i % 64 == 0) {
          const int64_t now = now_ns();
          if (until == 0) until = now + spin_time_ns_;
          else if (now >= until) break;
        }
        if (__builtin_expect(gate_ != nullptr, 0) && gate_->contended()) break;
      }
    }
    return false;
  }
  // This rank shares its CPUs with more ranks than they have (cpu_sharing.h):
  // a spinning wait yields.
  bool oversubscribed() const { return oversubscribed_; }
  // MPI_THREAD_MULTIPLE: waits let go of `gate` while they sleep (null: one
  // thread at a time calls MPI, nothing to let go of).
  void set_thread_gate(WaitGate* gate) { gate_ = gate; }

  // ---- what the tool interface reads (runtime/mpi/tool) ------------------------------
  // Traffic to and from the peers that selected transport `name` ("tcp")
  // carries now: the program's messages (eager and RTS frames) and every
  // byte of every frame (wire headers, protocol replies and rendezvous data
  // included). All zero for a transport this process did not select.
  struct Traffic {
    uint64_t messages_sent = 0, bytes_sent = 0, messages_received = 0, bytes_received = 0;
  };
  Traffic traffic_of(const std::string& name) const;
  // The transport chosen for world rank `world` ("shm"; "" before init).
  std::string transport_of(int world) const;

  // ---- matching queues per context --------------------------------------------------
  MatchQueue* queue(uint32_t ctx) {
    if (__builtin_expect(ctx < queues_.size() && queues_[ctx], 1)) return queues_[ctx].get();
    return new_queue(ctx);
  }
  void release_queue(uint32_t ctx);
  // Context ids (communicator creation, comm_factory.h). Ids go in pairs
  // (point-to-point, collective), named by the first. next_context() is above
  // every id this process has taken: a blocking agreement proposes it. A
  // non-blocking one (MPI_Comm_idup) may land on a lower id that is free
  // here: context_free() says whether it is.
  uint32_t next_context() const { return next_context_; }
  bool context_free(uint32_t id) const { return id >= 4 && taken_contexts_.count(id) == 0; }
  // Marks the pair taken (for a communicator, or held by an agreement in flight).
  void take_context(uint32_t id) {
    taken_contexts_.insert(id);
    if (id + 2 > next_context_) next_context_ = id + 2;
  }
  // An agreement in flight gives back a pair it held and did not keep.
  void release_context(uint32_t id) { taken_contexts_.erase(id); }

  // ---- checkpoint support ---------------------------------------------------------------
  crcp::Bookmark sent_to(int peer) const { return peers_[static_cast<size_t>(peer)].sent; }
  crcp::Bookmark received_from(int peer) const { return peers_[static_cast<size_t>(peer)].received; }
  // Messages only (peer.h: messages_sent/received), as bookmarks without bytes.
  crcp::Bookmark messages_sent_to(int peer) const { return {peers_[static_cast<size_t>(peer)].messages_sent, 0}; }
  crcp::Bookmark messages_received_from(int peer) const {
    return {peers_[static_cast<size_t>(peer)].messages_received, 0};
  }
  // "" when nothing is under way: no frame waits for room in the engine or
  // a transport, no request waits for a peer's reply (rendezvous, sync
  // send, stream), no get and no non-blocking collective runs. Otherwise
  // what is, for messages ("rank 2: a reply awaited; ...").
  std::string transfers_in_flight() const;
  // While held, new outgoing frames are queued instead of sent, and a
  // rendezvous the receiver matches meanwhile answers CTS (queued too)
  // instead of starting a get: a get may need its owner's progress (a pull
  // over UCX's tcp, libfabric's tcp;ofi_rxm), which ends at the checkpoint
  // hooks.
  void hold_sends(bool hold);
  // Gets and zero-copy sends started before the hold and still running
  // (CrService waits for them before it reports the drain done).
  size_t transfers_running() const { return transfers_.size(); }
  // Set from any thread (the CR thread): every wait turn calls the handler.
  std::atomic<bool> interrupt_requested{false};
  void set_interrupt_handler(std::function<void()> h) { interrupt_handler_ = std::move(h); }
  // CR on: creates the interrupt eventfd that request_interrupt() rings, so a
  // wait sleeping in poll() wakes at once; the launcher's control fd is then
  // the CR thread's to poll, no longer the waiting thread's.
  Status enable_interrupts();
  // Any thread: raises interrupt_requested and wakes a sleeping wait.
  void request_interrupt();
  // Requests that complete outside the engine (MPI-IO's, completed by its
  // I/O thread, io/io_queue.h): enable_thread_wakes() once, then any
  // thread's wake() ends a wait's sleep in poll() so that it looks again.
  Status enable_thread_wakes();
  void wake();
  // The CR thread (entry lock held): one progress turn, and when it found
  // nothing, a sleep of at most `timeout_ms` in poll() on the transports'
  // wait fds and `extra_fd` (-1: none). Never calls the interrupt handler.
  int progress_wait(int timeout_ms, int extra_fd = -1);
  // Names the selected transports, and the bridges' (p2p/bridge.h), without
  // kCapCheckpoint ("" when all have it).
  std::string transports_without_checkpoint() const;
  // Runs on_checkpoint() of every selected transport, then of every
  // bridge's (channels drained, sends held), retrying with progress while
  // one answers kWouldBlock, for at most `timeout_ms` in all. On failure the
  // transports already released stay released: resume_transports()
  // re-opens them.
  Status checkpoint_transports(int timeout_ms);
  // on_continue() / on_restart() of every transport released above, the
  // bridges' included (which put their new addresses into their bridge).
  // The peers' hosts are re-read from the bootstrap first (a restart, or
  // ranks moved to other hosts).
  Status resume_transports(bool restarted);
  // After resume_transports() and the transports' modex puts: fences the
  // modex, connect()s the re-opened transports and chooses every peer's
  // transport again (ranks may have moved). Sends stay held. The bridges
  // stay closed: reconnect_bridges() re-opens them.
  Status reconnect_transports();
  // After reconnect_transports(), in a checkpoint of a spawn tree that
  // reached GO: re-opens every bridge (connect() of the transports
  // checkpoint_transports() released). Each bridge goes to its next epoch,
  // puts this process's host and job id beside its transports' addresses,
  // and fences them through the launchers (one BRIDGE_FENCE per bridge, all
  // sent before any answer is awaited, at most `timeout_s`:
  // Bootstrap::bridge_fence); then its transports connect() and its peers'
  // names, hosts and transports are taken again. A member the table gives no entries (its
  // job ended) is a lost peer (its requests fail, MPI_ERR_PROC_FAILED).
  // Errors name the bridge's other jobs; sends stay held.
  Status reconnect_bridges(double timeout_s);

  // True when frames wait for transport room.
  bool has_pending() const { return pending_peers_ != 0; }

  // ---- application-level checkpoints ------------------------------------------------
  // The protocol that stamps, logs and replays messages (crcp/c3), or null.
  void set_message_log(crcp::MessageLog* log) { mlog_ = log; }
  // Receives started and not complete (posted, or matched and still
  // receiving): a safe point allows none.
  size_t open_receives() const { return open_recvs_; }
  // Delivers logged messages again after a restart, before anything new:
  // each waits in its context's unexpected queue like one just arrived,
  // ahead of every message already there, in the order given.
  void replay(std::vector<crcp::Replayed> messages);

  // ---- processes of other jobs (dynamic processes, p2p/dpm.h): engine_dpm.cpp ----------
  // Takes `b` (open, connected): each member of another job becomes a peer
  // numbered after every peer so far, reached through b's modules. Returns
  // the engine's number of each member (a member of this job: its world
  // rank). kUnavailable naming a member no module of b reaches.
  StatusOr<std::vector<int>> adopt_bridge(std::unique_ptr<Bridge> b);
  // Peers of this job and of others (world ranks first).
  int peer_count() const { return static_cast<int>(peers_.size()); }
  // Who peer `index` is, the same in every job's processes.
  // A world rank's name carries the job id this process has now (a restart
  // gives the job a new one), so it is made, not kept.
  ProcessName process_name(int index) const;
  // The peer that is process `n` (the first, when bridges reach it twice);
  // -1 when this process reaches no such process.
  int index_of(const ProcessName& n) const;
  // A bridge is open: only a checkpoint of the whole spawn tree covers the
  // job (the CR service refuses any other).
  bool has_bridges() const { return !bridges_.empty(); }

  // ---- the in-band drain of the bridges (runtime/cr/bridge_drain.h): engine_dpm.cpp ----
  // Sends peer `index` (one of another job) a kMarker frame (protocol.h)
  // carrying sent_to(index), generation `gen` and `echo`, straight to its
  // transport: past held sends and frames queued for it, and not counted in
  // the bookmarks. Ok: the transport took it (in order after every frame
  // counted in sent_to). kWouldBlock: no room now (try again after
  // progress). kAborted: the peer is gone (failed, or finalized). Anything
  // else is the transport's error. kInvalidArgument for a world rank.
  Status send_marker(int index, uint32_t gen, uint32_t echo);
  // Sends peer `index` (another job's) a kLineCount frame (protocol.h):
  // what this process had sent it at its line of `epoch` (wire::kLineEnded:
  // no more lines). kAborted: the peer is gone; kInvalidArgument for a
  // world rank.
  Status send_line_count(int index, uint64_t epoch, uint64_t sent);
  // Where kLineCount frames go (the app service's; null: dropped).
  using LineCountHandler = std::function<void(int index, uint64_t epoch, uint64_t sent)>;
  void set_line_count_handler(LineCountHandler h) { line_count_handler_ = std::move(h); }
  // The markers exchanged with peer `index` (another job's). Markers that
  // arrive are recorded here by the engine (the last one replaces the one
  // before), never matched or delivered to MPI.
  BridgeMarker& marker(int index) { return peers_[static_cast<size_t>(index)].marker; }
  // Peer `index` failed (its frames no longer arrive; peer_failed said why).
  bool peer_lost(int index) const { return peers_[static_cast<size_t>(index)].failed; }
  // A peer of another job whose job ended (its transport refuses it): lost
  // without an error line, as a peer that did not re-open its bridge.
  void peer_gone(int index, const Status& why) { lose_peer(index, why, false); }

  // ---- migration of a rank (cr=app): engine_handover.cpp ------------------------------
  // Every rank stopped at the same safe point, every message sent before it
  // arrived: pulls the payload of every unexpected rendezvous message (an
  // RTS no receive matched) into this process, leaving it in its queue
  // position as a message whose data is here; the senders' transfers end
  // (FIN, or their stream) as for any receive. Progresses until every pull
  // ended: kAborted naming the peer that died, kTimeout after `timeout_s`.
  // Nothing to pull: Ok at once.
  Status absorb_unexpected(double timeout_s);
  // Takes every unexpected message out of the engine (each context's queue
  // in its order), as the replay() of a new process takes them back.
  // kUnavailable when a rendezvous message is still unexpected (call
  // absorb_unexpected() first) or a receive is open.
  StatusOr<std::vector<crcp::Replayed>> take_all_unexpected();
  // A new process that took a moved rank's place: context ids below `next`
  // were taken by the rank's old process (next_context() there).
  void set_next_context(uint32_t next) { next_context_ = std::max(next_context_, next); }
  // ... and continues its per-peer message counts (messages_sent_to /
  // messages_received_from), which the peers' own counts include: the old
  // process's are added to what this one counted so far. kInvalidArgument
  // unless both have one entry per rank of the job.
  Status add_message_counts(const std::vector<uint64_t>& sent, const std::vector<uint64_t>& received);

 private:
  struct TransferOp;  // below: a get_async() or send_zcopy() in flight
  struct RmaRegion;   // below: window memory registered for peers' put/get
  // After the modex fence: whether this rank's CPUs are shared by more ranks
  // of its host than they number (cpu_sharing.h).
  bool decide_oversubscribed(const std::vector<int>& my_cpus) const;
  // Starts `r` (active, not complete, no error); a request to MPI_PROC_NULL
  // completes at once with the empty status, and activate() returns true.
  bool activate(Request* r);
  // Under a thread gate, one thread (the poller) sleeps in poll() and lets go
  // of the gate meanwhile; the others wait on the gate. True when the turn
  // saw progress events.
  bool sleep_turn();
  // Runs the interrupt handler when a checkpoint asked for it (top of a turn).
  void take_interrupt();
  // Bootstrap::ReplyWait: progresses the transports until `fd` is readable.
  void wait_readable(int fd);
  // Live peers with frames not yet out of this process, for messages
  // ("rank 3 (40 bytes queued in the transport)"); "" when none. Appends
  // their ranks to `owed`.
  std::string unsent_summary(std::vector<int>* owed) const;
  // What of live peer `r`'s frames has not left this process ("2 frame(s)
  // waiting for transport room, 40 bytes queued in the transport"); "" when
  // nothing or the peer failed. unsent_summary and transfers_in_flight.
  std::string unsent_to(int r) const;
  // Arms every selected transport's wait fd; false when one has work now.
  bool arm_waits();
  // The selected transports' wait fds, leaving 3 of kMaxWaitFds entries free
  // for the caller (interrupt eventfd, thread gate's wake fd, control fd or an
  // extra fd).
  static constexpr nfds_t kMaxWaitFds = 19;
  nfds_t wait_fds(pollfd* fds) const;
  // Per peer, the first selected module that reaches it; active_/idle_.
  Status choose_transports();
  // Of `modules`, the one that carries the frames of the peer it numbers
  // `index`: the highest exclusivity, then the lower latency, then the
  // first; its attributes and position. Null when none reaches it.
  static transport::Module* best_module(const std::vector<transport::Module*>& modules, int index,
                                        transport::Attributes* best, size_t* chosen);
  // p's protocol limits, from its transport and that transport's attributes `a`.
  Status set_limits(Peer& p, const transport::Attributes& a) const;
  void refresh_peer_info();
  // Puts the bridges' transports that are not released (connected) among
  // the active ones, which choose_transports() resets to the world's.
  void add_bridge_modules();
  // peer_failed(), logged at `error` level when `loud`, else at debug (a
  // peer whose job ended, found so by this process).
  void lose_peer(int index, const Status& why, bool loud);
  // Sends header + payload to `world`, queueing it when the transport has no
  // room (or sends are held). Counts bookmarks for frames that left.
  Status send_frame(int world, const wire::Header& h, const void* payload, size_t len);
  // What send_frame() does when it cannot hand the frame over now: `why`
  // is the transport's refusal (ok: frames are queued or held already).
  __attribute__((noinline)) Status send_refused(int world, const wire::Header& h, const void* payload, size_t len,
                                                Status why);
  void enqueue(int world, const wire::Header& h, const void* payload, size_t len);
  // One frame to p's transport; counted in p.sent (bookmarks) when it left.
  Status transmit(int world, Peer& p, const iovec* iov, int iovcnt, size_t bytes);
  // send_frame() past its checks: the frame to p's transport, or to
  // send_refused().
  Status hand_over(int world, Peer& p, const wire::Header& h, const void* payload, size_t len);
  void flush_peer(int world);
  void flush_all();
  void run_deferred();

  // Marks r complete. Inline for a receive or a collective that owns
  // nothing to release (complete_general() does the rest).
  void complete(Request* r) {
    if (__builtin_expect(r->bsend_owner == nullptr && r->region == nullptr && r->kind != Request::Kind::kSend &&
                             !r->user_freed && gate_ == nullptr,
                         1)) {
      if (r->cr_open) {
        r->cr_open = false;
        --open_recvs_;
      }
      r->complete = true;
      return;
    }
    complete_general(r);
  }
  void complete_general(Request* r);
  void add_waiting(int world, Request* r);
  void remove_waiting(Request* r);

  // Matching and protocols. deliver() takes a well-formed eager frame
  // itself and hands every other to deliver_frame().
  __attribute__((noinline)) void deliver_frame(int src, const void* data, size_t len);
  void deliver_eager(int world, const wire::Header& h, const char* payload);
  // `bytes` more of a streamed rendezvous arrived at `r`; it finishes with the last.
  void frag_arrived(Request* r, uint64_t bytes);
  void deliver_rts(int world, const wire::Header& h, const char* key, size_t key_len);
  // Keeps an eager or RTS frame no posted receive matched (payload: the eager
  // data, or the RTS's remote key).
  void park_unexpected(MatchQueue* q, int world, const wire::Header& h, const char* payload, size_t len);
  // A receive being started: counted open (checkpoint drain), its size and,
  // when contiguous, its destination.
  void open_recv(Request* r);
  // Receive `r` takes unexpected message `u` (eager: delivered now;
  // rendezvous: the CTS goes out) and recycles it.
  void receive_unexpected(Request* r, Unexpected* u);
  void recv_eager_into(Request* r, int world, int src, int tag, uint64_t stamp, const char* payload, uint64_t len);
  // Rendezvous receive `r` takes a message of `length` bytes announced by
  // RTS `sreq` from `world`: a copy and FIN when it is this rank's own, else
  // a single-copy get or a CTS. The caller notes the match in the message
  // log first, if any (absorb_unexpected's receives are not the program's).
  void start_rndv_recv(Request* r, int world, int src, int tag, uint64_t length, uint64_t sreq, const RndvSource& from);
  // Rendezvous receive by single copy: starts get_async(); false if the
  // transport did not take it (the caller streams instead).
  bool start_get(Request* r, int world, const RndvSource& from, uint64_t n);
  static void transfer_done(void* op, const Status& result);
  void finish_rma(Request* r, int world, const Status& result);
  void finish_transfer(TransferOp* op);
  // An eager send of `r` by send_zcopy(); false if the transport would not
  // take it now (the caller goes by rendezvous).
  bool send_eager_zcopy(Request* r, int world, const wire::Header& h);
  // place() for an eager frame: the matched receive, or null.
  void* place_eager(int world, Peer& p, const wire::Header& h);
  // Registers a rendezvous send's buffer for the peer's get (wire::kFlagGet
  // when it worked); released by complete().
  bool offer_get(Request* xfer, Peer& p);
  void release_region(Request* r);
  // A receive matched a message: the protocol hears of it (mlog_ set).
  void note_match(Request* r, int world, int src, int tag, uint64_t stamp);
  // A late message's delivered bytes to the protocol's log.
  void log_late(Request* r, const char* data, uint64_t bytes);
  void finish_recv(Request* r);
  void send_ctl(int world, uint8_t type, uint64_t sreq, uint64_t rreq);
  // Cancel of a send (cancel()): drops its frame still queued for the peer
  // (true), or sends the kCancel that withdraws it (true), or false.
  bool cancel_send(Request* r);
  // The receiver's side of kCancel, and the sender's of kCancelAck.
  void deliver_cancel(int world, const wire::Header& h);
  void deliver_cancel_ack(const wire::Header& h);
  // A send's protocol ended (FIN, ACK, stream sent): complete it, or, while
  // a kCancel is out, wait for its answer.
  void send_done(Request* r);
  void fail_request(Request* r, int mpi_error);

  Bootstrap* boot_ = nullptr;
  int rank_ = 0;
  int size_ = 1;
  std::vector<transport::PeerInfo> peer_info_;
  std::vector<Peer> peers_;
  std::vector<ProcessName> foreign_names_;          // peers of other jobs, from size_ on
  std::vector<std::unique_ptr<Bridge>> bridges_;    // adopt_bridge(), finalized last
  LineCountHandler line_count_handler_;
  std::vector<std::unique_ptr<Module>> owned_;      // selected transport modules, best first
  std::vector<transport::Module*> modules_;
  std::vector<transport::Module*> active_;          // modules chosen for at least one peer
  std::vector<transport::Module*> idle_;            // selected, chosen for no peer
  std::vector<std::string> module_names_;           // parallel to modules_
  std::vector<bool> cr_released_;                   // parallel to modules_: on_checkpoint() done
  int interrupt_fd_ = -1;                           // eventfd rung by request_interrupt()
  int wake_fd_ = -1;                                // eventfd rung by wake()
  unsigned idle_turn_ = 0;
  bool any_without_fd_ = false;  // an active non-self transport has no wait fd
  bool control_dead_ = false;
  bool self_dirty_ = false;      // frames were sent to self since the last progress
  transport::Module* self_only_ = nullptr;  // the active transport with kCapSelf (progressed only after self_dirty_)
  transport::Module* sole_ = nullptr;       // the only other active transport, if one
  // A blocking wait's extra looks at sole_ per turn (progress_waiting()).
  // ucx, 0-byte ping-pong over posix, bound: see the commit that set it.
  static constexpr int kWaitPolls = 16;
  std::vector<std::unique_ptr<MatchQueue>> queues_;  // by context id
  MatchQueue* new_queue(uint32_t ctx);  // queue()'s first call for `ctx`
  uint32_t next_context_ = 4;                        // 0/1: world, 2/3: self
  std::set<uint32_t> taken_contexts_;                // pairs taken since (first id)
  size_t pending_peers_ = 0;
  bool hold_ = false;
  bool in_progress_ = false;
  // Transports connected and chosen per peer: progress() may run from the
  // bootstrap's reply waits. False before init() ends, from
  // checkpoint_transports() to the end of reconnect_transports(), and after
  // finalize().
  bool live_ = false;

  // Work that may not run inside a transport's progress() (it sends or
  // reads through a transport): replies and rendezvous starts.
  struct Deferred {
    enum Kind : uint8_t { kCtl, kRndvStart, kCts, kTransferDone } kind;
    int world;
    uint8_t type;  // kCtl: the frame type; kRndvStart: the RTS flags
    int src, tag;
    uint64_t length, sreq, addr;
    Request* req;
    uint64_t stamp;
    std::string key;  // kRndvStart: the RTS's remote key
    TransferOp* op = nullptr;  // kTransferDone
  };
  std::vector<Deferred> deferred_;
  // A get_async() (a rendezvous receive) or a send_zcopy() (an eager send,
  // `send`) in flight: its completion comes back through transfer_done()
  // and is finished by run_deferred(). `req` is cleared when the request was
  // failed meanwhile (peer lost).
  struct TransferOp {
    Engine* engine = nullptr;
    Request* req = nullptr;
    int world = -1;
    Status result;
    bool send = false;
    bool rma = false;  // start_rma(): completes its request, nothing else
  };
  std::vector<TransferOp*> transfers_;
  struct RmaRegion {
    const void* owner;
    transport::Module* module;
    void* addr;
    size_t len;
    transport::MemoryRegion region;
    bool cached;  // the registration cache's: not deregistered here
  };
  std::vector<RmaRegion> rma_regions_;
  uint64_t rma_generation_ = 1;
  // Deregisters every rma_regions_ entry and makes the keys stale.
  void rma_drop_all();

  int spin_count_ = 2000;
  int64_t yield_time_ns_ = 200000;
  int64_t spin_time_ns_ = 1000000;
  static int64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
  }
  bool oversubscribed_ = false;
  int wait_timeout_ms_ = 10;
  WaitGate* gate_ = nullptr;
  double flush_timeout_s_ = 600;
  uint64_t eager_limit_param_ = 0;  // 0: each transport's attributes
  std::function<void()> interrupt_handler_;
  crcp::MessageLog* mlog_ = nullptr;
  // Non-blocking collectives in flight, advanced by progress().
  struct Nbc {
    Request* request;
    std::unique_ptr<NbcSchedule> schedule;
  };
  std::vector<Nbc> nbc_;
  void advance_nbc();
  std::vector<ProgressHook*> hooks_;
  std::atomic<uint64_t> turns_{0};
  void run_hooks();
  // Under a message log: the wildcard number (1 + n; 0: none) and forced
  // source of a matched probe from MPI_ANY_SOURCE that has not found its
  // message yet, per context: later attempts keep them.
  struct WildProbe {
    uint32_t context = 0;
    uint64_t wild = 0;
    int forced = -1;
  };
  std::vector<WildProbe> wild_probes_;
  size_t open_recvs_ = 0;
};

}  // namespace lz::rt
