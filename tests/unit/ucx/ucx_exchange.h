// Shared by the ucx unit tests (the one that links UCX and the one that must
// not): a two-rank exchange of numbered frames through the transport job.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "transport_job.h"

namespace lz::test::ucx {

// Sends `n` frames of `size(i)` bytes to the peer and takes `n` from it, each
// frame's first 8 bytes its number; checks order and sizes.
inline bool exchange(Child& c, size_t n, size_t (*size)(size_t)) {
  std::vector<char> buf;
  size_t sent = 0, got = 0;
  while (sent < n || got < n) {
    if (sent < n) {
      buf.assign(std::max<size_t>(size(sent), 8), 'x');
      std::memcpy(buf.data(), &sent, 8);
      iovec iov{buf.data(), buf.size()};
      Status s = c.module().send(c.peer(), &iov, 1);
      if (s.ok()) ++sent;
      else if (s.code() != Code::kWouldBlock) {
        c.fail("send: " + s.to_string());
        return false;
      }
    }
    c.progress();
    while (!c.inbox().empty()) {
      const Frame& f = c.inbox().front();
      size_t seq = ~size_t{0};
      if (f.data.size() >= 8) std::memcpy(&seq, f.data.data(), 8);
      if (seq != got || f.data.size() != std::max<size_t>(size(got), 8)) {
        c.fail("frame " + std::to_string(got) + " expected, got #" + std::to_string(seq) + " of " +
               std::to_string(f.data.size()) + " bytes");
        return false;
      }
      c.inbox().pop_front();
      ++got;
    }
    if (c.expired()) {
      c.fail("exchange: deadline with " + std::to_string(sent) + " sent, " + std::to_string(got) + " received");
      return false;
    }
  }
  return true;
}

inline size_t mixed_size(size_t i) { return i % 50 == 0 ? 256 * 1024 : (i * 37) % 3000; }

}  // namespace lz::test::ucx
