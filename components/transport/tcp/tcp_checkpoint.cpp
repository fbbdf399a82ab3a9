// TcpTransport, checkpoint/continue/restart hooks (contract in
// tcp_transport.h): drain, close every socket in order, keep the pairs'
// state in process memory, and re-open a listener afterwards.
#include "tcp_transport.h"

#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdio>

#include "lazarus/log.h"
#include "tcp_frame.h"

namespace lz::transport::tcp {

// Frames kept by on_checkpoint go first: they were sent before anything that
// can come on a new connection.
int TcpTransport::deliver_stash() {
  int n = 0;
  for (auto& ep : endpoints_) {
    if (!ep) continue;
    while (!ep->stash.empty()) {
      std::string f = std::move(ep->stash.front());
      ep->stash.pop_front();
      --stashed_;
      ++ep->frames_received;
      ++n;
      host_->deliver(ep->rank(), f.data(), f.size());
    }
  }
  return n;
}

void TcpTransport::peer_checkpointed(TcpEndpoint& ep) {
  // The peer closed the connection for a checkpoint after its kCheckpoint
  // frame. Everything we wrote is on the wire; a queue that cannot empty now
  // (the peer reads no more) means frames sent after the drain were lost.
  Status err;
  if (!ep.queue_empty()) ep.flush(&err);
  const size_t left = ep.queue().size();
  bury(ep.detach());
  ep.checkpoint_received = false;
  if (left != 0) {
    fail_endpoint(ep, DataLoss("rank " + std::to_string(ep.rank()) + " closed its connection for a checkpoint with " +
                               std::to_string(left) + " bytes of frames to it unsent (sends were not held)"));
    return;
  }
  ep.set_state(TcpEndpoint::State::kSuspended);
  log::debug("tcp: rank %d closed its connection for a checkpoint", ep.rank());
}

// Data a peer sent that this rank has not delivered: in the reader (part of a
// frame: complete ones are always delivered in the same turn) or unread in
// the socket. A lone control frame (the peer's own kCheckpoint or bye) is not
// data. "" when drained.
std::string TcpTransport::unread_from_peers() const {
  std::string out;
  for (const auto& ep : endpoints_) {
    if (!ep || !ep->conn() || !ep->conn()->established()) continue;
    TcpConnection* c = ep->conn();
    size_t bytes = c->reader().buffered();
    int inq = 0;
    if (::ioctl(c->fd(), FIONREAD, &inq) == 0 && inq > 0) {
      unsigned char hdr[kFrameHeaderBytes];
      const ssize_t n = ::recv(c->fd(), hdr, sizeof hdr, MSG_PEEK | MSG_DONTWAIT);
      const bool lone_control = bytes == 0 && inq == static_cast<int>(kFrameHeaderBytes) &&
                                n == static_cast<ssize_t>(kFrameHeaderBytes) &&
                                (decode_frame_header(hdr) & kControlBit) != 0;
      if (!lone_control) bytes += static_cast<size_t>(inq);
    }
    if (bytes != 0)
      out += (out.empty() ? "" : ", ") + std::to_string(bytes) + " bytes from rank " + std::to_string(ep->rank());
  }
  return out;
}

Status TcpTransport::flush_for_checkpoint(double deadline) {
  for (;;) {
    std::string waiting;
    for (const auto& ep : endpoints_) {
      if (!ep || ep->queue_empty()) continue;
      const auto st = ep->state();
      if (st == TcpEndpoint::State::kConnected || st == TcpEndpoint::State::kConnecting ||
          st == TcpEndpoint::State::kWaitIncoming)
        waiting += (waiting.empty() ? "" : ", ") + std::to_string(ep->rank());
    }
    if (waiting.empty()) return Status::Ok();
    if (now_seconds() >= deadline) {
      char why[160];
      std::snprintf(why, sizeof why, "tcp: not drained: frames queued to rank(s) %s were not taken within %g s "
                    "(transport_tcp_checkpoint_timeout)", waiting.c_str(), config_.checkpoint_timeout);
      return Timeout(why);
    }
    in_progress_ = true;
    dispatch_events();
    in_progress_ = false;
    pollfd p{poller_.fd(), POLLIN, 0};
    (void)::poll(&p, 1, 1);
  }
}

// Orderly close of every connection: kCheckpoint, half-close, read to the
// peer's EOF (it does the same in its own on_checkpoint, or in progress()),
// so no close ever turns into a reset that could destroy unread bytes.
void TcpTransport::close_for_checkpoint(double deadline) {
  struct Closing {
    TcpEndpoint* ep;
    bool write_done = false;
    bool done = false;
  };
  std::vector<Closing> closing;
  for (auto& ep : endpoints_) {
    if (!ep || !ep->conn()) continue;
    if (!ep->conn()->established()) {  // a handshake with nothing queued behind it
      bury(ep->detach());
      continue;
    }
    unsigned char mark[kFrameHeaderBytes];
    encode_frame_header(kControlBit | kCheckpoint, mark);
    ep->queue().append(mark, sizeof mark);
    closing.push_back({ep.get()});
  }
  size_t open = closing.size();
  while (open > 0) {
    const double left = deadline - now_seconds();
    if (left <= 0) {
      log::debug("tcp: %zu peer(s) did not close within checkpoint_timeout; closing without their answer", open);
      break;
    }
    std::vector<pollfd> fds;
    std::vector<Closing*> who;
    for (auto& cl : closing) {
      if (cl.done) continue;
      const int fd = cl.ep->conn()->fd();
      if (!cl.write_done) {
        Status err;
        cl.ep->flush(&err);
        if (!err.ok() || cl.ep->queue_empty()) {
          ::shutdown(fd, SHUT_WR);
          cl.write_done = true;
        }
      }
      fds.push_back({fd, static_cast<short>(POLLIN | (cl.write_done ? 0 : POLLOUT)), 0});
      who.push_back(&cl);
    }
    if (::poll(fds.data(), fds.size(), static_cast<int>(left * 1000) + 1) < 0 && errno != EINTR) break;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLERR | POLLHUP))) continue;
      Closing& cl = *who[i];
      TcpEndpoint& ep = *cl.ep;
      TcpConnection* c = ep.conn();
      for (;;) {
        bool drained = false;
        int err = 0;
        const auto r = c->reader().fill(c->fd(), &drained, &err);
        if (r == TcpFrameReader::FillResult::kAgain) break;
        if (r != TcpFrameReader::FillResult::kData) {
          cl.done = true;  // EOF (or a reset after the peer gave up waiting)
          break;
        }
        Status why;
        for (TcpFrameReader::Item it = c->reader().next(&why); it.kind != TcpFrameReader::Item::kNone;
             it = c->reader().next(&why)) {
          if (it.kind == TcpFrameReader::Item::kBad) {
            log::warn("tcp: rank %d broke the protocol while closing for a checkpoint: %s", ep.rank(),
                      why.message().c_str());
            cl.done = true;
            break;
          }
          if (it.kind == TcpFrameReader::Item::kControl) {
            if (it.code == kBye) ep.bye_received = true;
            continue;
          }
          log::debug("tcp: rank %d sent a frame during the checkpoint; kept for delivery after it", ep.rank());
          ep.stash.emplace_back(it.data, it.len);
          ++stashed_;
        }
        if (cl.done || drained) break;
      }
      if (cl.done) --open;
    }
  }
  for (auto& cl : closing) {
    TcpEndpoint& ep = *cl.ep;
    bury(ep.detach());
    ep.queue().clear();  // at most our kCheckpoint frame, if the peer never read
    if (cl.done && ep.bye_received) ep.set_state(TcpEndpoint::State::kPeerFinalized);
  }
}

