// The one-sided progress thread: serves this rank's windows while the
// program computes outside MPI, so a passive-target operation (a lock, an
// accumulate, a get of another rank) completes without the target calling
// MPI. Every osc_progress_interval microseconds it takes the entry lock
// (cr/entry_lock.h: only when the program is outside MPI and no checkpoint
// holds it) and runs engine progress turns, in which the windows' agents
// execute what arrived; the program's next MPI call waits at most for that
// turn to end. It sleeps between turns (never a busy spin) and exists only
// while a window does.
//
//   ProgressThread::window_created();   // MPI_Win_create & co., entry lock on
//   ProgressThread::window_freed();     // MPI_Win_free: stops with the last
#pragma once

namespace lz::osc {

class ProgressThread {
 public:
  // The caller holds the entry (inside MPI), with the entry lock enabled.
  static void window_created();
  static void window_freed();
};

}  // namespace lz::osc
