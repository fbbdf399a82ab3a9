// The callbacks registered with cr_register_callback().
//
// Thread-context callbacks are process-wide, in registration order. Signal-
// context callbacks belong to the thread that registered them; each such
// thread has a slot in a fixed table, found by tid from the signal handler
// without locks or allocation. A thread's slot is released when it exits.
// Ids carry their context bit, as BLCR's: index | CR_THREAD_CONTEXT or
// index | CR_SIGNAL_CONTEXT.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "lazarus/libcr.h"

namespace lz::libcr {

struct Callback {
  cr_callback_t func = nullptr;
  void* arg = nullptr;
};

// One level of a nested callback chain (see checkpoint_engine.h).
struct Frame {
  int index = 0;
  bool called = false;  // the callback has called cr_checkpoint()
  int outcome = 0;
};

inline constexpr int kMaxSignalThreads = 256;
inline constexpr int kMaxSignalCallbacks = 64;

struct SignalSlot {
  std::atomic<pid_t> tid{0};
  std::atomic<int> count{0};
  Callback cbs[kMaxSignalCallbacks];
  // Owned by the slot's thread while its handler runs.
  Frame* current = nullptr;
  int gen0 = 0;          // dump generation seen when the handler started
  bool arrived = false;  // this thread's chain reached its end (or cancelled)
};

class CallbackRegistry {
 public:
  static CallbackRegistry& instance();

  // Both return the id, or -1 with errno (fail()).
  int add_thread(cr_callback_t func, void* arg);
  int add_signal(cr_callback_t func, void* arg);
  int replace(int id, cr_callback_t func, void* arg, int flags);

  std::vector<Callback> thread_callbacks();
  // Held by the checkpoint engine through the signal phase (no registration
  // may change a slot meanwhile).
  std::mutex& mutex() { return mu_; }
  SignalSlot* slots() { return slots_; }
  // The slot of the calling thread, or null. Async-signal-safe.
  SignalSlot* own_slot();
  // Replaces the callback at `index` of the running chain (cr_replace_self).
  void replace_running_thread(int index, cr_callback_t func, void* arg);

 private:
  CallbackRegistry();
  std::mutex mu_;
  std::vector<Callback> thread_cbs_;
  SignalSlot slots_[kMaxSignalThreads];
};

}  // namespace lz::libcr
