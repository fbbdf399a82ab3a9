// Incoming side of one connection: a receive buffer filled from the socket
// and cut into frames (tcp_frame.h). Frames are handed out in place (no copy
// beyond the one from the kernel); a frame is valid until the next call.
// Every length read from the wire is checked against max_frame before any
// memory is reserved for it.
//
// Placement (transport.h, Host::place): with set_placement(), next() stops
// at a data frame of at least `min_frame` bytes whose first `head` bytes are
// in but not the rest, as a kHead item. The caller answers place(dst) (the
// rest of the frame goes to dst: what is buffered now is copied there, and
// fill() then reads from the socket straight into it) or decline() (the
// frame is buffered and handed out whole as usual). A placed frame ends as a
// kPlaced item carrying its head; drop() abandons a placement (the rest of
// the frame is read and discarded).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "lazarus/status.h"

namespace lz::transport::tcp {

// Data frames from this size on are offered for placement: below it the
// copy out of the buffer costs less than asking.
inline constexpr size_t kPlaceFrom = size_t{64} << 10;

class TcpFrameReader {
 public:
  explicit TcpFrameReader(size_t max_frame) : max_frame_(max_frame) {}

  enum class FillResult { kData, kAgain, kEof, kError };
  // One recv() into the free space. On kData, `*drained` tells whether the
  // read came back short (the socket has nothing more for now). On kError,
  // `*err` is errno.
  FillResult fill(int fd, bool* drained, int* err);

  struct Item {
    enum Kind { kNone, kData, kControl, kBad, kHead, kPlaced } kind = kNone;
    const char* data = nullptr;  // kData: the frame; kHead, kPlaced: its first head bytes
    size_t len = 0;              // kData, kHead, kPlaced: frame bytes
    uint32_t code = 0;           // kControl
  };
  // The next complete item in the buffer, or kNone when more bytes are needed;
  // kBad (the stream cannot be trusted any more) with `why` set. kHead and
  // kPlaced only when `may_place` (never while a checkpoint closes
  // connections); until a kHead is answered, next() returns it again.
  Item next(Status* why, bool may_place = false);

  // Placement: off until this is called (head > 0, at most kMaxHead).
  static constexpr size_t kMaxHead = 64;
  void set_placement(size_t head, size_t min_frame);
  void place(char* dst);
  void decline();
  void drop();
  bool placing() const { return place_dst_ != nullptr || discard_left_ != 0; }

  // Bytes received that next() has not handed out yet, a placement's
  // included (a complete frame may be among them).
  size_t buffered() const { return tail_ - head_ + (place_dst_ != nullptr ? place_len_ : 0) + discard_left_; }
  bool has_complete_item() const;
  void reset();

 private:
  void make_room(size_t need_contiguous);

  size_t max_frame_;
  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0, head_ = 0, tail_ = 0;
  // Placement.
  size_t place_head_ = 0, place_min_ = 0;
  bool declined_ = false;          // the frame at head_ stays buffered
  char place_hdr_[kMaxHead];       // the placed frame's head
  size_t place_len_ = 0;           // its frame bytes
  char* place_dst_ = nullptr;      // where its next bytes go
  size_t place_left_ = 0;          // how many are still to come
  size_t discard_left_ = 0;        // a dropped placement's bytes still to read
};

}  // namespace lz::transport::tcp
