// The one-sided progress thread: serves this rank's windows while the
// program computes outside MPI, so a passive-target operation (a lock, an
// accumulate, a get of another rank) completes without the target calling
// MPI. Every osc_progress_interval microseconds it takes the entry lock
// (cr/entry_lock.h: only when the program is outside MPI and no checkpoint
// holds it) and runs engine progress turns, in which the windows' agents
// execute what arrived; the program's next MPI call waits at most for that
// turn to end. It sleeps between turns (never a busy spin) and exists only
// while a window has a peer that reaches it by messages: a window whose
// ranks all reach each other by load and store (Window::all_direct) never
// needs its target's agent, and a thread waking every interval on the
// program's core costs it time (7 to 12 % of a 1 MiB get's bandwidth
// within a host, measured with tests/perf/rma.c).
//
//   ProgressThread::agent_needed();  // a window created, or one losing its direct peers
//   ProgressThread::agent_done();    // that window freed, or made all-direct
#pragma once

namespace lz::osc {

class ProgressThread {
 public:
  // The caller holds the entry (inside MPI), with the entry lock enabled,
  // or is the CR thread holding the entry lock. The first need starts the
  // thread, the last done stops it.
  static void agent_needed();
  static void agent_done();
};

}  // namespace lz::osc
