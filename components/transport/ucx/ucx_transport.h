// transport/ucx: frames over UCX (UCP active messages), between ranks on any
// hosts: posix and cma shared memory on one host, tcp between hosts (or
// whatever transport_ucx_tls lets UCX choose, InfiniBand included).
//
// This class lives in liblazarus_ucx.so, loaded by the first init() through
// the built-in proxy module (ucx_proxy.h, ucx_loader.h: why UCX must not be
// loaded into every process). One UCP context and one worker per rank
// (ucx_worker.h). init() publishes
// "<pid>:<hex worker address>" under kModexKey; connect() reads every peer's
// entry (again after every checkpoint hook). Endpoints are created lazily, by
// the first send to a peer or the first frame from it (so that a peer we only
// receive from is watched too), in UCP_ERR_HANDLING_MODE_PEER (pulls take a
// second one without error handling: ucx_rma.cpp).
//
// Sending (ucx_send.cpp): send() gathers the frame behind its AM header
// (ucx_frame.h) into one buffer of ours and calls ucp_am_send_nbx; the
// caller's iovecs are free on return. A send UCX completes inline frees the
// buffer at once; one it queues (a full FIFO, a rendezvous) keeps it until
// its callback in progress(). Outstanding bytes are bounded by
// transport_ucx_send_queue_limit: beyond it send() answers kWouldBlock.
// unsent_bytes(peer) is what has not provably left the process: requests not
// complete, plus bytes completed locally (UCX may still hold them, say in its
// tcp send buffer) until a ucp_ep_flush_nbx started by progress() covers
// them; asking for it is what starts the flush, so the hot path pays nothing.
// send_zcopy() of a large frame sends it from the caller's buffers under
// UCX's rendezvous, its head in the AM header, for the receiver to place
// (ucx_head_frame.cpp).
//
// Receiving (ucx_progress.cpp): progress() runs ucp_worker_progress; the AM
// handler checks the header (job tag, source rank, state of that rank) and
// drops anything else, then delivers the frame through Host::deliver
// straight from UCX's buffer when it is the next one of its sender, or holds
// a copy until it is. A rendezvous frame is fetched into a buffer of ours
// (ucp_am_recv_data_nbx), or a head frame into the place Host::place gives,
// and delivered in its turn.
//
// Re-entry: Host::deliver is called from inside ucp_worker_progress (UCX's
// callback context). It may call send() (UCX allows sending from a callback;
// send() never progresses). It may call progress(): that nested call returns
// 0 at once (UCX forbids ucp_worker_progress from a callback); the frames go
// on being delivered by the outer call, in order.
//
// Failures (ucx_liveness.cpp): an endpoint error (tcp notices in
// milliseconds) or the exit of a same-host peer (a pidfd per local peer,
// published pid; UCX's shared memory notices only after a 20 s keepalive)
// marks the peer lost; after the worker has been drained, so that every frame
// it sent first is delivered, Host::peer_failed is called once, naming the
// rank. A peer that said kBye (finalize) or kCheckpoint is not failed by its
// exit or its endpoint's error.
//
// Blocking waits (kCapWaitFd): wait_fd() is an epoll set of ours holding
// ucp_worker_get_efd and the pidfds, so a sleeping rank wakes on a frame and
// on a peer's death; it stays the same fd across the checkpoint hooks.
// arm_wait() is ucp_worker_arm (UCS_ERR_BUSY: events pending, do not sleep).
//
// Checkpoint/restart (kCapCheckpoint): see ucx_checkpoint.cpp.
//
// Threading: one thread at a time (transport.h); the UCP worker is
// UCS_THREAD_MODE_SINGLE.
#pragma once

#include <sys/uio.h>
#include <time.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lazarus/frameworks/transport.h"
#include "lazarus/unique_fd.h"
#include "ucx_config.h"
#include "ucx_frame.h"
#include "ucx_peer.h"
#include "ucx_worker.h"

namespace lz::transport::ucx {

// Seconds on the monotonic clock: the deadlines of the hooks and flushes.
inline double now_s() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

inline constexpr const char* kModexKey = "transport.ucx.addr";

class UcxTransport final : public Module {
 public:
  explicit UcxTransport(UcxConfig config);
  ~UcxTransport() override;

