// The thread gate (MPI_THREAD_MULTIPLE): see thread_gate.h.
#include "mpi/thread_gate.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>

#include "cr/entry_lock.h"

namespace lz::rt {

namespace {
thread_local int t_depth = 0;  // this thread's nesting of MPI calls
}  // namespace

ThreadGate& ThreadGate::instance() {
  static ThreadGate* gate = new ThreadGate();  // never destroyed: threads may outlive main
  return *gate;
}

ThreadGate::ThreadGate() { wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

void ThreadGate::enter(bool cr) {
  if (t_depth++ > 0) return;
  inside_.fetch_add(1, std::memory_order_relaxed);
  mutex_.lock();
  cr_ = cr;
  step_in();
}

void ThreadGate::leave() {
  if (--t_depth > 0) return;
  step_out();
  mutex_.unlock();
  inside_.fetch_sub(1, std::memory_order_relaxed);
}

void ThreadGate::step_in() {
  if (cr_) entry_enter_locked();
  else entry_enter_unlocked();
}

void ThreadGate::step_out() {
  entry_leave();
  if (!events_) return;
  events_ = false;
  if (cond_waiters_ > 0) cond_.notify_all();
  if (poller_sleeping_ && wake_fd_ >= 0) {
    uint64_t one = 1;
    ssize_t n = write(wake_fd_, &one, sizeof one);
    (void)n;
  }
}

void ThreadGate::wait_turn(int timeout_ms) {
  step_out();
  ++cond_waiters_;
  std::unique_lock<std::mutex> lock(mutex_, std::adopt_lock);  // held by this thread
  cond_.wait_for(lock, std::chrono::milliseconds(timeout_ms));
  lock.release();  // still held: the gate's, not this scope's
  --cond_waiters_;
  step_in();
}

void ThreadGate::release_for_poll() {
  poller_active_ = true;
  poller_sleeping_ = true;
  step_out();
  mutex_.unlock();
}

void ThreadGate::reacquire_after_poll() {
  mutex_.lock();
  poller_sleeping_ = false;
  poller_active_ = false;
  if (wake_fd_ >= 0) {
    uint64_t v;
    ssize_t n = read(wake_fd_, &v, sizeof v);  // non-blocking: clears a pending wake-up
    (void)n;
  }
  if (cond_waiters_ > 0) cond_.notify_all();  // one of them polls next
  step_in();
}

}  // namespace lz::rt
