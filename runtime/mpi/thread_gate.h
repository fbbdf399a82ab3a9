// The thread gate: MPI_THREAD_MULTIPLE. Any number of application threads may
// call MPI at once; one at a time is inside (holds the gate), as in MPICH's
// global critical section. A thread blocked in a wait does not keep it: the
// engine lets it go while the thread sleeps, so another thread's call runs
// (and may be the one that completes the sleeper's request).
//
//   thread (outermost MPI entry)       engine wait, nothing to do (sleep_turn)
//   gate.enter(cr_on)                  one thread, the poller, sleeps in poll()
//   ... the call ...                   on the transports' fds + wake_fd(); the
//   gate.leave()                       others wait on the gate's condition
//
// Wake-ups: a holder whose turn saw progress events or completed requests
// (note_events()) wakes the others when it lets go of the gate — notify for
// the condition waiters, the wake eventfd for the poller (whose armed wait
// fds may have been consumed by that progress). A poller that wakes gives up
// its role and notifies, so another waiter polls next.
//
// Checkpoints (cr/entry_lock.h): the entry lock's application side is taken
// by whoever holds the gate, after the gate, and let go before it — so the
// process-wide g_mpi_depth stays "one thread inside" and the CR thread's
// Dekker protocol is unchanged. A thread that lets go of the gate in a wait
// is outside MPI for the CR thread; it takes the entry lock again (waiting
// out a checkpoint) before it touches the engine. The holder parks in an
// interrupted wait exactly as a single thread does.
//
// Nesting is per thread (an MPI call inside a user callback of another).
// The entry guard (mpi/entry.h) takes it; the engine sees it as a WaitGate
// (p2p/wait_gate.h); it exists from
// MPI_Init_thread(MPI_THREAD_MULTIPLE) on and is never destroyed.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>

#include "p2p/wait_gate.h"

namespace lz::rt {

class ThreadGate final : public WaitGate {
 public:
  // The process's gate (created on first use).
  static ThreadGate& instance();

  // Outermost MPI entry of this thread takes the gate, then the entry lock
  // (`cr`: checkpointing on) or the plain depth count; nested ones count.
  void enter(bool cr);
  void leave();

  // WaitGate (the engine's waits; holder only).
  bool contended() const override { return inside_.load(std::memory_order_relaxed) > 1; }
  void note_events() override { events_ = true; }
  bool poller_active() const override { return poller_active_; }
  void wait_turn(int timeout_ms) override;
  void release_for_poll() override;
  void reacquire_after_poll() override;
  int wake_fd() const override { return wake_fd_; }

 private:
  ThreadGate();
  // The gate's side of letting go: the entry lock or depth, then the wake-ups.
  void step_out();
  void step_in();

  std::mutex mutex_;  // the gate: held by the thread inside
  std::condition_variable cond_;
  std::atomic<int> inside_{0};  // threads inside MPI (holding or waiting)
  bool cr_ = false;             // the holder entered with checkpointing on
  bool events_ = false;
  bool poller_active_ = false;
  bool poller_sleeping_ = false;
  int cond_waiters_ = 0;
  int wake_fd_ = -1;
};

}  // namespace lz::rt