Status TcpTransport::on_checkpoint() {
  if (host_ == nullptr) return Internal("tcp: on_checkpoint() before init()");
  if (checkpointed_) return Internal("tcp: on_checkpoint() twice without continue/restart and connect()");
  if (in_progress_) return Internal("tcp: on_checkpoint() from inside progress()");
  // Precondition (transport.h): the crcp drain delivered every frame sent to
  // this rank. Refused before anything is closed: progress, then try again.
  if (stashed_ != 0)
    return Status(Code::kWouldBlock, "tcp: not drained: " + std::to_string(stashed_) +
                                         " frame(s) kept by an earlier checkpoint attempt are not delivered yet");
  if (std::string unread = unread_from_peers(); !unread.empty())
    return Status(Code::kWouldBlock, "tcp: not drained: " + unread + " not yet delivered (progress, then checkpoint again)");

  const double deadline = now_seconds() + config_.checkpoint_timeout;
  stashing_ = true;
  // Frames accepted by send() but still queued (a full socket, a handshake in
  // progress) go out first; their receiver is draining them.
  if (Status s = flush_for_checkpoint(deadline); !s.ok()) {
    stashing_ = false;
    return s;
  }
  close_for_checkpoint(deadline);
  stashing_ = false;

  for (auto& c : pending_)
    if (c) poller_.remove(c->fd());
  pending_.clear();
  free_slots_.clear();
  pending_count_ = 0;
  for (const auto& ls : listener_.sockets()) poller_.remove(ls.fd.get());
  listener_.close();
  graveyard_.clear();
  for (auto& ep : endpoints_) {
    if (!ep) continue;
    switch (ep->state()) {
      case TcpEndpoint::State::kIdle:
      case TcpEndpoint::State::kConnecting:
      case TcpEndpoint::State::kWaitIncoming:
      case TcpEndpoint::State::kConnected: ep->set_state(TcpEndpoint::State::kSuspended); break;
      default: break;
    }
    ep->addresses().clear();  // connect() reads the new ones
    ep->next_address = 0;
    ep->checkpoint_received = false;
  }
  checkpointed_ = true;
  log::debug("tcp: rank %d closed its sockets for a checkpoint", host_->rank());
  return Status::Ok();
}

