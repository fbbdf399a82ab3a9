#include "tcp_endpoint.h"

#include <sys/socket.h>

#include <cerrno>

#include "tcp_frame.h"

namespace lz::transport::tcp {
namespace {
constexpr int kDirectIov = 32;  // frames with more pieces go through the queue
}  // namespace

TcpEndpoint::~TcpEndpoint() { (void)detach(); }

const char* TcpEndpoint::state_name(State s) {
  switch (s) {
    case State::kIdle: return "idle";
    case State::kConnecting: return "connecting";
    case State::kWaitIncoming: return "waiting for the peer's connection";
    case State::kConnected: return "connected";
    case State::kPeerFinalized: return "finalized";
    case State::kFailed: return "failed";
    case State::kSuspended: return "suspended by a checkpoint";
  }
  return "?";
}

Status TcpEndpoint::attach(std::unique_ptr<TcpConnection> c, bool already_registered) {
  (void)detach();
  conn_ = std::move(c);
  registered_events_ = EPOLLIN | (conn_->wants_write() || !queue_.empty() ? EPOLLOUT : 0u);
  if (already_registered)
    return poller_->modify(conn_->fd(), PollKind::kEndpoint, static_cast<uint32_t>(rank_), registered_events_);
  return poller_->add(conn_->fd(), PollKind::kEndpoint, static_cast<uint32_t>(rank_), registered_events_);
}

std::unique_ptr<TcpConnection> TcpEndpoint::detach() {
  if (conn_) poller_->remove(conn_->fd());
  registered_events_ = 0;
  return std::move(conn_);
}

void TcpEndpoint::update_interest() {
  if (!conn_) return;
  const bool out = conn_->established() ? !queue_.empty() : conn_->wants_write();
  const uint32_t want = EPOLLIN | (out ? EPOLLOUT : 0u);
  if (want == registered_events_) return;
  if (poller_->modify(conn_->fd(), PollKind::kEndpoint, static_cast<uint32_t>(rank_), want).ok())
    registered_events_ = want;
}

Status TcpEndpoint::send_frame(const struct iovec* iov, int iovcnt, size_t payload, size_t queue_limit) {
  const uint32_t header = static_cast<uint32_t>(payload);
  if (state_ == State::kConnected && queue_.empty() && iovcnt < kDirectIov) {
    unsigned char hdr[kFrameHeaderBytes];
    encode_frame_header(header, hdr);
    struct iovec v[kDirectIov];
    v[0] = {hdr, sizeof hdr};
    int n = 1;
    for (int i = 0; i < iovcnt; ++i)
      if (iov[i].iov_len != 0) v[n++] = iov[i];
    msghdr mh{};
    mh.msg_iov = v;
    mh.msg_iovlen = static_cast<size_t>(n);
    ssize_t w;
    do {
      w = ::sendmsg(conn_->fd(), &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
    } while (w < 0 && errno == EINTR);
    if (w < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK) return ErrnoError("send to rank " + std::to_string(rank_), errno);
      w = 0;
    }
    ++frames_sent;
    if (static_cast<size_t>(w) == kFrameHeaderBytes + payload) return Status::Ok();
    queue_.append_frame(header, iov, iovcnt, static_cast<size_t>(w));
    update_interest();
    return Status::Ok();
  }
  if (queue_.size() >= queue_limit)
    return Status(Code::kWouldBlock, "tcp send queue to rank " + std::to_string(rank_) + " is full");
  queue_.append_frame(header, iov, iovcnt, 0);
  ++frames_sent;
  if (state_ == State::kConnected) {
    Status err;
    flush(&err);
    if (!err.ok()) return err;
  }
  return Status::Ok();
}

bool TcpEndpoint::flush(Status* err) {
  if (!conn_ || !conn_->established() || queue_.empty()) return false;
  while (!queue_.empty()) {
    ssize_t w = ::send(conn_->fd(), queue_.data(), queue_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w > 0) {
      queue_.consume(static_cast<size_t>(w));
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    *err = ErrnoError("send to rank " + std::to_string(rank_), errno);
    return false;
  }
  update_interest();
  return queue_.empty();
}

}  // namespace lz::transport::tcp
