// transport/tcp: frames over TCP sockets, between ranks on any hosts.
//
// One connection per pair of ranks, made lazily by the first send() in either
// direction. When both ranks send first, both connect; the handshake settles
// it: the connection initiated by the LOWER rank wins everywhere (an acceptor
// that is itself connecting to a higher-ranked peer refuses that peer's
// connection with kDuplicate, and the refused side waits for the winning one).
// Frames are never written before the handshake is accepted, so nothing is
// lost with the losing connection. See tcp_handshake.h for authentication.
//
// A live peer is never given up on because it was slow: an accepted socket
// that stays silent past handshake_timeout is closed quietly, and a
// connector whose handshake failed after its TCP connect succeeded (the
// peer's listener was there) connects again with a growing pause
// (retry_later). Frames queued meanwhile stay queued, in order; the engine
// waits for unsent_bytes() to reach 0 before MPI_Finalize's barrier.
//
// Checkpoint/restart (kCapCheckpoint): a core image must hold no inet socket.
//   on_checkpoint(): refuses (kWouldBlock, nothing closed) while a frame from
//     a peer is unread (in our socket or reader); pushes out frames still
//     queued to peers (connecting if need be; kTimeout after
//     transport_tcp_checkpoint_timeout, nothing closed); then on every
//     connection sends a kCheckpoint control frame, half-closes and reads to
//     the peer's EOF (frames that still come are kept in the endpoint's stash,
//     in order, for the next progress()), and closes the listener, every
//     connection and every half-open accept. Endpoints (queues, counters,
//     state) survive in process memory, suspended (kSuspended).
//   A peer that is not yet checkpointing reads our kCheckpoint + EOF in
//     progress() and suspends the pair too (no failure is reported).
//   on_continue()/on_restart(): open a new listener (new ports) and publish it
//     in the modex; restart also re-selects interfaces (maybe another host),
//     re-reads the job secret (a new launcher) and forgets failures of the
//     old process set. After the engine's fence, connect() re-reads every
//     address; pairs reconnect lazily on the next send (at once if frames
//     were queued while suspended). The handshake's mutual MAC and target
//     rank refuse a stale address that now belongs to someone else.
//
// Threading: one thread at a time (the engine serializes), per transport.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lazarus/frameworks/transport.h"
#include "tcp_config.h"
#include "tcp_connection.h"
#include "tcp_endpoint.h"
#include "tcp_interfaces.h"
#include "tcp_listener.h"
#include "tcp_poller.h"

namespace lz::transport::tcp {

inline constexpr const char* kModexKey = "transport.tcp.addr";

class TcpTransport final : public Module {
 public:
  explicit TcpTransport(TcpConfig config);
  ~TcpTransport() override;

  // Everything the checkpoint hooks close and re-create lives in
  // TcpListener/TcpConnection; everything they keep lives in TcpEndpoint.
  uint64_t capabilities() const override { return kCapWaitFd | kCapCheckpoint; }
  Status init(Host& host) override;
  Status on_checkpoint() override;
  Status on_continue() override;
  Status on_restart() override;
  // True between a successful on_checkpoint() and the next connect().
  bool checkpointed() const { return checkpointed_; }
  Status connect() override;
  bool reaches(int peer) const override;
  size_t max_frame() const override { return config_.max_frame; }
  // Nominal figures of loopback on the reference VM (tests/perf): every
  // other transport that reaches a peer is preferred.
  Attributes attributes(int peer) const override {
    (void)peer;
    Attributes a;
    a.exclusivity = 10;
    a.latency_us = 10;
    a.bandwidth_mbs = 2500;
    return a;
  }
  Status send(int peer, const struct iovec* iov, int iovcnt) override;
  int progress() override;
  Status finalize() override;
  int wait_fd() const override { return poller_.fd(); }
  // Every source of work is in the epoll set except failures decided inside
  // send(), which progress() reports: do not sleep while one is pending.
  bool arm_wait() override { return to_report_.empty() && stashed_ == 0; }
  // Bytes queued to `peer`: behind a full socket, a handshake under way, or a
  // connection to be made again after a checkpoint.
  size_t unsent_bytes(int peer) const override;
  // A frame being placed for the host from `src` (tcp_frame_reader.h): the
  // rest of it is read and discarded.
  void drop_placement(int src) override;

