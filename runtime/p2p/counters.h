// Counters: what the runtime counts for the MPI tool interface's performance
// variables (runtime/mpi/tool). One instance per process, written by the
// thread that runs MPI (and the CR thread during a checkpoint), read by any
// thread: relaxed atomics, stored without a read-modify-write (one writer at
// a time), so counting costs a plain load and store on the hot path.
//
//   lz::rt::Counters& c = lz::rt::counters();
//   c.bump(c.rendezvous_sends);
//   uint64_t now = c.unexpected_now.load(std::memory_order_relaxed);
//
// Traffic per transport is not here: the engine counts it per peer already
// (Engine::traffic_of).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace lz::rt {

struct Counters {
  std::atomic<uint64_t> unexpected_now{0};    // messages waiting in the unexpected queues
  std::atomic<uint64_t> unexpected_high{0};   // the most there were at once
  std::atomic<uint64_t> rendezvous_sends{0};  // sends that went by rendezvous (an RTS)
  std::atomic<uint64_t> checkpoints{0};       // checkpoints this process took part in, completed
  std::atomic<uint64_t> checkpoint_ns{0};     // their time, request to done
  std::atomic<uint64_t> drain_ns{0};          // of which draining (the cr_drain_time variable says what)

  // The steady clock in ns, for the times above.
  static uint64_t now_ns() {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
  }
  static void bump(std::atomic<uint64_t>& c, uint64_t by = 1) {
    c.store(c.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
  }
  void unexpected_added() {
    const uint64_t n = unexpected_now.load(std::memory_order_relaxed) + 1;
    unexpected_now.store(n, std::memory_order_relaxed);
    if (n > unexpected_high.load(std::memory_order_relaxed)) unexpected_high.store(n, std::memory_order_relaxed);
  }
  void unexpected_removed() {
    unexpected_now.store(unexpected_now.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
  }
};

inline Counters& counters() {
  static Counters c;
  return c;
}

}  // namespace lz::rt
