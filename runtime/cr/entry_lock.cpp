#include "cr/entry_lock.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <mutex>

namespace lz::rt {

std::atomic<int> g_mpi_depth{0};
std::atomic<int> g_cr_pending{0};
std::atomic<int> g_cr_parked{0};
bool g_cr_entry_fence = false;
std::atomic<int> g_cr_blocked{0};

namespace {
bool g_have_membarrier = false;
// Held by whichever runtime thread holds or is taking the entry lock (the
// CR thread, the progress thread), from announce to release.
std::mutex g_owner;

int membarrier(int cmd) { return static_cast<int>(syscall(__NR_membarrier, cmd, 0u, 0)); }

// Sleeps until g_cr_pending is 0 (a futex wait, no spinning).
void wait_not_pending() {
  while (g_cr_pending.load(std::memory_order_acquire) != 0) g_cr_pending.wait(1, std::memory_order_acquire);
}
}  // namespace

void cr_slow_enter() {
  for (;;) {
    g_mpi_depth.store(0, std::memory_order_seq_cst);
    g_cr_blocked.store(1, std::memory_order_seq_cst);
    wait_not_pending();
    g_cr_blocked.store(0, std::memory_order_seq_cst);
    g_mpi_depth.store(1, std::memory_order_relaxed);
    if (g_cr_entry_fence) std::atomic_thread_fence(std::memory_order_seq_cst);
    else std::atomic_signal_fence(std::memory_order_seq_cst);
    if (g_cr_pending.load(std::memory_order_acquire) == 0) return;
  }
}

bool cr_lock_init() {
  if (g_have_membarrier) return true;
  int cmds = membarrier(MEMBARRIER_CMD_QUERY);
  if (cmds >= 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
      membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0) {
    g_have_membarrier = true;
    g_cr_entry_fence = false;
    return true;
  }
  // No expedited membarrier: every outermost entry pays a full fence.
  g_cr_entry_fence = true;
  return false;
}

void cr_lock_announce() {
  g_owner.lock();
  g_cr_pending.store(1, std::memory_order_seq_cst);
  if (g_have_membarrier && membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) {
    // Cannot happen once registered; if it does, fall back for good. The
    // application may have entered without a fence meanwhile, so wait until
    // it has been seen outside once more below (the depth check stays valid
    // with the fence from now on).
    g_cr_entry_fence = true;
    g_have_membarrier = false;
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
}

bool cr_lock_wait_out(const std::atomic<bool>* stop) {
  // The application leaves MPI with a plain store, so there is nothing to
  // sleep on: back off from 20 us to 2 ms (the wait is short: until the
  // current call returns or its wait parks, which the kick made immediate).
  long ns = 20000;
  for (;;) {
    if (g_mpi_depth.load(std::memory_order_seq_cst) == 0 || g_cr_parked.load(std::memory_order_seq_cst) != 0)
      return true;
    if (stop != nullptr && stop->load(std::memory_order_acquire)) {
      cr_lock_release();
      return false;
    }
    struct timespec ts{0, ns};
    nanosleep(&ts, nullptr);
    if (ns < 2000000) ns *= 2;
  }
}

void cr_lock_release() {
  g_cr_pending.store(0, std::memory_order_seq_cst);
  g_cr_pending.notify_all();
  g_owner.unlock();
}

bool cr_lock_try() {
  if (g_mpi_depth.load(std::memory_order_relaxed) != 0) return false;
  if (!g_owner.try_lock()) return false;
  g_cr_pending.store(1, std::memory_order_seq_cst);
  if (g_have_membarrier)
    membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
  else
    std::atomic_thread_fence(std::memory_order_seq_cst);
  if (g_mpi_depth.load(std::memory_order_seq_cst) == 0) return true;
  cr_lock_release();
  return false;
}

bool cr_lock_wait_stopped(double timeout_s) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    if (g_cr_blocked.load(std::memory_order_seq_cst) != 0 || g_cr_parked.load(std::memory_order_seq_cst) != 0)
      return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    struct timespec ts {
      0, 1000000
    };
    nanosleep(&ts, nullptr);
  }
}

void cr_park() {
  for (;;) {
    g_cr_parked.store(1, std::memory_order_seq_cst);
    wait_not_pending();
    g_cr_parked.store(0, std::memory_order_seq_cst);
    // A new checkpoint may have seen us parked before we stepped out: then
    // it owns the engine, and we park again (Dekker on parked/pending).
    if (g_cr_pending.load(std::memory_order_seq_cst) == 0) return;
  }
}

}  // namespace lz::rt
