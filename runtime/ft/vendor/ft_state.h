// The process-wide state of liblazarus-ft between MPI_Init and MPI_Finalize,
// shared by the PMPI wrappers (pmpi_wrappers.cpp, which count messages) and
// the LZ_* calls (lz_api.cpp).
//
// The counters are what the bookmark test at a safe point sums
// (session.h): messages this rank sent (one per send call, started or
// blocking, PROC_NULL excepted) and receives it posted (counted when posted:
// at a safe point none may be pending, so posted is completed). A plain
// increment per call, atomic only when the program asked for
// MPI_THREAD_MULTIPLE.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "pmpi_coordinator.h"
#include "session.h"

namespace lz::ft {

struct FtState {
  MPI_Comm comm = MPI_COMM_NULL;  // the private duplicate of MPI_COMM_WORLD
  std::unique_ptr<PmpiCoordinator> coord;
  std::unique_ptr<Session> session;
};

FtState& state();

extern uint64_t g_sent, g_received;
extern bool g_multiple;  // MPI_THREAD_MULTIPLE: count atomically

inline void bump(uint64_t& counter, int n = 1) {
  if (__builtin_expect(g_multiple, 0))
    std::atomic_ref<uint64_t>(counter).fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
  else
    counter += static_cast<uint64_t>(n);
}

inline void count_send(int dest) {
  if (dest != MPI_PROC_NULL) bump(g_sent);
}
inline void count_recv(int source) {
  if (source != MPI_PROC_NULL) bump(g_received);
}

}  // namespace lz::ft
