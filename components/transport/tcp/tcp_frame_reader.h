// Incoming side of one connection: a receive buffer filled from the socket
// and cut into frames (tcp_frame.h). Frames are handed out in place (no copy
// beyond the one from the kernel); a frame is valid until the next call.
// Every length read from the wire is checked against max_frame before any
// memory is reserved for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "lazarus/status.h"

namespace lz::transport::tcp {

class TcpFrameReader {
 public:
  explicit TcpFrameReader(size_t max_frame) : max_frame_(max_frame) {}

  enum class FillResult { kData, kAgain, kEof, kError };
  // One recv() into the free space. On kData, `*drained` tells whether the
  // read came back short (the socket has nothing more for now). On kError,
  // `*err` is errno.
  FillResult fill(int fd, bool* drained, int* err);

  struct Item {
    enum Kind { kNone, kData, kControl, kBad } kind = kNone;
    const char* data = nullptr;  // kData
    size_t len = 0;              // kData: payload bytes
    uint32_t code = 0;           // kControl
  };
  // The next complete item in the buffer, or kNone when more bytes are needed;
  // kBad (the stream cannot be trusted any more) with `why` set.
  Item next(Status* why);

  // Bytes buffered that next() has not consumed (a complete frame may be among them).
  size_t buffered() const { return tail_ - head_; }
  bool has_complete_item() const;
  void reset();

 private:
  void make_room(size_t need_contiguous);

  size_t max_frame_;
  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0, head_ = 0, tail_ = 0;
};

}  // namespace lz::transport::tcp
