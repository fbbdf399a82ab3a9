// TcpTransport, finalize: an orderly close of every connection, so that no
// close turns into a reset that could destroy bytes the peer has not read.
#include "tcp_transport.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

#include "lazarus/log.h"
#include "tcp_frame.h"

namespace lz::transport::tcp {

Status TcpTransport::finalize_connections() {
  // Orderly close: flush what is queued, say bye, half-close, and wait for the
  // peer's own bye/EOF so that closing with unread bytes never turns into a
  // reset that could destroy data the peer has not read yet. The engine
  // barriers before finalize, so every peer is doing the same.
  struct Closing {
    TcpEndpoint* ep;
    bool write_done;
  };
  std::vector<Closing> closing;
  for (auto& ep : endpoints_) {
    if (!ep || ep->state() != TcpEndpoint::State::kConnected || !ep->conn()) continue;
    unsigned char bye[kFrameHeaderBytes];
    encode_frame_header(kControlBit | kBye, bye);
    ep->queue().append(bye, sizeof bye);
    closing.push_back({ep.get(), false});
  }
  const double deadline = now_seconds() + config_.connect_timeout;
  char scratch[16384];
  while (!closing.empty()) {
    const double left = deadline - now_seconds();
    if (left <= 0) return Timeout("tcp: peers did not close within connect_timeout");
    std::vector<pollfd> fds;
    for (auto& cl : closing) {
      if (!cl.write_done) {
        Status err;
        cl.ep->flush(&err);
        if (!err.ok() || cl.ep->queue_empty()) {
          ::shutdown(cl.ep->conn()->fd(), SHUT_WR);
          cl.write_done = true;
        }
      }
      fds.push_back({cl.ep->conn()->fd(), static_cast<short>(POLLIN | (cl.write_done ? 0 : POLLOUT)), 0});
    }
    if (::poll(fds.data(), fds.size(), static_cast<int>(left * 1000) + 1) < 0 && errno != EINTR)
      return ErrnoError("tcp: poll", errno);
    std::vector<Closing> still;
    for (size_t i = 0; i < closing.size(); ++i) {
      bool done = false;
      if (fds[i].revents & (POLLIN | POLLERR | POLLHUP)) {
        for (;;) {
          ssize_t r = ::recv(fds[i].fd, scratch, sizeof scratch, MSG_DONTWAIT);
          if (r > 0) continue;
          if (r < 0 && errno == EINTR) continue;
          done = r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
          break;
        }
      }
      if (!done) still.push_back(closing[i]);
    }
    closing.swap(still);
  }
  return Status::Ok();
}

Status TcpTransport::finalize() {
  if (host_ == nullptr) return Status::Ok();
  listener_.close();
  for (auto& c : pending_)
    if (c) poller_.remove(c->fd());
  pending_.clear();
  free_slots_.clear();
  pending_count_ = 0;
  if (Status s = finalize_connections(); !s.ok()) log::debug("%s", s.message().c_str());
  endpoints_.clear();
  graveyard_.clear();
  to_report_.clear();
  poller_.close();
  host_ = nullptr;
  return Status::Ok();
}

}  // namespace lz::transport::tcp
