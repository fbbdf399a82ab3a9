#include "tcp_frame_reader.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "tcp_frame.h"

namespace lz::transport::tcp {
namespace {
constexpr size_t kInitialCapacity = size_t{64} << 10;
// Below this much free space at the tail, recv() is not worth a system call
// without compacting first.
constexpr size_t kMinRecv = size_t{4} << 10;
}  // namespace

void TcpFrameReader::make_room(size_t need) {
  // After this: the item in progress (`need` bytes from head_) fits
  // contiguously, and a recv() has at least kMinRecv bytes to fill.
  const size_t live = tail_ - head_;
  const size_t required = std::max(need > live ? need - live : 0, kMinRecv);
  if (cap_ - tail_ >= required) return;
  if (cap_ - live >= required) {
    std::memmove(buf_.get(), buf_.get() + head_, live);
  } else {
    const size_t cap = std::max(live + required, kInitialCapacity);
    std::unique_ptr<char[]> nb(new char[cap]);
    if (live) std::memcpy(nb.get(), buf_.get() + head_, live);
    buf_ = std::move(nb);
    cap_ = cap;
  }
  head_ = 0;
  tail_ = live;
}

TcpFrameReader::FillResult TcpFrameReader::fill(int fd, bool* drained, int* err) {
  // Room for the frame in progress (its length is known once the header is in).
  size_t need = kFrameHeaderBytes;
  if (tail_ - head_ >= kFrameHeaderBytes) {
    const uint32_t h = decode_frame_header(reinterpret_cast<const unsigned char*>(buf_.get() + head_));
    if (!(h & kControlBit) && h <= max_frame_) need += h;
  }
  make_room(need);
  for (;;) {
    const size_t room = cap_ - tail_;
    ssize_t r = ::recv(fd, buf_.get() + tail_, room, MSG_DONTWAIT);
    if (r > 0) {
      tail_ += static_cast<size_t>(r);
      *drained = static_cast<size_t>(r) < room;
      return FillResult::kData;
    }
    if (r == 0) return FillResult::kEof;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return FillResult::kAgain;
    *err = errno;
    return FillResult::kError;
  }
}

bool TcpFrameReader::has_complete_item() const {
  const size_t live = tail_ - head_;
  if (live < kFrameHeaderBytes) return false;
  const uint32_t h = decode_frame_header(reinterpret_cast<const unsigned char*>(buf_.get() + head_));
  if (h & kControlBit) return true;
  return h > max_frame_ || live >= kFrameHeaderBytes + h;  // a bad length is an item too
}

TcpFrameReader::Item TcpFrameReader::next(Status* why) {
  Item it;
  const size_t live = tail_ - head_;
  if (live < kFrameHeaderBytes) return it;
  const uint32_t h = decode_frame_header(reinterpret_cast<const unsigned char*>(buf_.get() + head_));
  if (h & kControlBit) {
    const uint32_t code = h & ~kControlBit;
    if (code != kBye && code != kCheckpoint) {
      it.kind = Item::kBad;
      *why = ProtocolError("unknown tcp control frame " + std::to_string(code));
      return it;
    }
    head_ += kFrameHeaderBytes;
    it.kind = Item::kControl;
    it.code = code;
    return it;
  }
  if (h > max_frame_) {
    it.kind = Item::kBad;
    *why = ProtocolError("tcp frame of " + std::to_string(h) + " bytes exceeds max_frame " +
                         std::to_string(max_frame_));
    return it;
  }
  if (live < kFrameHeaderBytes + h) return it;
  it.kind = Item::kData;
  it.data = buf_.get() + head_ + kFrameHeaderBytes;
  it.len = h;
  head_ += kFrameHeaderBytes + h;
  if (head_ == tail_) head_ = tail_ = 0;  // data stays valid: nothing is written before the next fill()
  return it;
}

void TcpFrameReader::reset() {
  buf_.reset();
  cap_ = head_ = tail_ = 0;
}

}  // namespace lz::transport::tcp
