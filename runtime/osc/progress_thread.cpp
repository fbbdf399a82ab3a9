#include "osc/progress_thread.h"

#include <time.h>

#include <atomic>
#include <thread>

#include "cr/entry_lock.h"
#include "p2p/engine.h"
#include "p2p/runtime.h"

namespace lz::osc {

namespace {
std::thread g_thread;
std::atomic<bool> g_stop{false};
int g_needs = 0;  // windows whose agent serves messages

void run(rt::Engine* engine, long interval_ns) {
  uint64_t seen = engine->turns();
  while (!g_stop.load(std::memory_order_acquire)) {
    struct timespec ts {
      interval_ns / 1000000000, interval_ns % 1000000000
    };
    nanosleep(&ts, nullptr);
    // Steps in only when no one progressed the engine for a whole interval:
    // a program that calls MPI serves its windows itself, and is not
    // disturbed (taking the lock costs it a memory barrier and may make
    // its next call wait).
    const uint64_t now = engine->turns();
    if (now != seen) {
      seen = now;
      continue;
    }
    if (rt::inside_mpi() || !rt::cr_lock_try()) continue;
    // Turns while they find work, a bounded number: the program may be
    // waiting to enter.
    for (int i = 0; i < 64 && engine->progress() > 0; ++i) {
    }
    seen = engine->turns();
    rt::cr_lock_release();
  }
}
}  // namespace

void ProgressThread::agent_needed() {
  if (g_needs++ != 0 || g_thread.joinable()) return;
  rt::Runtime& rt = rt::runtime();
  const long interval_us = rt.registry().params().get_int("osc_progress_interval");
  if (interval_us <= 0) return;
  g_stop.store(false);
  g_thread = std::thread(run, &rt.engine(), interval_us * 1000);
}

void ProgressThread::agent_done() {
  if (--g_needs != 0 || !g_thread.joinable()) return;
  // The caller is inside MPI: the thread holds no lock now, and cannot take it.
  g_stop.store(true, std::memory_order_release);
  g_thread.join();
}

}  // namespace lz::osc
