#include "self_transport.h"

#include "lazarus/frameworks/transport_iov.h"

namespace lz::transport {

Status SelfTransport::init(Host& host) {
  host_ = &host;
  return Status::Ok();
}

bool SelfTransport::reaches(int peer) const { return host_ != nullptr && peer == host_->rank(); }

Status SelfTransport::send(int peer, const struct iovec* iov, int iovcnt) {
  if (!reaches(peer)) return InvalidArgument("self transport cannot reach rank " + std::to_string(peer));
  const size_t total = iov_bytes(iov, iovcnt);
  if (total > kMaxFrame) return InvalidArgument("frame of " + std::to_string(total) + " bytes exceeds max_frame");
  std::string frame;
  frame.reserve(total);
  for (int i = 0; i < iovcnt; ++i) frame.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
  queue_.push_back(std::move(frame));
  return Status::Ok();
}

int SelfTransport::progress() {
  // Deliver only what was queued before this call: a handler that sends to
  // itself again must not make progress() loop forever.
  size_t n = queue_.size();
  for (size_t i = 0; i < n; ++i) {
    std::string frame = std::move(queue_.front());
    queue_.pop_front();
    host_->deliver(host_->rank(), frame.data(), frame.size());
  }
  return static_cast<int>(n);
}

Status SelfTransport::finalize() {
  queue_.clear();
  host_ = nullptr;
  return Status::Ok();
}

}  // namespace lz::transport
