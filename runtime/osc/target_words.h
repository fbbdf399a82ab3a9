// TargetWords: a target's passive-target lock and accumulate lock, in the
// first page of the shared-memory segment its window memory lives in
// (shared_segment.h), where the ranks of its host that load and store its
// memory directly (window_direct.cpp) and its own agent, serving the other
// ranks' messages (window_target.cpp), both take them: one lock, whoever
// asks.
//
//   lock    kWriter | number of shared holders (MPI_Win_lock, lock_all)
//   acc     held while one accumulate reads and writes the memory, so
//           accumulates stay atomic whether they come by load/store or by
//           message
#pragma once

#include <atomic>
#include <cstdint>

namespace lz::osc {

struct TargetWords {
  static constexpr uint32_t kWriter = 0x80000000u;
  std::atomic<uint32_t> lock{0};
  std::atomic<uint32_t> acc{0};

  bool try_lock(bool exclusive) {
    uint32_t v = lock.load(std::memory_order_relaxed);
    if (exclusive) return v == 0 && lock.compare_exchange_strong(v, kWriter, std::memory_order_acquire);
    while ((v & kWriter) == 0)
      if (lock.compare_exchange_weak(v, v + 1, std::memory_order_acquire)) return true;
    return false;
  }
  void unlock(bool exclusive) {
    if (exclusive)
      lock.fetch_and(~kWriter, std::memory_order_release);
    else
      lock.fetch_sub(1, std::memory_order_release);
  }
  void acc_lock() {
    while (acc.exchange(1, std::memory_order_acquire) != 0)
      while (acc.load(std::memory_order_relaxed) != 0) __builtin_ia32_pause();
  }
  void acc_unlock() { acc.store(0, std::memory_order_release); }
};
static_assert(sizeof(TargetWords) == 8, "TargetWords layout changed");

// Rank r's words in a segment's header page (after the segment's own 64 bytes).
inline TargetWords* words_in(char* header, int r) {
  return reinterpret_cast<TargetWords*>(header + 64 + static_cast<size_t>(r) * sizeof(TargetWords));
}

// The fence barrier of a window whose ranks all load and store each other's
// memory (lz_mpi_win_s::direct_barrier), at the end of rank 0's header page:
// a cache line per rank, holding the number of barriers it entered (each
// waits until every rank's number reaches its own: one line moves each way,
// no read-modify-write on a shared line) and whether it stopped spinning and
// sleeps until a kWake message.
struct alignas(64) FenceSlot {
  std::atomic<uint32_t> entered{0};
  std::atomic<uint32_t> asleep{0};
};
static_assert(sizeof(FenceSlot) == 64, "FenceSlot layout changed");
// Bytes the barrier takes at the end of the header page for n ranks.
inline size_t fence_room(int n) { return static_cast<size_t>(n) * sizeof(FenceSlot); }
inline FenceSlot* fence_slots_in(char* header, size_t page, int n) {
  return reinterpret_cast<FenceSlot*>(header + page - fence_room(n));
}

}  // namespace lz::osc
