// One TCP connection of transport/tcp: the socket, its authentication
// handshake (tcp_handshake.h) and, once established, its incoming frame
// reader. A connection holds no per-peer sequence state — the endpoint does —
// so it can be dropped and replaced (a lost connection race, a checkpoint)
// without losing or reordering frames.
//
// The handshake is driven by readiness events, never by a blocking read:
// advance() reads and writes only what the socket takes now, and the owner
// refuses the connection when deadline() passes.
#pragma once

#include <memory>
#include <string>

#include "lazarus/auth.h"
#include "lazarus/status.h"
#include "tcp_frame_reader.h"
#include "tcp_handshake.h"
#include "tcp_socket.h"

namespace lz::transport::tcp {

// What a connection needs to know about its module.
struct ConnectionContext {
  const std::string* secret = nullptr;
  int my_rank = -1;
  int size = 0;
  size_t max_frame = 0;
  size_t placement_head = 0;  // Host::placement_head(); 0: frames are never placed
  int64_t sndbuf = 0, rcvbuf = 0;
};

class TcpConnection {
 public:
  enum class Role { kConnector, kAcceptor };
  enum class Phase {
    kConnecting,     // connector: non-blocking connect() in progress
    kAwaitHello,     // connector: waiting for the acceptor's nonce
    kAwaitVerdict,   // connector: AUTH sent
    kAwaitAuth,      // acceptor: HELLO sent, waiting for AUTH
    kAuthenticated,  // acceptor: AUTH verified; the module calls send_verdict()
    kEstablished,    // frames flow
    kDead,
  };
  struct Event {
    enum Kind {
      kNone,           // nothing decided yet
      kAuthenticated,  // acceptor: peer_rank() proved itself
      kEstablished,    // connector: the acceptor accepted
      kRejected,       // connector: the acceptor answered `verdict`
      kFailed,         // handshake failed: `why`; close the connection
    } kind = kNone;
    Verdict verdict = Verdict::kAccept;
    Status why;
  };

  // Starts connecting to `to` for reaching `peer`.
  static StatusOr<std::unique_ptr<TcpConnection>> connect_to(const SockAddr& to, int peer,
                                                             const ConnectionContext& ctx, double deadline);
  // Takes an accepted socket and sends HELLO.
  static std::unique_ptr<TcpConnection> accepted(UniqueFd fd, const SockAddr& from, const ConnectionContext& ctx,
                                                 double deadline);

  // Advances the handshake after a readiness event (any of in/out/err).
  Event advance();
  // Acceptor, in kAuthenticated: answers the connector. kAccept moves to
  // kEstablished; any other verdict leaves the connection to be closed.
  Status send_verdict(Verdict v);

  int fd() const { return fd_.get(); }
  Role role() const { return role_; }
  Phase phase() const { return phase_; }
  bool established() const { return phase_ == Phase::kEstablished; }
  // The rank at the other end: the target for a connector, the proven rank for an acceptor.
  int peer_rank() const { return peer_rank_; }
  const SockAddr& remote() const { return remote_; }
  // Handshake deadline (monotonic seconds).
  double deadline() const { return deadline_; }
  // True while handshake bytes wait for the socket to take them, or connect() is pending.
  bool wants_write() const { return phase_ == Phase::kConnecting || out_off_ < out_len_; }
  // The number of the connector's AUTH target (acceptor, after kAuthenticated).
  uint32_t auth_target() const { return auth_target_; }
  // Not a single byte has been received on this connection.
  bool nothing_received() const { return total_in_ == 0; }
  // Connector: the TCP connect succeeded, so a listener of the peer's was
  // there (the process was alive) even if the handshake then failed.
  bool reached_peer() const { return reached_peer_; }

  TcpFrameReader& reader() { return reader_; }

 private:
  TcpConnection(UniqueFd fd, Role role, const SockAddr& remote, const ConnectionContext& ctx, double deadline);
  Status flush_out();
  // Reads toward `want` handshake bytes of `kind`; Ok with *complete on success.
  Status read_message(HsKind kind, bool* complete);
  void queue_out(const unsigned char* p, size_t n);

  UniqueFd fd_;
  Role role_;
  Phase phase_;
  SockAddr remote_;
  ConnectionContext ctx_;
  double deadline_;
  int peer_rank_ = -1;
  uint32_t auth_target_ = 0;
  auth::Nonce my_nonce_{};
  unsigned char in_[kMaxHandshakeBytes];
  size_t in_len_ = 0;
  size_t total_in_ = 0;  // every handshake byte received, for nothing_received()
  bool reached_peer_ = false;
  unsigned char out_[kMaxHandshakeBytes];
  size_t out_len_ = 0, out_off_ = 0;
  TcpFrameReader reader_;
};

}  // namespace lz::transport::tcp