  uint64_t capabilities() const override { return kCapWaitFd | kCapCheckpoint | kCapGet | kCapPut; }
  Attributes attributes(int peer) const override;
  Status init(Host& host) override;
  Status connect() override;
  bool reaches(int peer) const override;
  size_t max_frame() const override { return config_.max_frame; }
  Status send(int peer, const struct iovec* iov, int iovcnt) override;
  // Large frames under UCX's rendezvous, placed by the receiver (ucx_head_frame.cpp).
  Status send_zcopy(int peer, const struct iovec* iov, int iovcnt, Completion done) override;
  void drop_placement(int src) override;
  int progress() override { return progress_turn(0); }
  int progress_waiting(int polls) override { return progress_turn(polls); }
  Status finalize() override;
  size_t unsent_bytes(int peer) const override;
  int wait_fd() const override { return waitset_.get(); }
  bool arm_wait() override;
  Status on_checkpoint() override;
  Status on_continue() override;
  Status on_restart() override;
  // Single copy: UCP RMA reads, or pulls through UCX's rendezvous where UCX
  // cannot read (tcp) (ucx_rma.cpp).
  Status register_memory(const void* addr, size_t len, MemoryRegion* out) override;
  void deregister_memory(const MemoryRegion& region) override;
  Status get_async(int peer, void* local, size_t len, uint64_t remote, std::string_view key,
                   Completion done) override;
  Status put_async(int peer, const void* local, size_t len, uint64_t remote, std::string_view key,
                   Completion done) override;

  const UcxConfig& config() const { return config_; }
  // True between a successful on_checkpoint() and the next connect().
  bool checkpointed() const { return checkpointed_; }

  // UCX callbacks (static trampolines call these).
  // on_am() takes the common frame itself (the next eager data frame from
  // an active peer) and hands every other to on_other_am().
  ucs_status_t on_am(const void* header, size_t header_length, void* data, size_t length,
                     const ucp_am_recv_param_t* param);
  __attribute__((noinline)) ucs_status_t on_other_am(const void* header, size_t header_length, void* data,
                                                     size_t length, const ucp_am_recv_param_t* param);
  void on_ep_error(UcxPeer& p, ucs_status_t why);

 private:
  struct SendOp;
  struct RecvOp;

  UcxPeer* peer_at(int rank) const {
    return rank >= 0 && static_cast<size_t>(rank) < peers_.size() ? peers_[static_cast<size_t>(rank)].get() : nullptr;
  }
  // Resources outside the process image (ucx_transport.cpp).
  Status open_worker();
  void close_worker();
  Status publish();
  Status ensure_ep(UcxPeer& p);
  // `why` names the caller in the debug log.
  void close_ep(UcxPeer& p, bool force, const char* why);
  // Waits (progressing, bounded by `deadline`) for every close request.
  void wait_closes(double deadline);

  // Sending (ucx_send.cpp). check_send() is what send() and send_zcopy()
  // refuse: a bad peer or frame, a peer not active, a full queue.
  Status check_send(int peer, const struct iovec* iov, int iovcnt, size_t* total, UcxPeer** out);
  // `id`: the header's seq for a kind other than kData (a pull's id).
  Status post(UcxPeer& p, FrameKind kind, const struct iovec* iov, int iovcnt, uint64_t id = 0);
  // A frame of at most kImmediateMax bytes sent at once from the stack, if
  // UCX can (its short protocol copies it): UCS_OK when it went,
  // UCS_ERR_NO_RESOURCE when it must be queued (post()'s path), another
  // error when the endpoint failed. The endpoint must exist.
  ucs_status_t send_immediate(UcxPeer& p, const FrameHeader& h, const struct iovec* iov, int iovcnt, size_t total);
  // The request of an immediate send UCX did not complete at once: waited for.
  __attribute__((cold, noinline)) void finish_immediate(void* req);
  // send() past its common case: check_send(), then post().
  __attribute__((noinline)) Status send_general(int peer, const struct iovec* iov, int iovcnt);
  // What a failed ucp_am_send_nbx returns: kAborted (and the peer marked
  // lost) when the endpoint failed, an I/O error otherwise.
  Status send_failed(UcxPeer& p, ucs_status_t why);
  static void send_done(void* request, ucs_status_t status, void* user_data);
  static void flush_done(void* request, ucs_status_t status, void* user_data);
  void start_flushes();
  // Flushes the worker, progressing until done or `deadline`.
  Status flush_all(double deadline, const char* why);
  std::string outstanding_summary() const;
  // Buffers of frames larger than kPooledFrom come from (and go back to) a
  // small cache of 512 KiB ones: allocating them fresh each time
  // made glibc map and unmap them, page faults and all (ucx_send.cpp).
  // The generic datatype send() packs large frames with (ucx_send.cpp);
  // made and destroyed with the worker.
  Status create_gather_dt();
  void destroy_gather_dt();
  std::unique_ptr<SendOp> take_op();
  void give_op(std::unique_ptr<SendOp> op);
  std::unique_ptr<char[]> take_buffer(size_t bytes);
  void give_buffer(std::unique_ptr<char[]> buf, size_t bytes);

  // Receiving (ucx_progress.cpp).
  static void recv_done(void* request, ucs_status_t status, size_t length, void* user_data);
  // Receives a rendezvous frame's data (desc) into `dst`: p.held[seq] is
  // ready when it is in.
  ucs_status_t fetch(UcxPeer& p, uint64_t seq, void* desc, void* dst, size_t length);

