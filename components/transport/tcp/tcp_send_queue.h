// Per-peer outgoing bytes not yet accepted by the kernel: whole frames queued
// while a connection is being set up, and the unsent tail of a frame the
// socket took only part of. One contiguous buffer (not a list of frames), so
// flushing is one send() whatever the number of small frames queued.
//
// Lives in the endpoint, not the connection: when a connection is replaced
// (connection race, checkpoint/continue), the queued bytes stay, in order.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace lz::transport::tcp {

class TcpSendQueue {
 public:
  bool empty() const { return head_ == tail_; }
  size_t size() const { return tail_ - head_; }
  const char* data() const { return buf_.get() + head_; }

  // Appends header + the concatenation of iov, skipping the first `skip`
  // bytes of that sequence (already written to the socket).
  void append_frame(uint32_t header, const struct iovec* iov, int iovcnt, size_t skip);
  void append(const void* p, size_t n);
  void consume(size_t n);
  // Drops everything and the memory.
  void clear();

 private:
  void reserve_tail(size_t n);

  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0, head_ = 0, tail_ = 0;
};

}  // namespace lz::transport::tcp
