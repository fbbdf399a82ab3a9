// transport/ofi: frames over libfabric reliable-datagram (FI_EP_RDM)
// endpoints, between ranks on one host (provider shm) or any hosts
// (tcp;ofi_rxm), one libfabric message per frame.
//
// Data path. init() opens one endpoint (OfiFabric), posts rx_buffers receive
// buffers of max_frame + header bytes (FI_MSG: any incoming message takes
// the next posted buffer) and publishes fi_getname in the modex; connect()
// inserts every peer's published name into the address vector (FI_AV_TABLE)
// and watches the pid of every peer on this host. send() prefixes the
// 24-byte header (ofi_frame.h: the pair's job-derived tag, source rank,
// sequence number) and copies the frame: fi_inject when it fits the
// provider's inject size and the provider puts it where the peer reads it at
// once (shm), otherwise into a bounce buffer posted with fi_send and freed by
// its completion. Either way the caller's buffers are free on Ok.
// kWouldBlock on -FI_EAGAIN, when max_outstanding sends are posted, or when
// send_limit bytes to that peer are; unsent_bytes(peer) counts the bytes of
// posted, uncompleted sends. progress() reads the CQ: send completions
// release their buffers, receive completions are checked (tag, source,
// sequence, length: anything else is dropped and logged), delivered in
// sequence order through Host::deliver straight from the receive buffer,
// then the buffer is posted again.
//
// Re-entry: Host::deliver may call send() (the engine answers a rendezvous
// request from inside deliver); send() never reads the CQ, so that is safe.
// A progress() called from inside deliver returns 0 at once, and a frame
// completed early (waiting for a predecessor) is delivered by the progress
// turn that delivers the predecessor.
//
// Reachability: with shm, only ranks with this rank's node id; otherwise
// every rank that published an address with the same provider. A rank never
// reaches itself (that is transport/self).
//
// Liveness. libfabric 1.17 reports no dead peer (a receive posted for a
// killed peer waits forever), so the transport watches peers itself. A
// peer on this host: a pidfd per peer (pid from the modex) in the wait set,
// checked every liveness_ms while busy and waking a blocked wait. A peer on
// another host: a failed send (CQ error: tcp;ofi_rxm reports the lost
// connection on the sends queued on it) fails the peer; a rank that only
// waits to receive from a dead remote peer learns it from the launcher,
// which ends the job when a rank dies. A peer that sent kBye (its finalize)
// exited cleanly; any other exit is reported once through Host::peer_failed,
// after what it sent was delivered.
//
// Blocking waits (kCapWaitFd): only where the provider's CQ has an fd wait
// object (tcp;ofi_rxm, net). wait_fd() is then an epoll set holding the CQ's
// fd, the peers' pidfds and a timer; arm_wait() is fi_trywait(). The CQ's fd
// wakes for data on established connections only: tcp;ofi_rxm accepts and
// completes connections in fi_cq_read, and a connection request does not
// make the fd readable (measured: two ranks sleeping on it for their first
// frames wait forever). So while a reachable peer has no connection known to
// be up (no frame from it yet, no send to it completed), arm_wait() also
// arms the timer for kConnectTickMs, and the sleeper comes back to progress
// the handshake. shm and udp;ofi_rxd have no fd wait object: wait_fd() is -1
// and the engine polls with short sleeps.
//
// Single copy (kCapGet, where the provider has FI_RMA reads): see ofi_rma.cpp.
//
// Checkpoint/restart (kCapCheckpoint): see ofi_checkpoint.cpp.
//
// Threading: one thread at a time (the engine serializes), per transport.h;
// hence FI_THREAD_DOMAIN and manual progress (no libfabric thread).
#pragma once

#include <rdma/fabric.h>
#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "lazarus/frameworks/transport.h"
#include "lazarus/unique_fd.h"
#include "ofi_config.h"
#include "ofi_fabric.h"
#include "ofi_frame.h"

