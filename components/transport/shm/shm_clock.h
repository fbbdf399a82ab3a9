// coarse_now_ms(): the cheap monotonic clock of the shm transport's periodic
// checks (peer liveness, checkpoint waits), where a few ms of error is fine.
//
//   const int64_t until = coarse_now_ms() + cfg_.checkpoint_wait_ms;
#pragma once

#include <time.h>

#include <cstdint>

namespace lz::transport::shm {

inline int64_t coarse_now_ms() {
  struct timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace lz::transport::shm
