// The MPI entry guard: the first statement of every MPI function.
//
//   int MPI_Send(...) {
//     LZ_MPI_ENTRY("MPI_Send");
//     ...
//   }
//
// Every entry checks, cheaply, that MPI is initialized and not finalized (a
// call outside that window is a fatal error naming the call) and counts the
// depth of MPI calls. With checkpointing on, the outermost entry also takes
// the checkpoint entry lock, whose application side is inline and costs two
// plain stores and a load (runtime/cr/entry_lock.h explains why that is
// enough; the CR thread pays with membarrier).
//
// CR off: g_mpi_state is kRunning and the entry is exactly the state check
// and the depth increment (no atomic read-modify-write, no extra branch).
// CR on: g_mpi_state is kRunningCr, so the same check takes the CR branch.
// MPI_THREAD_MULTIPLE: kRunningMt / kRunningCrMt, and the outermost entry of
// each thread first takes the thread gate (mpi/thread_gate.h).
#pragma once

#include <atomic>

#include "cr/entry_lock.h"
#include "mpi/thread_gate.h"

namespace lz::rt {

enum class MpiState : int {
  kNotInitialized = 0,
  kInitializing = 1,
  kRunning = 2,
  kFinalizing = 3,
  kFinalized = 4,
  kRunningCr = 5,  // running, with the checkpoint entry lock on
  kRunningMt = 6,    // running, MPI_THREAD_MULTIPLE (thread gate)
  kRunningCrMt = 7,  // both
};

// Process-wide MPI life-cycle state.
extern std::atomic<int> g_mpi_state;

[[noreturn]] void entry_outside_window(const char* function);

class EntryGuard {
 public:
  explicit EntryGuard(const char* function) {
    const int st = g_mpi_state.load(std::memory_order_relaxed);
    if (__builtin_expect(st != static_cast<int>(MpiState::kRunning), 0)) {
      if (st == static_cast<int>(MpiState::kRunningCr)) {
        entry_enter_locked();
        return;
      }
      if (st != static_cast<int>(MpiState::kRunningMt) && st != static_cast<int>(MpiState::kRunningCrMt))
        entry_outside_window(function);
      gated_ = true;
      ThreadGate::instance().enter(st == static_cast<int>(MpiState::kRunningCrMt));
      return;
    }
    entry_enter_unlocked();
  }
  ~EntryGuard() {
    if (__builtin_expect(gated_, 0)) ThreadGate::instance().leave();
    else entry_leave();
  }
  EntryGuard(const EntryGuard&) = delete;
  EntryGuard& operator=(const EntryGuard&) = delete;

 private:
  bool gated_ = false;
};

}  // namespace lz::rt

#define LZ_MPI_ENTRY(function) ::lz::rt::EntryGuard lz_mpi_entry_guard_(function)
