#include "tcp_connection.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace lz::transport::tcp {

TcpConnection::TcpConnection(UniqueFd fd, Role role, const SockAddr& remote, const ConnectionContext& ctx,
                             double deadline)
    : fd_(std::move(fd)),
      role_(role),
      phase_(role == Role::kConnector ? Phase::kConnecting : Phase::kAwaitAuth),
      remote_(remote),
      ctx_(ctx),
      deadline_(deadline),
      reader_(ctx.max_frame) {
  if (ctx.placement_head != 0) reader_.set_placement(ctx.placement_head, kPlaceFrom);
}

StatusOr<std::unique_ptr<TcpConnection>> TcpConnection::connect_to(const SockAddr& to, int peer,
                                                                   const ConnectionContext& ctx, double deadline) {
  LZ_ASSIGN_OR_RETURN(UniqueFd fd, new_tcp_socket(to.family()));
  tune_connection(fd.get(), ctx.sndbuf, ctx.rcvbuf);
  int r;
  do {
    r = ::connect(fd.get(), to.sa(), to.len);
  } while (r != 0 && errno == EINTR);
  if (r != 0 && errno != EINPROGRESS) return ErrnoError("tcp: connect to " + to.to_string(), errno);
  std::unique_ptr<TcpConnection> c(new TcpConnection(std::move(fd), Role::kConnector, to, ctx, deadline));
  c->peer_rank_ = peer;
  if (r == 0) c->phase_ = Phase::kAwaitHello;
  return c;
}

std::unique_ptr<TcpConnection> TcpConnection::accepted(UniqueFd fd, const SockAddr& from,
                                                       const ConnectionContext& ctx, double deadline) {
  tune_connection(fd.get(), ctx.sndbuf, ctx.rcvbuf);
  std::unique_ptr<TcpConnection> c(new TcpConnection(std::move(fd), Role::kAcceptor, from, ctx, deadline));
  c->my_nonce_ = auth::random_nonce();
  const auto hello = encode_hello(c->my_nonce_);
  c->queue_out(hello.data(), hello.size());
  // A fresh socket's send buffer takes 40 bytes; if not, advance() retries.
  (void)c->flush_out();
  return c;
}

void TcpConnection::queue_out(const unsigned char* p, size_t n) {
  std::memcpy(out_, p, n);
  out_len_ = n;
  out_off_ = 0;
}