namespace lz::transport::ofi {

// The context of every operation posted to the endpoint (op_context).
struct OfiOp {
  enum Kind : uint8_t { kSend, kRecv, kRead } kind;
  int peer = -1;             // kSend: destination; kRead: the rank read from
  size_t bytes = 0;          // kSend: frame bytes (header included)
  Completion done;           // kRead: run once when the read completed or failed
  std::vector<char> buffer;  // kSend: the bounce copy; kRecv: the receive buffer
  bool posted = false;       // kRecv: owned by the endpoint now
  bool orphaned = false;     // kRead: failed with its peer, still posted (fail_reads)
  bool write = false;        // kRead: an fi_write (put_async), not an fi_read
  explicit OfiOp(Kind k) : kind(k) {}
};

// What this rank keeps about one other rank. Everything but `addr` and
// `pidfd` is process memory that survives a checkpoint.
struct OfiPeer {
  int rank = -1;
  bool reachable = false;   // connect() found a usable address
  bool local = false;       // same node id as this rank
  fi_addr_t addr = FI_ADDR_NOTAVAIL;
  pid_t pid = 0;
  uint64_t tag_out = 0, tag_in = 0;  // pair tags, this rank -> peer and back
  uint64_t epoch = 0;       // incarnation of its endpoint (modex): keys of other ones are refused
  uint32_t next_out = 0;    // sequence number of the next frame to the peer
  uint32_t next_in = 0;     // sequence number of the next frame to deliver
  std::map<uint32_t, std::string> early;  // completed before their predecessors
  size_t outstanding_bytes = 0;           // posted, uncompleted sends
  size_t outstanding_frames = 0;
  std::deque<std::vector<char>> backlog;  // accepted, not yet posted (no room in the provider)
  size_t backlog_bytes = 0;
  size_t pending_bytes() const { return outstanding_bytes + backlog_bytes; }
  bool connected = false;   // a frame came from it, or one to it completed
  bool finalized = false;   // kBye received
  bool failed = false;
  bool reported = false;
  Status failure;
  int64_t exit_seen_ms = 0;  // the pidfd fired; reported after a drain
  int quiet_turns = 0;       // progress turns with an empty CQ since then
  UniqueFd pidfd;
};

class OfiTransport final : public Module {
 public:
  explicit OfiTransport(OfiConfig config);
  ~OfiTransport() override;

  uint64_t capabilities() const override;
  Status init(Host& host) override;
  Status connect() override;
  bool reaches(int peer) const override;
  size_t max_frame() const override { return max_frame_; }
  Attributes attributes(int peer) const override;
  Status send(int peer, const struct iovec* iov, int iovcnt) override;
  int progress() override;
  Status finalize() override;
  size_t unsent_bytes(int peer) const override;
  int wait_fd() const override { return fabric_wait_ ? waitset_.get() : -1; }
  bool arm_wait() override;
  Status register_memory(const void* addr, size_t len, MemoryRegion* out) override;
  void deregister_memory(const MemoryRegion& region) override;
  Status get_async(int peer, void* local, size_t len, uint64_t remote, std::string_view key,
                   Completion done) override;
  Status put_async(int peer, const void* local, size_t len, uint64_t remote, std::string_view key,
                   Completion done) override;
  Status on_checkpoint() override;
  Status on_continue() override;
  Status on_restart() override;
  // What `lazarus info` shows (QueryContext::details).
  static std::vector<std::string> details(const OfiConfig& config);

  const OfiConfig& config() const { return config_; }
  // The provider in use (after init), e.g. "shm".
  const std::string& provider() const { return provider_; }
  bool checkpointed() const { return checkpointed_; }

 private:
  // Lifecycle (ofi_transport.cpp).
  std::string choose_provider() const;
  Status open_fabric();
  void close_fabric();
  Status publish();
  void compute_tags();
  OfiPeer* peer(int rank);
  const OfiPeer* peer(int rank) const;

  // Receiving (ofi_progress.cpp).
  Status post_receives();
  void repost(OfiOp* op);
  int read_cq();
  int on_frame(const char* data, size_t len);
  void dispatch(OfiPeer& p, const char* payload, size_t len);
  int deliver_stash();
  void complete_send(OfiOp* op, bool ok, const std::string& why);

