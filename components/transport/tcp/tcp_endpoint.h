// Everything transport/tcp knows about one peer: its published addresses, the
// frames waiting for it (TcpSendQueue), the state of the pair, and the
// current connection if any. The endpoint outlives connections: a connection
// lost to the simultaneous-connect rule, or closed by a checkpoint, is
// replaced without touching the queue, so frames stay exactly-once and in order.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "lazarus/status.h"
#include "tcp_connection.h"
#include "tcp_poller.h"
#include "tcp_send_queue.h"
#include "tcp_socket.h"

namespace lz::transport::tcp {

class TcpEndpoint {
 public:
  enum class State {
    kIdle,            // no connection, none being made
    kConnecting,      // our outgoing connection is in its TCP connect or handshake
    kWaitIncoming,    // our attempt lost the connection race; the peer's is coming
    kConnected,       // frames flow on conn()
    kPeerFinalized,   // the peer said bye and closed
    kFailed,          // lost for good (reported through Host::peer_failed)
    kSuspended,       // closed by a checkpoint (ours or the peer's): frames sent
                      // now are queued (whole) until connect() reads the peer's
                      // new address and reconnects
  };

  TcpEndpoint(int rank, TcpPoller* poller) : rank_(rank), poller_(poller) {}
  ~TcpEndpoint();
  TcpEndpoint(const TcpEndpoint&) = delete;
  TcpEndpoint& operator=(const TcpEndpoint&) = delete;

  int rank() const { return rank_; }
  State state() const { return state_; }
  void set_state(State s) { state_ = s; }
  static const char* state_name(State s);

  // Addresses in the order to try them; `next_address` indexes the next attempt.
  std::vector<SockAddr>& addresses() { return addresses_; }
  const std::vector<SockAddr>& addresses() const { return addresses_; }
  size_t next_address = 0;
  // kWaitIncoming: when to try connecting ourselves again (monotonic seconds).
  double retry_at = 0;
  // Handshakes with a live peer that failed in a row (retry_later backs off
  // with it); 0 once a connection is established.
  int handshake_retries = 0;
  // Set once the peer's bye frame arrived; its EOF is then orderly.
  bool bye_received = false;
  // Set once the peer's checkpoint frame arrived; its EOF then suspends the pair.
  bool checkpoint_received = false;
  // Frames read while a checkpoint closed the connection (a peer that did not
  // hold its sends): process memory, delivered first by the next progress().
  std::deque<std::string> stash;
  // Set once Host::peer_failed has been called (or queued) for this peer.
  bool failure_reported = false;
  Status failure;

  TcpConnection* conn() const { return conn_.get(); }
  // Takes a connection and registers it with the poller (re-tagging it if it
  // is already registered as a pending accept).
  Status attach(std::unique_ptr<TcpConnection> c, bool already_registered);
  // Unregisters and hands back the connection (to close, or to keep alive
  // until the current progress turn ends).
  std::unique_ptr<TcpConnection> detach();

  // Data path. Writes the frame directly when connected with nothing queued
  // (queueing the unsent tail), else queues it. kWouldBlock when more than
  // `queue_limit` bytes already wait. A socket error is returned as is; the
  // caller fails the endpoint.
  Status send_frame(const struct iovec* iov, int iovcnt, size_t payload, size_t queue_limit);
  // Writes queued bytes while the socket takes them. Returns true if the
  // queue became empty in this call.
  bool flush(Status* err);
  bool queue_empty() const { return queue_.empty(); }
  size_t queued_bytes() const { return queue_.size(); }
  TcpSendQueue& queue() { return queue_; }
  // Registers EPOLLOUT exactly while there is something to write.
  void update_interest();

  // Counters (exact; the checkpoint drain and debugging read them).
  uint64_t frames_sent = 0, frames_received = 0;

 private:
  int rank_;
  TcpPoller* poller_;
  State state_ = State::kIdle;
  std::vector<SockAddr> addresses_;
  TcpSendQueue queue_;
  std::unique_ptr<TcpConnection> conn_;
  uint32_t registered_events_ = 0;
};

}  // namespace lz::transport::tcp