Status TcpConnection::flush_out() {
  while (out_off_ < out_len_) {
    ssize_t w = ::send(fd_.get(), out_ + out_off_, out_len_ - out_off_, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w > 0) {
      out_off_ += static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Status::Ok();
    return ErrnoError("send", errno);
  }
  out_len_ = out_off_ = 0;
  return Status::Ok();
}

Status TcpConnection::read_message(HsKind kind, bool* complete) {
  const size_t want = handshake_size(kind);
  *complete = false;
  while (in_len_ < want) {
    // Exactly the message: frames that follow it stay in the socket for the reader.
    ssize_t r = ::recv(fd_.get(), in_ + in_len_, want - in_len_, MSG_DONTWAIT);
    if (r > 0) {
      in_len_ += static_cast<size_t>(r);
      total_in_ += static_cast<size_t>(r);
      if (!handshake_prefix_ok(kind, in_, in_len_)) return ProtocolError("malformed handshake");
      continue;
    }
    // kIo, not kProtocol: a live peer that gave up waiting for us closes
    // the same way, and the connector retries it (TcpTransport::retry_later).
    if (r == 0) return Status(Code::kIo, "connection closed during the handshake");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return Status::Ok();
    return ErrnoError("recv", errno);
  }
  *complete = true;
  in_len_ = 0;
  return Status::Ok();
}

TcpConnection::Event TcpConnection::advance() {
  Event ev;
  auto fail = [&](Status why) {
    phase_ = Phase::kDead;
    ev.kind = Event::kFailed;
    ev.why = std::move(why);
    return ev;
  };
  if (Status s = flush_out(); !s.ok()) return fail(s);
  bool complete = false;
  switch (phase_) {
    case Phase::kConnecting: {
      int err = 0;
      socklen_t len = sizeof err;
      if (getsockopt(fd_.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
      if (err == EINPROGRESS || err == EALREADY) return ev;
      if (err != 0) return fail(ErrnoError("connect", err));
      // Writable with no error: connected. Distinguish a spurious wakeup.
      sockaddr_storage ss;
      socklen_t sl = sizeof ss;
      if (getpeername(fd_.get(), reinterpret_cast<sockaddr*>(&ss), &sl) != 0) {
        if (errno == ENOTCONN) return ev;
        return fail(ErrnoError("getpeername", errno));
      }
      phase_ = Phase::kAwaitHello;
      reached_peer_ = true;
      [[fallthrough]];
    }
    case Phase::kAwaitHello: {
      if (Status s = read_message(HsKind::kHello, &complete); !s.ok()) return fail(s);
      if (!complete) return ev;
      auto server_nonce = decode_hello(in_);
      if (!server_nonce.ok()) return fail(server_nonce.status());
      my_nonce_ = auth::random_nonce();
      const auto msg = encode_auth(*ctx_.secret, static_cast<uint32_t>(ctx_.my_rank),
                                   static_cast<uint32_t>(peer_rank_), *server_nonce, my_nonce_);
      queue_out(msg.data(), msg.size());
      if (Status s = flush_out(); !s.ok()) return fail(s);
      phase_ = Phase::kAwaitVerdict;
      [[fallthrough]];
    }
    case Phase::kAwaitVerdict: {
      if (Status s = read_message(HsKind::kVerdict, &complete); !s.ok()) return fail(s);
      if (!complete) return ev;
      // Decode from a copy: in_ is reused.
      auto v = decode_verdict(in_);
      if (!v.ok()) return fail(v.status());
      if (!verify_verdict(*ctx_.secret, my_nonce_, *v))
        return fail(PermissionDenied("the acceptor could not prove knowledge of the job secret"));
      if (static_cast<int>(v->rank) != peer_rank_)
        return fail(ProtocolError("reached rank " + std::to_string(v->rank) + " instead of rank " +
                                  std::to_string(peer_rank_)));
      if (v->verdict != Verdict::kAccept) {
        phase_ = Phase::kDead;
        ev.kind = Event::kRejected;
        ev.verdict = v->verdict;
        return ev;
      }
      phase_ = Phase::kEstablished;
      ev.kind = Event::kEstablished;
      return ev;
    }
    case Phase::kAwaitAuth: {
      if (Status s = read_message(HsKind::kAuth, &complete); !s.ok()) return fail(s);
      if (!complete) return ev;
      auto a = decode_auth(in_);
      if (!a.ok()) return fail(a.status());
      if (a->rank >= static_cast<uint32_t>(ctx_.size) || static_cast<int>(a->rank) == ctx_.my_rank)
        return fail(ProtocolError("claims impossible rank " + std::to_string(a->rank)));
      if (!verify_auth(*ctx_.secret, my_nonce_, *a)) return fail(PermissionDenied("wrong MAC"));
      peer_rank_ = static_cast<int>(a->rank);
      auth_target_ = a->target;
      my_nonce_ = a->client_nonce;  // the verdict answers the connector's challenge
      phase_ = Phase::kAuthenticated;
      ev.kind = Event::kAuthenticated;
      return ev;
    }
    case Phase::kAuthenticated:
    case Phase::kEstablished:
    case Phase::kDead:
      return ev;
  }
  return ev;
}

Status TcpConnection::send_verdict(Verdict v) {
  const auto msg = encode_verdict(*ctx_.secret, v, static_cast<uint32_t>(ctx_.my_rank), my_nonce_);
  queue_out(msg.data(), msg.size());
  LZ_RETURN_IF_ERROR(flush_out());
  if (out_off_ < out_len_) {
    // 48 bytes on a socket that has sent only 40: the kernel always takes them.
    // Treat the impossible as a failed handshake rather than interleaving with frames.
    phase_ = Phase::kDead;
    return IoError("could not send the handshake verdict");
  }
  phase_ = v == Verdict::kAccept ? Phase::kEstablished : Phase::kDead;
  return Status::Ok();
}

}  // namespace lz::transport::tcp