  // Sending (ofi_send.cpp).
  Status post_frame(OfiPeer& p, FrameKind kind, const struct iovec* iov, int iovcnt, size_t payload);
  Status try_post(OfiPeer& p, std::vector<char>& frame);
  int flush_backlogs();
  std::vector<char> take_buffer();
  void recycle(std::vector<char> buf);

  static constexpr uint64_t kTickTag = ~uint64_t{0};  // epoll data of tick_
  static constexpr int kConnectTickMs = 2;

  // Liveness (ofi_liveness.cpp).
  void watch(OfiPeer& p);
  void unwatch(OfiPeer& p);
  void check_liveness(int cq_events);
  void fail_peer(OfiPeer& p, const Status& why);
  void report_failures();

  // Single copy (ofi_rma.cpp).
  // get_async() (fi_read) or, `write`, put_async() (fi_writemsg): one kRead op.
  Status start_rma(bool write, int peer_rank, void* local, size_t len, uint64_t remote, std::string_view key,
                   Completion done);
  void complete_read(OfiOp* op, bool ok, const std::string& why);
  // Closes every registration (before the domain): their keys are stale.
  void close_regions();
  // Reads still posted die with the endpoint (finalize, a failed peer).
  void drop_reads();
  // Completes with `why` every read from `rank` (a failed peer); see ofi_rma.cpp.
  void fail_reads(int rank, const Status& why);
  size_t reads_outstanding() const { return reads_.size() - orphaned_reads_; }

  // Checkpoint (ofi_checkpoint.cpp).
  Status reopen(bool restarted);

  // Connections with the local peers before the first frame (ofi_wireup.cpp).
  Status wire_up();

  OfiConfig config_;
  Host* host_ = nullptr;
  int rank_ = -1;
  std::string provider_;      // resolved in init (auto -> shm or tcp;ofi_rxm)
  size_t max_frame_ = 0;
  OfiFabric fabric_;
  bool fabric_wait_ = false;  // the provider's CQ has a pollable fd
  bool use_inject_ = false;   // fi_inject puts frames where the peer reads them
  UniqueFd waitset_;          // epoll: the CQ's fd, the local peers' pidfds, tick_
  UniqueFd tick_;             // timerfd: wakes a wait while connections may be in the making
  std::vector<OfiPeer> peers_;  // by rank (ours unused)
  std::vector<std::unique_ptr<OfiOp>> recv_ops_;
  std::unordered_map<OfiOp*, std::unique_ptr<OfiOp>> sends_;  // posted sends
  std::vector<OfiOp*> to_repost_;   // receive buffers the endpoint refused (EAGAIN)
  std::vector<std::vector<char>> free_buffers_;
  std::vector<char> scratch_;       // an injected frame is assembled here
  size_t outstanding_ = 0;          // posted sends over all peers
  size_t outstanding_cap_ = 0;      // min(max_outstanding, provider tx size)
  std::deque<std::pair<int, std::string>> stash_;  // read by on_checkpoint, delivered first
  std::vector<int> to_report_;
  std::vector<pid_t> known_pids_;   // every pid a rank of this job published (stale-file sweep)
  bool in_progress_ = false;
  bool stashing_ = false;
  bool checkpointed_ = false;
  bool armed_ = false;
  int64_t last_check_ms_ = 0;
  uint64_t dropped_ = 0;            // frames refused (stranger, bad tag, duplicate)
  bool rma_ = false;                // the open endpoint has FI_RMA reads
  bool rma_write_ = false;          // ... and writes (put_async)
  uint64_t epoch_ = 0;              // incarnation of the open endpoint, published; in every key
  std::map<uint64_t, fid_mr*> regions_;  // registrations by MemoryRegion::handle
  uint64_t next_region_ = 1;        // handles, and our requested keys (without FI_MR_PROV_KEY)
  std::unordered_map<OfiOp*, std::unique_ptr<OfiOp>> reads_;  // posted fi_read()s
  size_t orphaned_reads_ = 0;                                  // of them, failed with their peer
};

}  // namespace lz::transport::ofi
