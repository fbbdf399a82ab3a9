// TcpTransport, progress: one epoll turn dispatches listener, pending,
// endpoint and timer events; endpoints finish their outgoing handshake,
// read and deliver frames, and flush queued ones; failures decided during
// the turn are reported to the host at its end.
#include "tcp_transport.h"

#include "lazarus/log.h"
#include "tcp_frame.h"

namespace lz::transport::tcp {
namespace {
constexpr int kMaxEvents = 64;
// recv() calls per readable connection and progress turn: bounds the time one
// busy peer can hold the others back (level-triggered epoll brings us back).
constexpr int kReadsPerEvent = 8;
}  // namespace

int TcpTransport::progress() {
  if (host_ == nullptr || in_progress_ || checkpointed_) return 0;
  in_progress_ = true;
  int work = stashed_ != 0 ? deliver_stash() : 0;
  work += dispatch_events();
  report_failures();
  in_progress_ = false;
  return work;
}

int TcpTransport::dispatch_events() {
  int work = 0;
  epoll_event evs[kMaxEvents];
  const int n = poller_.poll(evs, kMaxEvents);
  for (int i = 0; i < n; ++i) {
    const PollTag t = PollTag::unpack(evs[i].data.u64);
    switch (t.kind) {
      case PollKind::kListener: on_listener(t.id); break;
      case PollKind::kPending: on_pending(t.id, t.fd); break;
      case PollKind::kEndpoint: on_endpoint(t.id, t.fd, evs[i].events, &work); break;
      case PollKind::kTimer: on_timer(); break;
    }
  }
  graveyard_.clear();
  return work;
}

void TcpTransport::report_failures() {
  // Swap first: the engine's handler may send, and so fail, again.
  while (!to_report_.empty()) {
    std::vector<int> now;
    now.swap(to_report_);
    for (int r : now) {
      ++stats_.failures_reported;
      host_->peer_failed(r, endpoint(r)->failure);
    }
  }
}

void TcpTransport::on_endpoint(uint32_t rank, int fd, uint32_t events, int* work) {
  TcpEndpoint* ep = endpoint(static_cast<int>(rank));
  if (ep == nullptr || ep->conn() == nullptr || ep->conn()->fd() != fd) return;  // stale event
  TcpConnection* c = ep->conn();
  if (!c->established()) {
    const TcpConnection::Event ev = c->advance();
    switch (ev.kind) {
      case TcpConnection::Event::kEstablished: {
        ep->set_state(TcpEndpoint::State::kConnected);
        ep->handshake_retries = 0;
        ++stats_.connected;
        log::debug("tcp: connected to rank %d at %s", ep->rank(), c->remote().to_string().c_str());
        Status err;
        if (ep->flush(&err)) ++*work;
        if (!err.ok()) fail_endpoint(*ep, err);
        ep->update_interest();
        return;
      }
      case TcpConnection::Event::kRejected:
        bury(ep->detach());
        if (ev.verdict == Verdict::kDuplicate) {
          // The peer's own connection wins; wait for it, but not forever.
          ep->set_state(TcpEndpoint::State::kWaitIncoming);
          ep->retry_at = now_seconds() + config_.connect_timeout;
          poller_.arm_deadline(ep->retry_at);
        } else {
          attempt_failed(*ep, ProtocolError("address belongs to another rank now"));
        }
        return;
      case TcpConnection::Event::kFailed: {
        std::unique_ptr<TcpConnection> dead = ep->detach();
        if (!retry_later(*ep, *dead, ev.why)) attempt_failed(*ep, ev.why);
        bury(std::move(dead));
        return;
      }
      default:
        ep->update_interest();
        return;
    }
  }
  // Read before writing: a peer that died may have left frames (and its EOF)
  // behind, and they are delivered before its failure is reported.
  if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
    read_endpoint(*ep, work);
    if (ep->conn() != c) return;
  }
  if (events & EPOLLOUT) {
    Status err;
    if (ep->flush(&err)) ++*work;
    if (!err.ok()) fail_endpoint(*ep, err);
  }
}

void TcpTransport::read_endpoint(TcpEndpoint& ep, int* work) {
  TcpConnection* c = ep.conn();
  for (int round = 0; round < kReadsPerEvent; ++round) {
    bool drained = false;
    int err = 0;
    const auto r = c->reader().fill(c->fd(), &drained, &err);
    if (r == TcpFrameReader::FillResult::kAgain) return;
    if (r == TcpFrameReader::FillResult::kEof || r == TcpFrameReader::FillResult::kError) {
      if (ep.checkpoint_received) {
        peer_checkpointed(ep);
      } else if (r == TcpFrameReader::FillResult::kEof && ep.bye_received) {
        log::debug("tcp: rank %d finalized", ep.rank());
        bury(ep.detach());
        ep.queue().clear();
        ep.set_state(TcpEndpoint::State::kPeerFinalized);
      } else if (r == TcpFrameReader::FillResult::kEof) {
        fail_endpoint(ep, IoError("rank " + std::to_string(ep.rank()) + " closed its tcp connection without finalizing"));
      } else {
        fail_endpoint(ep, ErrnoError("tcp: receive from rank " + std::to_string(ep.rank()), err));
      }
      return;
    }
    for (;;) {
      Status why;
      const TcpFrameReader::Item it = c->reader().next(&why, !stashing_);
      if (it.kind == TcpFrameReader::Item::kNone) break;
      if (it.kind == TcpFrameReader::Item::kBad) {
        log::error("tcp: protocol error on the connection with rank %d (%s): %s; closing it", ep.rank(),
                   c->remote().to_string().c_str(), why.message().c_str());
        fail_endpoint(ep, why);
        return;
      }
      if (it.kind == TcpFrameReader::Item::kControl) {
        if (it.code == kCheckpoint)
          ep.checkpoint_received = true;
        else
          ep.bye_received = true;  // kBye, the only other control code next() lets through
        continue;
      }
      if (it.kind == TcpFrameReader::Item::kHead) {
        // A large frame whose head is in: read the rest where the host wants
        // it (transport.h, placement), or buffer it whole.
        if (void* dst = host_->place(ep.rank(), it.data, it.len)) c->reader().place(static_cast<char*>(dst));
        else c->reader().decline();
        if (ep.conn() != c) return;
        continue;
      }
      if (it.kind == TcpFrameReader::Item::kPlaced) {
        ++ep.frames_received;
        ++*work;
        host_->deliver_placed(ep.rank(), it.data, it.len);
        if (ep.conn() != c) return;
        continue;
      }
      if (stashing_) {  // inside on_checkpoint(): keep it for the next progress()
        ep.stash.emplace_back(it.data, it.len);
        ++stashed_;
        continue;
      }
      ++ep.frames_received;
      ++*work;
      host_->deliver(ep.rank(), it.data, it.len);
      if (ep.conn() != c) return;  // the handler's send() failed this peer
    }
    if (drained) return;
  }
}

void TcpTransport::drop_placement(int src) {
  TcpEndpoint* ep = endpoint(src);
  if (ep != nullptr && ep->conn() != nullptr) ep->conn()->reader().drop();
}

}  // namespace lz::transport::tcp