Status TcpTransport::reopen(bool restarted) {
  const char* hook = restarted ? "tcp: on_restart" : "tcp: on_continue";
  if (host_ == nullptr) return Internal(std::string(hook) + "() before init()");
  if (!checkpointed_) return Internal(std::string(hook) + "() without a successful on_checkpoint()");
  if (restarted) {
    // A restored process set: maybe another host (other interfaces), a new
    // launcher (maybe a new job secret); failures seen in the old process set
    // say nothing about the new one.
    auto itfs = select_interfaces(config_.if_include, config_.if_exclude);
    if (!itfs.ok()) return itfs.status().with_context(hook);
    interfaces_ = std::move(*itfs);
    if (host_->job_secret().empty())
      return PermissionDenied("tcp: no job secret after restart: connections could not be authenticated");
    secret_ = host_->job_secret();
    cctx_.my_rank = host_->rank();
    cctx_.size = host_->size();
    to_report_.clear();
    for (auto& ep : endpoints_) {
      if (!ep || ep->state() != TcpEndpoint::State::kFailed) continue;
      ep->set_state(TcpEndpoint::State::kSuspended);
      ep->failure = Status();
      ep->failure_reported = false;
    }
  }
  Status s = listener_.open(interfaces_);
  for (size_t i = 0; s.ok() && i < listener_.sockets().size(); ++i)
    s = poller_.add(listener_.sockets()[i].fd.get(), PollKind::kListener, static_cast<uint32_t>(i), EPOLLIN);
  if (s.ok()) s = host_->modex().put(kModexKey, listener_.address_list());
  if (!s.ok()) {
    for (const auto& ls : listener_.sockets()) poller_.remove(ls.fd.get());
    listener_.close();
    return s.with_context(hook);
  }
  log::debug("tcp: rank %d publishes %s after a checkpoint", host_->rank(), listener_.address_list().c_str());
  return Status::Ok();
}

Status TcpTransport::on_continue() { return reopen(false); }
Status TcpTransport::on_restart() { return reopen(true); }

}  // namespace lz::transport::tcp
