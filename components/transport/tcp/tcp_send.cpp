// TcpTransport, sending side: send() queues a frame behind the pair's
// connection, made lazily on the first send; a connect that fails moves to
// the next published address, and a handshake with a live peer that fails
// is tried again later (retry_later) instead of giving up the pair.
#include "tcp_transport.h"

#include <algorithm>

#include "lazarus/frameworks/transport_iov.h"
#include "lazarus/log.h"

namespace lz::transport::tcp {

Status TcpTransport::send(int peer, const struct iovec* iov, int iovcnt) {
  TcpEndpoint* ep = endpoint(peer);
  if (checkpointed_ && ep != nullptr)
    return Status(Code::kWouldBlock, "tcp: checkpointed; no frame moves before connect()");
  if (ep == nullptr || ep->addresses().empty())
    return InvalidArgument("tcp cannot reach rank " + std::to_string(peer));
  const size_t total = iov_bytes(iov, iovcnt);
  if (total > config_.max_frame)
    return InvalidArgument("frame of " + std::to_string(total) + " bytes exceeds tcp max_frame " +
                           std::to_string(config_.max_frame));
  switch (ep->state()) {
    case TcpEndpoint::State::kFailed:
      return Status(Code::kAborted, "tcp connection to rank " + std::to_string(peer) + " failed: " +
                                        ep->failure.message());
    case TcpEndpoint::State::kPeerFinalized:
      return Status(Code::kAborted, "rank " + std::to_string(peer) + " has finalized");
    case TcpEndpoint::State::kIdle:
      start_connect(*ep);
      if (ep->state() == TcpEndpoint::State::kFailed)
        return Status(Code::kAborted, ep->failure.message());
      break;
    default:
      break;
  }
  Status s = ep->send_frame(iov, iovcnt, total, config_.send_queue_limit);
  if (!s.ok() && s.code() != Code::kWouldBlock) {
    fail_endpoint(*ep, s);
    return Status(Code::kAborted, s.message());
  }
  return s;
}

void TcpTransport::start_connect(TcpEndpoint& ep) {
  Status last = Unavailable("rank " + std::to_string(ep.rank()) + " published no reachable tcp address");
  while (ep.next_address < ep.addresses().size()) {
    const SockAddr& to = ep.addresses()[ep.next_address];
    const double deadline = now_seconds() + config_.connect_timeout;
    auto c = TcpConnection::connect_to(to, ep.rank(), cctx_, deadline);
    if (!c.ok()) {
      log::debug("tcp: %s", c.status().message().c_str());
      last = c.status();
      ++ep.next_address;
      continue;
    }
    if (Status s = ep.attach(std::move(*c), false); !s.ok()) {
      fail_endpoint(ep, s);
      return;
    }
    ep.set_state(TcpEndpoint::State::kConnecting);
    poller_.arm_deadline(deadline);
    return;
  }
  fail_endpoint(ep, last.with_context("cannot connect to rank " + std::to_string(ep.rank())));
}

void TcpTransport::attempt_failed(TcpEndpoint& ep, const Status& why) {
  const std::string where =
      ep.next_address < ep.addresses().size() ? ep.addresses()[ep.next_address].to_string() : "?";
  log::debug("tcp: connection to rank %d at %s failed: %s", ep.rank(), where.c_str(), why.to_string().c_str());
  ++ep.next_address;
  if (ep.next_address < ep.addresses().size()) {
    start_connect(ep);
    return;
  }
  fail_endpoint(ep, why.with_context("cannot connect to rank " + std::to_string(ep.rank()) + " (last tried " +
                                     where + ")"));
}

bool TcpTransport::retry_later(TcpEndpoint& ep, const TcpConnection& c, const Status& why) {
  // The connect reached the peer's listener, so the peer was alive; the
  // handshake then failed because the peer did not answer in time (busy
  // outside MPI) or closed the socket after its handshake_timeout. Such a
  // pair is not lost: connect again after a pause growing to 1 s, for as long
  // as the peer lives (a dead peer refuses the connect, which counts against
  // the address in attempt_failed). A peer that proves to be another rank or
  // fails the MAC is not retried.
  if (!c.reached_peer() || (why.code() != Code::kIo && why.code() != Code::kTimeout)) return false;
  const double pause = std::min(1.0, 0.01 * static_cast<double>(1 << std::min(ep.handshake_retries, 7)));
  ++ep.handshake_retries;
  log::debug("tcp: handshake with rank %d failed (%s); live peer, connecting again in %g s", ep.rank(),
             why.message().c_str(), pause);
  ep.set_state(TcpEndpoint::State::kWaitIncoming);
  ep.retry_at = now_seconds() + pause;
  poller_.arm_deadline(ep.retry_at);
  return true;
}

size_t TcpTransport::unsent_bytes(int peer) const {
  const TcpEndpoint* ep = endpoint(peer);
  if (ep == nullptr) return 0;
  switch (ep->state()) {
    case TcpEndpoint::State::kFailed:          // reported through Host::peer_failed
    case TcpEndpoint::State::kPeerFinalized:   // the peer reads no more
      return 0;
    default:
      return ep->queued_bytes();
  }
}

}  // namespace lz::transport::tcp