  // Head frames (ucx_head_frame.cpp): kDataHead, sent by send_zcopy().
  struct ZcopyOp;
  static void zcopy_done(void* request, ucs_status_t status, void* user_data);
  ucs_status_t take_head_frame(UcxPeer& p, uint64_t seq, const char* head, size_t head_len, void* data,
                               size_t length, bool rndv);
  // Receives the rest of head frame f (its head in f.data): placed when it
  // is its turn and the host places, else behind its head.
  ucs_status_t fetch_head_frame(UcxPeer& p, uint64_t seq, HeldFrame& f, void* desc, size_t length);
  // Completes with an error every zero-copy send to `p` (nullptr: to anyone),
  // and abandons a kBulkHello or kBulkAck to it: UCX may never call back on
  // a bulk endpoint (see fail_pulls).
  void fail_bulk_sends(UcxPeer* p, const Status& why);
  void free_zcopies();  // after the worker is gone
  // The bulk endpoint and its handshake (ucx_bulk_endpoint.cpp).
  struct ControlOp;
  Status ensure_bulk_ep(UcxPeer& p);
  // Sends a header-only frame on `ep`, held in p.*slot (counted outstanding)
  // until UCX completes it; false if UCX refused it.
  bool send_control(UcxPeer& p, ucp_ep_h ep, FrameKind kind, void* UcxPeer::*slot);
  void abandon_control(UcxPeer& p, void* UcxPeer::*slot);
  // Makes p.bulk_ep and sends kBulkHello on it (tend_eps()).
  void send_hello(UcxPeer& p);
  // kBulkHello came (on its bulk endpoint, whose end here is reply_ep):
  // keep that end and answer kBulkAck on it.
  void take_hello(UcxPeer& p, ucp_ep_h reply_ep);
  bool bulk_unsettled(const UcxPeer& p) const;
  // Before the worker goes: progress until no live peer's handshake is
  // half done (or until the deadline).
  void settle_bulk(double deadline);
  std::vector<ZcopyOp*> zcopies_;  // in flight; abandoned ones until UCX or close_worker() frees them
  void deliver_held(UcxPeer& p);
  // progress() and progress_waiting(): `idle_polls` more looks at the worker
  // when it has nothing.
  int progress_turn(int idle_polls);
  // ucp_worker_progress until it finds nothing (bounded), or, with
  // `until_events`, until a turn produced an event (progress()); a look that
  // finds nothing ends it only after `idle_polls` such looks.
  void progress_worker(bool until_events = false, int idle_polls = 0);
  // Endpoints to make (a peer that sent to us) or to close (a failed one).
  void tend_eps();

  // Liveness (ucx_liveness.cpp). epoll data in waitset_: a peer's rank, or
  // kWorkerTag for the worker's event fd.
  static constexpr uint64_t kWorkerTag = ~uint64_t{0};
  void watch(UcxPeer& p);
  void unwatch(UcxPeer& p);
  void check_waitset();
  // Whether local peer p's process ends within `seconds` (its pidfd, or
  // kill(pid, 0) where none could be opened).
  bool exited_soon(const UcxPeer& p, double seconds) const;
  void mark_lost(UcxPeer& p, const Status& why);
  void report_lost();

  // RMA (ucx_rma.cpp): regions mapped with this worker's context, by handle.
  struct Region {
    ucp_mem_h memh;
    uintptr_t addr;
    size_t len;
  };
  struct GetOp;
  // A native read's completion, or (GetOp::write) the endpoint flush that
  // completes a put_async() remotely.
  static void get_done(void* request, ucs_status_t status, void* user_data);
  // The peer's endpoint and unpacked key for a get or put with `key`.
  Status rma_target(int peer, std::string_view key, const char* what, UcxPeer** out);
  bool tls_has(const char* t) const;  // transport_ucx_tls names t (or "^..." does not)
  bool native_get(bool local) const;
  // Whether UCX reaches a peer (on this host or not) through shared memory.
  bool shared_memory(bool local) const;
  bool is_local(int peer) const;
  // Unmaps every region (the context is about to go): their keys are stale.
  void unmap_regions();
  std::map<uint64_t, Region> regions_;
  uint64_t next_region_ = 1;
  // Pulls (get_async where UCX has no get of its own: kGetReq/kGetReply,
  // ucx_frame.h), by id; each counts in outstanding_ops_ until it completes.
  struct PullOp;
  Status pull(UcxPeer& p, void* local, size_t len, uint64_t remote, uint64_t region, Completion done);
  // Answers on `reply` (the endpoint the request came by), or p.ep.
  void serve_pull(UcxPeer& p, uint64_t id, const void* data, size_t length, ucp_ep_h reply);
  // With transport_ucx_pull_zcopy, a pull is asked for on p.bulk_ep (made on
  // first use, without error handling) and answered on the owner's end of it.
  Status post_bulk_request(UcxPeer& p, uint64_t id, const PullRequest& rq);
  // What on_am returns for the reply (UCS_INPROGRESS: its data is being received).
  ucs_status_t take_pull_reply(UcxPeer& p, uint64_t id, bool failed, void* data, size_t length, bool rndv);
  void finish_pull(PullOp* op, const Status& result);
  // Completes with an error every pull waiting on `p` (lost or gone).
  void fail_pulls(UcxPeer& p, const Status& why);
  static void pull_recv_done(void* request, ucs_status_t status, size_t length, void* user_data);
  static void serve_done(void* request, ucs_status_t status, void* user_data);
  std::map<uint64_t, PullOp*> pulls_;
  // Pulls fail_pulls() completed while UCX was receiving them: UCX may never
  // call back; freed with the worker (free_abandoned()).
  std::vector<PullOp*> abandoned_;
  void free_abandoned();
  size_t serving_ = 0;  // pulls being answered (ServeOp)
  size_t reading_ = 0;  // native reads (GetOp)
  size_t writing_ = 0;  // native writes (put_async) until their flush
  // The RMA operations outstanding, for on_checkpoint's refusal.
  std::string rma_summary() const;
  uint64_t next_pull_ = 1;

