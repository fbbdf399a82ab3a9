// The MPI entry guard: the first statement of every MPI function.
//
//   int MPI_Send(...) {
//     LZ_MPI_ENTRY("MPI_Send");
//     ...
//   }
//
// Today it checks, cheaply, that MPI is initialized and not finalized (a call
// outside that window is a fatal error naming the call) and marks the thread
// as "inside MPI". Issue 4 turns it into the checkpoint entry lock: the CR
// thread reads the per-thread flags (made visible with membarrier) instead of
// the application paying for a mutex, so the uncontended path stays a couple
// of thread-local stores. Nested entries (an MPI function that calls another)
// only count depth.
#pragma once

#include <atomic>

namespace lz::rt {

enum class MpiState : int { kNotInitialized = 0, kInitializing = 1, kRunning = 2, kFinalizing = 3, kFinalized = 4 };

// Process-wide MPI life-cycle state.
extern std::atomic<int> g_mpi_state;
// Per-thread depth of MPI calls (0: outside MPI).
extern thread_local int t_mpi_depth __attribute__((tls_model("initial-exec")));

[[noreturn]] void entry_outside_window(const char* function);

class EntryGuard {
 public:
  explicit EntryGuard(const char* function) {
    if (__builtin_expect(g_mpi_state.load(std::memory_order_relaxed) != static_cast<int>(MpiState::kRunning), 0))
      entry_outside_window(function);
    ++t_mpi_depth;
  }
  ~EntryGuard() { --t_mpi_depth; }
  EntryGuard(const EntryGuard&) = delete;
  EntryGuard& operator=(const EntryGuard&) = delete;
};

inline bool inside_mpi() { return t_mpi_depth > 0; }

}  // namespace lz::rt

#define LZ_MPI_ENTRY(function) ::lz::rt::EntryGuard lz_mpi_entry_guard_(function)
