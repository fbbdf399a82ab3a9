// TcpTransport, accepting side: incoming connections wait in pending_
// slots until they authenticate; decide() then settles a connection race
// (the lower rank's connection wins) and attaches the winner to its pair.
#include "tcp_transport.h"

#include "lazarus/log.h"

namespace lz::transport::tcp {
namespace {
constexpr int kAcceptsPerEvent = 16;
}  // namespace

void TcpTransport::on_listener(uint32_t index) {
  for (int i = 0; i < kAcceptsPerEvent; ++i) {
    auto acc = listener_.accept_one(index);
    if (!acc) return;
    if (pending_count_ >= static_cast<size_t>(config_.max_pending_accepts)) {
      // Refuse the oldest (the earliest deadline): a flood of silent strangers
      // cannot keep a real peer's connection out.
      uint32_t oldest = 0;
      double when = 0;
      for (uint32_t s = 0; s < pending_.size(); ++s)
        if (pending_[s] && (when == 0 || pending_[s]->deadline() < when)) {
          oldest = s;
          when = pending_[s]->deadline();
        }
      refuse(oldest, "too many connections waiting to authenticate");
    }
    const double deadline = now_seconds() + config_.handshake_timeout;
    auto c = TcpConnection::accepted(std::move(acc->fd), acc->peer, cctx_, deadline);
    uint32_t slot;
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
    } else {
      slot = static_cast<uint32_t>(pending_.size());
      pending_.emplace_back();
    }
    const uint32_t events = EPOLLIN | (c->wants_write() ? EPOLLOUT : 0u);
    if (Status s = poller_.add(c->fd(), PollKind::kPending, slot, events); !s.ok()) {
      log::warn("tcp: %s", s.message().c_str());
      free_slots_.push_back(slot);
      continue;
    }
    pending_[slot] = std::move(c);
    ++pending_count_;
    poller_.arm_deadline(deadline);
  }
}

void TcpTransport::refuse(uint32_t slot, const std::string& why, bool quiet) {
  std::unique_ptr<TcpConnection> c = std::move(pending_[slot]);
  if (!c) return;
  if (quiet) {
    log::debug("tcp: connection from %s closed before authenticating: %s", c->remote().to_string().c_str(),
               why.c_str());
  } else {
    log::warn("refused unauthenticated tcp connection from %s: %s", c->remote().to_string().c_str(), why.c_str());
    ++stats_.refused;
  }
  poller_.remove(c->fd());
  bury(std::move(c));
  free_slots_.push_back(slot);
  --pending_count_;
}

void TcpTransport::on_pending(uint32_t slot, int fd) {
  if (slot >= pending_.size() || !pending_[slot] || pending_[slot]->fd() != fd) return;
  TcpConnection* c = pending_[slot].get();
  const TcpConnection::Event ev = c->advance();
  switch (ev.kind) {
    case TcpConnection::Event::kFailed:
      // A connection closed or reset before sending a single byte is not an
      // attack: it is usually the losing side of a simultaneous connect, or a
      // peer that finalized first. Close it quietly; anything that spoke and
      // failed is refused and logged.
      refuse(slot, ev.why.message(), /*quiet=*/c->nothing_received() && ev.why.code() != Code::kTimeout);
      return;
    case TcpConnection::Event::kAuthenticated: {
      std::unique_ptr<TcpConnection> owned = std::move(pending_[slot]);
      free_slots_.push_back(slot);
      --pending_count_;
      decide(std::move(owned), slot);
      return;
    }
    default:
      (void)poller_.modify(fd, PollKind::kPending, slot, EPOLLIN | (c->wants_write() ? EPOLLOUT : 0u));
      return;
  }
}

void TcpTransport::decide(std::unique_ptr<TcpConnection> c, uint32_t slot) {
  (void)slot;
  const int r = c->peer_rank();
  const int me = host_->rank();
  TcpEndpoint* ep = endpoint(r);
  auto drop = [&](Verdict v) {
    (void)c->send_verdict(v);
    poller_.remove(c->fd());
    bury(std::move(c));
  };
  if (c->auth_target() != static_cast<uint32_t>(me) || ep == nullptr) {
    log::debug("tcp: rank %d from %s wanted rank %u: stale address", r, c->remote().to_string().c_str(),
               c->auth_target());
    drop(Verdict::kWrongTarget);
    return;
  }
  // The connection initiated by the lower rank wins (see the header).
  bool accept = false;
  switch (ep->state()) {
    case TcpEndpoint::State::kIdle:
    case TcpEndpoint::State::kSuspended:  // we missed nothing: the peer continued first
    case TcpEndpoint::State::kWaitIncoming: accept = true; break;
    case TcpEndpoint::State::kConnecting: accept = r < me; break;
    default: accept = false; break;
  }
  if (!accept) {
    ++stats_.duplicates_refused;
    log::debug("tcp: refusing rank %d's connection: pair is %s", r, TcpEndpoint::state_name(ep->state()));
    drop(Verdict::kDuplicate);
    return;
  }
  if (Status s = c->send_verdict(Verdict::kAccept); !s.ok()) {
    log::debug("tcp: accepting rank %d failed: %s", r, s.to_string().c_str());
    poller_.remove(c->fd());
    bury(std::move(c));
    return;
  }
  if (ep->conn() != nullptr) bury(ep->detach());  // our own attempt lost the race
  if (Status s = ep->attach(std::move(c), /*already_registered=*/true); !s.ok()) {
    fail_endpoint(*ep, s);
    return;
  }
  ep->set_state(TcpEndpoint::State::kConnected);
  ep->handshake_retries = 0;
  ++stats_.accepted;
  log::debug("tcp: accepted rank %d from %s", r, ep->conn()->remote().to_string().c_str());
  Status err;
  ep->flush(&err);
  if (!err.ok()) fail_endpoint(*ep, err);
}

}  // namespace lz::transport::tcp
