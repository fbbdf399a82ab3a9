#include "tcp_frame_reader.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
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
  size_t stop = SIZE_MAX;  // a frame that may be placed: read no further than its head
  if (tail_ - head_ >= kFrameHeaderBytes) {
    const uint32_t h = decode_frame_header(reinterpret_cast<const unsigned char*>(buf_.get() + head_));
    if (!(h & kControlBit) && h <= max_frame_) need += h;
    if (!(h & kControlBit) && place_head_ != 0 && !declined_ && h >= place_min_ &&
        tail_ - head_ < kFrameHeaderBytes + place_head_)
      stop = kFrameHeaderBytes + place_head_ - (tail_ - head_);
  }
  make_room(need);
  for (;;) {
    // A placement under way reads straight into its buffer (a dropped one
    // into free space, thrown away), and no further than its frame.
    char* to = place_left_ != 0 ? place_dst_ : buf_.get() + tail_;
    const size_t room = place_left_ != 0     ? place_left_
                        : discard_left_ != 0 ? std::min(discard_left_, cap_ - tail_)
                                             : std::min(stop, cap_ - tail_);
    ssize_t r = ::recv(fd, to, room, MSG_DONTWAIT);
    if (r > 0) {
      const size_t n = static_cast<size_t>(r);
      if (place_left_ != 0) place_dst_ += n, place_left_ -= n;
      else if (discard_left_ != 0) discard_left_ -= n;
      else tail_ += n;
      *drained = n < room;
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
  if (place_dst_ != nullptr) return place_left_ == 0;
  if (discard_left_ != 0) return false;
  const size_t live = tail_ - head_;
  if (live < kFrameHeaderBytes) return false;
  const uint32_t h = decode_frame_header(reinterpret_cast<const unsigned char*>(buf_.get() + head_));
  if (h & kControlBit) return true;
  return h > max_frame_ || live >= kFrameHeaderBytes + h;  // a bad length is an item too
}

TcpFrameReader::Item TcpFrameReader::next(Status* why, bool may_place) {
  Item it;
  if (place_dst_ != nullptr) {  // nothing else until the placed frame is handed out
    if (place_left_ != 0 || !may_place) return it;
    it.kind = Item::kPlaced;
    it.data = place_hdr_;
    it.len = place_len_;
    place_dst_ = nullptr;
    return it;
  }
  if (discard_left_ != 0) return it;
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
  if (live < kFrameHeaderBytes + h) {
    if (may_place && place_head_ != 0 && !declined_ && h >= place_min_ && live >= kFrameHeaderBytes + place_head_) {
      it.kind = Item::kHead;
      it.data = buf_.get() + head_ + kFrameHeaderBytes;
      it.len = h;
    }
    return it;
  }
  declined_ = false;
  it.kind = Item::kData;
  it.data = buf_.get() + head_ + kFrameHeaderBytes;
  it.len = h;
  head_ += kFrameHeaderBytes + h;
  if (head_ == tail_) head_ = tail_ = 0;  // data stays valid: nothing is written before the next fill()
  return it;
}

void TcpFrameReader::set_placement(size_t head, size_t min_frame) {
  place_head_ = head <= kMaxHead ? head : 0;
  place_min_ = std::max(min_frame, head + 1);
}

void TcpFrameReader::place(char* dst) {
  // The frame at head_ is incomplete (next() said kHead): all that is
  // buffered belongs to it.
  const size_t len = decode_frame_header(reinterpret_cast<const unsigned char*>(buf_.get() + head_));
  const char* body = buf_.get() + head_ + kFrameHeaderBytes;
  std::memcpy(place_hdr_, body, place_head_);
  const size_t have = tail_ - head_ - kFrameHeaderBytes - place_head_;
  if (have) std::memcpy(dst, body + place_head_, have);
  place_len_ = len;
  place_dst_ = dst + have;
  place_left_ = len - place_head_ - have;
  head_ = tail_ = 0;
}

void TcpFrameReader::decline() { declined_ = true; }

void TcpFrameReader::drop() {
  discard_left_ += place_left_;
  place_dst_ = nullptr;
  place_left_ = 0;
}

void TcpFrameReader::reset() {
  buf_.reset();
  cap_ = head_ = tail_ = 0;
  declined_ = false;
  place_dst_ = nullptr;
  place_left_ = discard_left_ = 0;
}

}  // namespace lz::transport::tcp
