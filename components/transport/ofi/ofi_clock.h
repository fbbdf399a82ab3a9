// The coarse monotonic clock of the liveness checks and the bounded waits.
#pragma once

#include <time.h>

#include <cstdint>

namespace lz::transport::ofi {

inline int64_t coarse_now_ms() {
  struct timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace lz::transport::ofi
