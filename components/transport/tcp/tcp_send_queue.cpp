#include "tcp_send_queue.h"

#include <algorithm>
#include <cstring>

#include "lazarus/frameworks/transport_iov.h"
#include "tcp_frame.h"

namespace lz::transport::tcp {
namespace {
// Above this, an emptied queue gives its memory back: a burst must not pin
// megabytes per peer for the rest of the job.
constexpr size_t kKeepCapacity = size_t{1} << 20;
}  // namespace

void TcpSendQueue::reserve_tail(size_t n) {
  if (cap_ - tail_ >= n) return;
  const size_t live = tail_ - head_;
  if (live + n <= cap_ && head_ >= cap_ / 2) {
    std::memmove(buf_.get(), buf_.get() + head_, live);
  } else {
    const size_t cap = std::max({live + n, cap_ * 2, size_t{64} << 10});
    std::unique_ptr<char[]> nb(new char[cap]);
    if (live) std::memcpy(nb.get(), buf_.get() + head_, live);
    buf_ = std::move(nb);
    cap_ = cap;
  }
  head_ = 0;
  tail_ = live;
}

void TcpSendQueue::append(const void* p, size_t n) {
  if (n == 0) return;
  reserve_tail(n);
  std::memcpy(buf_.get() + tail_, p, n);
  tail_ += n;
}

void TcpSendQueue::append_frame(uint32_t header, const struct iovec* iov, int iovcnt, size_t skip) {
  const size_t total = kFrameHeaderBytes + iov_bytes(iov, iovcnt);
  if (skip >= total) return;
  reserve_tail(total - skip);
  unsigned char hdr[kFrameHeaderBytes];
  encode_frame_header(header, hdr);
  // The frame from byte `skip` on: what is left of the header, then the iovecs'.
  char* at = buf_.get() + tail_;
  const size_t head = skip < sizeof hdr ? sizeof hdr - skip : 0;
  if (head != 0) std::memcpy(at, hdr + skip, head);
  iov_copy_range(iov, iovcnt, skip + head - sizeof hdr, total - skip - head, at + head);
  tail_ += total - skip;
}

void TcpSendQueue::consume(size_t n) {
  head_ += std::min(n, size());
  if (head_ == tail_) {
    head_ = tail_ = 0;
    if (cap_ > kKeepCapacity) clear();
  }
}

void TcpSendQueue::clear() {
  buf_.reset();
  cap_ = head_ = tail_ = 0;
}

}  // namespace lz::transport::tcp
