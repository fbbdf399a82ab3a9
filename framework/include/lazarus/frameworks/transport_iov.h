// A frame as the engine hands it to Module::send(): iovecs whose bytes, one
// after the other, are the frame. What every transport does with them
// before it copies or sends them: count the bytes, gather them into one
// buffer, or copy a range of them (a library that packs a frame in pieces).
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstring>

namespace lz::transport {

// Bytes in iov[0..iovcnt) (0 for a null array or a count below 1).
inline size_t iov_bytes(const struct iovec* iov, int iovcnt) {
  size_t total = 0;
  for (int i = 0; iov != nullptr && i < iovcnt; ++i) total += iov[i].iov_len;
  return total;
}

// Copies the frame's bytes to `out`; returns the end of what it wrote.
inline char* iov_gather(const struct iovec* iov, int iovcnt, void* out) {
  char* at = static_cast<char*>(out);
  for (int i = 0; i < iovcnt; ++i) {
    if (iov[i].iov_len == 0) continue;  // its base may be null
    std::memcpy(at, iov[i].iov_base, iov[i].iov_len);
    at += iov[i].iov_len;
  }
  return at;
}

// Copies the frame's bytes [offset, offset + len) to `out`, clipped to the
// frame's end; returns how many it copied.
inline size_t iov_copy_range(const struct iovec* iov, int iovcnt, size_t offset, size_t len, void* out) {
  char* at = static_cast<char*>(out);
  size_t left = len;
  for (int i = 0; i < iovcnt && left != 0; ++i) {
    const size_t n = iov[i].iov_len;
    if (offset >= n) {
      offset -= n;
      continue;
    }
    const size_t k = n - offset < left ? n - offset : left;
    std::memcpy(at, static_cast<const char*>(iov[i].iov_base) + offset, k);
    at += k;
    left -= k;
    offset = 0;
  }
  return len - left;
}

}  // namespace lz::transport