  // Checkpoint hooks (ucx_checkpoint.cpp).
  std::string held_summary() const;
  void tell_peers(FrameKind kind, double deadline);
  Status reopen(bool restarted);

  UcxConfig config_;
  Host* host_ = nullptr;
  int rank_ = -1;
  uint64_t tag_ = 0;
  UcxWorker worker_;
  UniqueFd waitset_;  // epoll: the worker's event fd + local peers' pidfds
  std::vector<std::unique_ptr<UcxPeer>> peers_;  // by rank; null for ourselves
  std::vector<void*> closing_;                   // ucp_ep_close_nbx requests not yet complete
  std::vector<std::unique_ptr<char[]>> spare_;   // large frame buffers for reuse (take_buffer)
  static constexpr size_t kSpareOps = 64;
  std::vector<std::unique_ptr<SendOp>> spare_ops_;  // SendOps for reuse (take_op)
  ucp_datatype_t gather_dt_ = 0;  // 0: none (a generic datatype is a tagged pointer)
  // Each frame in flight counts as at least this much against
  // send_queue_limit, so that a flood of tiny frames (or of head frames,
  // whose bytes are the caller's) is bounded in number too.
  static constexpr size_t kMinCounted = 256;
  size_t outstanding_bytes_ = 0;                 // all peers, as counted against send_queue_limit
  size_t outstanding_ops_ = 0;                   // send and receive requests in flight
  int events_ = 0;                               // frames in/out counted by the current progress()
  bool in_progress_ = false;
  bool stashing_ = false;      // inside on_checkpoint: hold frames instead of delivering
  bool checkpointed_ = false;  // worker closed; connect() ends it
  bool finalized_ = false;
  bool any_lost_ = false;
  bool held_ready_ = false;            // frames held by stashing_ wait for a progress()
  bool eps_dirty_ = false;             // some peer's need_ep/close_wanted is set
  mutable bool flush_wanted_ = false;  // unsent_bytes() set some peer's want_flush
  bool any_local_ = false;             // some peer is watched through a pidfd
  uint64_t dropped_ = 0;               // frames refused (wrong tag, rank or state)
  int64_t last_check_ms_ = 0;
  uint32_t tick_ = 0;
};

// A frame larger than an immediate send. UCX reads its payload through the
// pack callback of gather_dt_ (a UCP generic datatype): straight from the
// caller's iovecs while send() runs, which is the whole of it when UCX
// completes the send inline (the common case), and from `copy` once send()
// has returned with UCX still holding the request. So the payload is copied
// once, by UCX into its transport, where a gather into a buffer of ours
// came first: 4 and 32 KiB ping-pongs over posix take 0.367 and 0.902 us
// against 0.426 and 1.165 before, Open MPI's pml ucx 0.312 and 0.870
// (tests/perf/results/20261127-ucx-gather-dt.md). Over tcp the gather
// stays (post() says why).
struct UcxTransport::SendOp {
  UcxTransport* owner = nullptr;
  UcxPeer* peer = nullptr;
  FrameHeader h{};        // the AM header: UCX 1.13 copies it when it packs too
  size_t bytes = 0;       // frame bytes (header excluded)
  size_t counted = 0;     // against send_queue_limit
  const struct iovec* iov = nullptr;  // the caller's, during send() only
  int iovcnt = 0;
  std::unique_ptr<char[]> copy;  // after send(): the payload, for what UCX has not packed yet
};

}  // namespace lz::transport::ucx
