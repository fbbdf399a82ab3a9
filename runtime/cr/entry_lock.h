// The checkpoint entry lock (LAM/MPI's thread-serialized MPI entry lock): the
// application thread holds it while it is inside MPI, the CR thread takes it
// to checkpoint. The MPI binding's entry guard (runtime/mpi/entry.h) is its
// application side; the CR service (cr_service.h) its CR side.
//
//   application thread (every MPI call)      CR thread (one checkpoint)
//   entry_enter_locked();                    if (!cr_lock_acquire(&stop, kick)) return;
//   ... the call ...                         ... drain, hooks, dump ...
//   entry_leave();                           cr_lock_release();
//
// The depth of calls, g_mpi_depth, is one process-wide counter, not a
// per-thread one: at most one application thread is inside MPI at a time
// (under MPI_THREAD_MULTIPLE, the one holding the thread gate,
// mpi/thread_gate.h, which takes this lock after the gate and lets it go
// first), and "depth > 0" is the "inside MPI" flag the CR thread reads.
// Nested entries (an MPI function calling another) only count.
//
// The application side must be nearly free, so there is no mutex:
//
//   application (outermost entry)         CR thread (cr_lock_acquire)
//   g_mpi_depth.store(1, relaxed)         g_cr_pending.store(1, seq_cst)
//   compiler barrier                      membarrier(PRIVATE_EXPEDITED)
//   if (g_cr_pending.load()) slow path    wait for g_mpi_depth == 0 or parked
//   ... MPI call ...
//   g_mpi_depth.store(0, release)         ... checkpoint ...
//                                         g_cr_pending = 0, futex wake
//
// Correctness (Dekker with an asymmetric fence): membarrier makes every
// running thread of the process execute a full memory barrier before it
// returns, at some point of that thread's execution. If the barrier hit the
// application thread before its store of the depth, that store and its later
// load of g_cr_pending come after the barrier, which comes after the CR
// thread's store of g_cr_pending: the load sees 1 and the entry takes the
// slow path (depth back to 0, sleep on a futex until the checkpoint ends,
// retry). If the barrier hit after the store, the store is visible to the CR
// thread's load after membarrier returns: it sees depth > 0 and waits. The
// compiler barrier keeps the store before the load in the generated code;
// the CPU reordering (StoreLoad) is what membarrier covers. Either way the
// application and the CR thread are never both "in". A thread not running
// at that moment goes through the scheduler, itself a full barrier.
// Without membarrier (old kernel, seccomp), the entry path issues a seq_cst
// fence instead (g_cr_entry_fence), the classic symmetric Dekker.
//
// So the uncontended application path is two plain stores (depth in, depth
// out) and one load (pending), all inline here: keep it so. Everything that
// may sleep is out of line (entry_lock.cpp).
//
// A thread blocked inside MPI (a wait in the p2p engine) is interrupted: the
// CR thread raises Engine::interrupt_requested, the wait's next turn parks
// the thread (cr_park: g_cr_parked = 1, sleep until g_cr_pending is 0), the
// CR thread counts a parked thread as out, and the wait then goes on as if
// nothing happened. Parking happens only at the top of a wait turn, where
// the engine's state is consistent.
#pragma once

#include <atomic>

namespace lz::rt {

// Depth of MPI calls of the (one) application thread inside MPI; 0: outside.
extern std::atomic<int> g_mpi_depth;
// 1 while the CR thread takes or holds the entry lock.
extern std::atomic<int> g_cr_pending;
// 1 while the application thread is parked in an interrupted wait.
extern std::atomic<int> g_cr_parked;
// True when membarrier is unavailable: the entry path fences instead.
extern bool g_cr_entry_fence;

// ---- Application side ----------------------------------------------------------------------

// Outermost entry found a checkpoint pending: steps out, sleeps until it is
// over, steps in again.
void cr_slow_enter();

// Entry with checkpointing off: counts the call, takes no lock.
inline void entry_enter_unlocked() {
  g_mpi_depth.store(g_mpi_depth.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// Entry with checkpointing on: the outermost entry takes the lock (see the
// banner); a nested one only counts.
inline void entry_enter_locked() {
  const int d = g_mpi_depth.load(std::memory_order_relaxed);
  g_mpi_depth.store(d + 1, std::memory_order_relaxed);
  if (d != 0) return;  // nested: the outermost entry already holds the lock
  if (__builtin_expect(g_cr_entry_fence, 0)) std::atomic_thread_fence(std::memory_order_seq_cst);
  else std::atomic_signal_fence(std::memory_order_seq_cst);
  if (__builtin_expect(g_cr_pending.load(std::memory_order_acquire) != 0, 0)) cr_slow_enter();
}

// Leaves one level (either kind of entry).
inline void entry_leave() {
  g_mpi_depth.store(g_mpi_depth.load(std::memory_order_relaxed) - 1, std::memory_order_release);
}

inline bool inside_mpi() { return g_mpi_depth.load(std::memory_order_relaxed) > 0; }

// Application thread, from the engine's interrupt handler: parks until no
// checkpoint is pending.
void cr_park();

// ---- CR side ---------------------------------------------------------------------------------

// Registers the process for expedited membarrier; false (and g_cr_entry_fence
// set) when the kernel does not offer it. Call before the first locked entry.
bool cr_lock_init();
// Takes the entry lock: pending, barrier, then waits until the application
// thread is outside MPI or parked. `kick` is called once after the barrier
// (it interrupts a blocked wait). Gives up, releasing, when *stop becomes
// true (returns false). Only the CR thread calls it.
template <typename Kick>
bool cr_lock_acquire(const std::atomic<bool>* stop, Kick kick);
bool cr_lock_wait_out(const std::atomic<bool>* stop);
void cr_lock_announce();
// Releases the entry lock and wakes a blocked entry or a parked thread.
void cr_lock_release();
// Another runtime thread (the one-sided progress thread, osc/progress_thread.h)
// takes the entry lock only when the application thread is outside MPI and
// no checkpoint holds or takes it: true when taken (release with
// cr_lock_release()), false at once otherwise. The CR thread and such a
// thread exclude each other (cr_lock_announce waits for it to let go).
bool cr_lock_try();
// 1 while the application thread sleeps at an MPI entry, waiting out a
// checkpoint (cr_slow_enter).
extern std::atomic<int> g_cr_blocked;
// The CR thread, holding the lock: waits until the application thread is
// stopped at an entry or parked (not computing outside MPI), for at most
// `timeout_s`; false when it did not stop in time. A checkpoint of
// memory other processes write (a shared-memory window) needs every
// rank's program stopped.
bool cr_lock_wait_stopped(double timeout_s);

template <typename Kick>
bool cr_lock_acquire(const std::atomic<bool>* stop, Kick kick) {
  cr_lock_announce();
  kick();
  return cr_lock_wait_out(stop);
}

}  // namespace lz::rt