  // Observability for tests and `lazarus` diagnostics.
  struct Stats {
    uint64_t accepted = 0;             // authenticated incoming connections kept
    uint64_t connected = 0;            // outgoing connections established
    uint64_t refused = 0;              // connections that spoke and failed to authenticate
    uint64_t silent_closed = 0;        // accepted connections that sent nothing by handshake_timeout
    uint64_t duplicates_refused = 0;   // connection races settled
    uint64_t failures_reported = 0;    // Host::peer_failed calls
  };
  const Stats& stats() const { return stats_; }
  const TcpConfig& config() const { return config_; }
  const TcpListener& listener() const { return listener_; }
  // State of the pair with `peer` (for tests).
  TcpEndpoint::State peer_state(int peer) const;

 private:
  // Lifecycle and shared bookkeeping (tcp_transport.cpp).
  TcpEndpoint* endpoint(int peer) const;
  std::vector<SockAddr> order_addresses(int peer, const std::string& published, Status* err) const;
  void fail_endpoint(TcpEndpoint& ep, const Status& why);
  void bury(std::unique_ptr<TcpConnection> c);

  // Outgoing connections (tcp_send.cpp).
  void start_connect(TcpEndpoint& ep);
  void attempt_failed(TcpEndpoint& ep, const Status& why);
  // A handshake with a live peer failed: schedules a new attempt (true), or
  // leaves the failure to attempt_failed (false).
  bool retry_later(TcpEndpoint& ep, const TcpConnection& c, const Status& why);

  // Incoming connections (tcp_accept.cpp).
  void on_listener(uint32_t index);
  void on_pending(uint32_t slot, int fd);
  void decide(std::unique_ptr<TcpConnection> c, uint32_t slot);
  void refuse(uint32_t slot, const std::string& why, bool quiet = false);

  // Progress turn (tcp_progress.cpp).
  int dispatch_events();
  void on_endpoint(uint32_t rank, int fd, uint32_t events, int* work);
  void read_endpoint(TcpEndpoint& ep, int* work);
  void report_failures();

  // Handshake deadlines and retries (tcp_deadlines.cpp).
  void on_timer();
  void arm_deadlines();

  // Orderly close at finalize (tcp_finalize.cpp).
  Status finalize_connections();

  // Checkpoint hooks (tcp_checkpoint.cpp).
  int deliver_stash();
  void peer_checkpointed(TcpEndpoint& ep);
  std::string unread_from_peers() const;
  Status flush_for_checkpoint(double deadline);
  void close_for_checkpoint(double deadline);
  Status reopen(bool restarted);

  TcpConfig config_;
  Host* host_ = nullptr;
  std::string secret_;
  ConnectionContext cctx_;
  std::vector<NetInterface> interfaces_;
  TcpPoller poller_;
  TcpListener listener_;
  std::vector<std::unique_ptr<TcpEndpoint>> endpoints_;  // by rank; null for self
  std::vector<std::unique_ptr<TcpConnection>> pending_;  // accepted, not yet authenticated; by slot
  std::vector<uint32_t> free_slots_;
  size_t pending_count_ = 0;
  std::vector<std::unique_ptr<TcpConnection>> graveyard_;  // closed at the end of progress()
  std::vector<int> to_report_;
  bool in_progress_ = false;
  bool checkpointed_ = false;  // sockets closed; connect() ends it
  bool stashing_ = false;      // inside on_checkpoint: frames read go to the stash
  size_t stashed_ = 0;         // frames in all stashes
  Stats stats_;
};

}  // namespace lz::transport::tcp
