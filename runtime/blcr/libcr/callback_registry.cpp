#include "callback_registry.h"

#include <pthread.h>
#include <signal.h>

#include <cerrno>

#include "libcr_state.h"

namespace lz::libcr {
namespace {

pthread_key_t g_slot_key;

// Releases the slot of an exiting thread.
void release_slot(void* p) {
  auto* s = static_cast<SignalSlot*>(p);
  std::lock_guard<std::mutex> lock(CallbackRegistry::instance().mutex());
  s->count.store(0);
  s->tid.store(0);
}

// Blocks CR_SIGNUM in the calling thread while its slot changes.
class SignalBlock {
 public:
  SignalBlock() {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, CR_SIGNUM);
    pthread_sigmask(SIG_BLOCK, &s, &old_);
  }
  ~SignalBlock() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

 private:
  sigset_t old_;
};

}  // namespace

CallbackRegistry& CallbackRegistry::instance() {
  static CallbackRegistry* r = new CallbackRegistry();  // never destroyed: handlers may run at exit
  return *r;
}

CallbackRegistry::CallbackRegistry() { pthread_key_create(&g_slot_key, &release_slot); }

int CallbackRegistry::add_thread(cr_callback_t func, void* arg) {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_cbs_.size() >= static_cast<size_t>(CR_MAX_CALLBACKS)) return fail(ENOSPC, "too many callbacks");
  thread_cbs_.push_back({func, arg});
  return static_cast<int>(thread_cbs_.size() - 1) | CR_THREAD_CONTEXT;
}

int CallbackRegistry::add_signal(cr_callback_t func, void* arg) {
  const pid_t tid = current_tid();
  SignalBlock block;
  std::lock_guard<std::mutex> lock(mu_);
  SignalSlot* slot = nullptr;
  for (auto& s : slots_)
    if (s.tid.load() == tid) slot = &s;
  if (slot == nullptr) {
    for (auto& s : slots_) {
      if (s.tid.load() == 0) {
        slot = &s;
        slot->count.store(0);
        slot->tid.store(tid);
        pthread_setspecific(g_slot_key, slot);
        break;
      }
    }
  }
  if (slot == nullptr) return fail(ENOSPC, "more than 256 threads with signal-context callbacks");
  int n = slot->count.load();
  if (n >= kMaxSignalCallbacks) return fail(ENOSPC, "more than 64 signal-context callbacks in this thread");
  slot->cbs[n] = {func, arg};
  slot->count.store(n + 1);
  return n | CR_SIGNAL_CONTEXT;
}

int CallbackRegistry::replace(int id, cr_callback_t func, void* arg, int flags) {
  const int ctx = flags & (CR_THREAD_CONTEXT | CR_SIGNAL_CONTEXT);
  if (id < 0 || (id & ctx) == 0 || (ctx != CR_THREAD_CONTEXT && ctx != CR_SIGNAL_CONTEXT))
    return fail(EINVAL, "callback id and context flag do not match");
  const int index = id & ~(CR_THREAD_CONTEXT | CR_SIGNAL_CONTEXT);
  if (ctx == CR_THREAD_CONTEXT) {
    std::lock_guard<std::mutex> lock(mu_);
    if (index >= static_cast<int>(thread_cbs_.size())) return fail(EINVAL, "no such thread-context callback");
    thread_cbs_[index] = {func, arg};
    return 0;
  }
  SignalBlock block;
  std::lock_guard<std::mutex> lock(mu_);
  SignalSlot* slot = own_slot();
  if (slot == nullptr || index >= slot->count.load())
    return fail(EINVAL, "no such signal-context callback in this thread");
  slot->cbs[index] = {func, arg};
  return 0;
}

std::vector<Callback> CallbackRegistry::thread_callbacks() {
  std::lock_guard<std::mutex> lock(mu_);
  return thread_cbs_;
}

SignalSlot* CallbackRegistry::own_slot() {
  const pid_t tid = current_tid();
  for (auto& s : slots_)
    if (s.tid.load() == tid) return &s;
  return nullptr;
}

void CallbackRegistry::replace_running_thread(int index, cr_callback_t func, void* arg) {
  std::lock_guard<std::mutex> lock(mu_);
  if (index >= 0 && index < static_cast<int>(thread_cbs_.size())) thread_cbs_[index] = {func, arg};
}

}  // namespace lz::libcr
