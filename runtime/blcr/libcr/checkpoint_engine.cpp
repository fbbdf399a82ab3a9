#include "checkpoint_engine.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <mutex>
#include <vector>

#include "callback_registry.h"
#include "libcr_state.h"

namespace lz::libcr {
namespace {

// State shared with the signal handlers of the threads with signal-context
// callbacks: lock-free, waited on with futexes.
std::atomic<bool> g_sig_phase{false};
std::atomic<int> g_sig_ready{0};  // threads whose chain reached its end (or cancelled)
std::atomic<int> g_sig_done{0};   // handlers finished
std::atomic<int> g_dump_gen{0};   // bumped when the outcome is published
std::atomic<int> g_outcome{0};
std::atomic<int> g_abort{0};  // cancellation code from any chain (errno style)
std::atomic<bool> g_abort_perm{false};

// The thread chain runs on the service thread only.
Frame* g_thread_frame = nullptr;
std::vector<Callback> g_thread_snapshot;
pid_t g_service_tid = 0;

struct sigaction g_old_action;

int abort_code_for(int flags) {
  const int user = (flags >> 16) & 0xffff;
  if (flags & CR_CHECKPOINT_PERM_FAILURE) return user ? user : CR_EPERMFAIL;
  if (flags & CR_CHECKPOINT_TEMP_FAILURE) return user ? user : CR_ETEMPFAIL;
  return CR_EOMITTED;
}

int run_signal_chain(SignalSlot* s, int index);

// The end of one thread's signal chain: wait, inside cr_checkpoint(), for the image.
int signal_chain_end(SignalSlot* s) {
  s->arrived = true;
  g_sig_ready.fetch_add(1);
  futex_wake_all(&g_sig_ready);
  while (g_dump_gen.load() == s->gen0) futex_wait(&g_dump_gen, s->gen0);
  return g_outcome.load();
}

int run_signal_chain(SignalSlot* s, int index) {
  if (index < 0) return signal_chain_end(s);
  Frame f;
  f.index = index;
  Frame* prev = s->current;
  s->current = &f;
  Callback cb = s->cbs[index];
  if (cb.func) cb.func(cb.arg);
  s->current = prev;
  if (!f.called) f.outcome = g_abort.load() ? -g_abort.load() : run_signal_chain(s, index - 1);
  return f.outcome;
}

}  // namespace

CheckpointEngine& CheckpointEngine::instance() {
  static CheckpointEngine* e = new CheckpointEngine();
  return *e;
}

void CheckpointEngine::install_signal_handler() {
  struct sigaction sa {};
  sa.sa_sigaction = &CheckpointEngine::on_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigfillset(&sa.sa_mask);  // nothing else interrupts the callbacks of this thread
  sigaction(CR_SIGNUM, &sa, &g_old_action);
}

void CheckpointEngine::on_signal(int sig, siginfo_t* si, void* uc) {
  if (si == nullptr || si->si_code != SI_TKILL || si->si_pid != getpid() || !g_sig_phase.load()) {
    // Not ours: whoever had the signal before us gets it.
    if (g_old_action.sa_flags & SA_SIGINFO) {
      if (g_old_action.sa_sigaction) g_old_action.sa_sigaction(sig, si, uc);
    } else if (g_old_action.sa_handler != SIG_DFL && g_old_action.sa_handler != SIG_IGN) {
      g_old_action.sa_handler(sig);
    }
    return;
  }
  const int saved_errno = errno;
  SignalSlot* s = CallbackRegistry::instance().own_slot();
  if (s != nullptr && s->current == nullptr) {
    s->arrived = false;
    s->gen0 = g_dump_gen.load();  // before announcing arrival: the publish comes after
    const bool was_in_cb = tl_in_callback;
    tl_in_callback = true;
    run_signal_chain(s, s->count.load() - 1);
    tl_in_callback = was_in_cb;
    if (!s->arrived) {
      g_sig_ready.fetch_add(1);
      futex_wake_all(&g_sig_ready);
    }
  }
  g_sig_done.fetch_add(1);
  futex_wake_all(&g_sig_done);
  errno = saved_errno;
}

void CheckpointEngine::begin(const CheckpointRequest& req) {
  req_ = req;
  failure_.clear();
  abort_code_ = 0;
  abort_perm_ = false;
  restarted_ = false;
  g_abort.store(0);
  g_abort_perm.store(false);
  g_service_tid = current_tid();

  info_ = {};
  info_.signal = req.signal;
  info_.dest = req_.dest.c_str();
  info_.requester = req.requester;
  info_.target = getpid();
  info_.scope = CR_SCOPE_PROC;

  // Deferral: once PENDING is visible, new critical sections wait; the ones
  // in progress are waited for (Dekker pairing with cs_enter's increment-then-check).
  g_state.store(kPending);
  for (int c = g_cs_count.load(); c != 0; c = g_cs_count.load()) futex_wait(&g_cs_count, c);
  g_state.store(kActive);
}

int CheckpointEngine::run() {
  g_thread_snapshot = CallbackRegistry::instance().thread_callbacks();
  tl_in_callback = true;
  int outcome = run_thread_chain(static_cast<int>(g_thread_snapshot.size()) - 1);
  tl_in_callback = false;
  // Signal-context callbacks finish their "after" part before the checkpoint is over.
  if (sig_expected_ > 0) {
    for (int d = g_sig_done.load(); d < sig_expected_; d = g_sig_done.load()) futex_wait(&g_sig_done, d);
    sig_expected_ = 0;
  }
  g_sig_phase.store(false);
  if (registry_locked_) {
    CallbackRegistry::instance().mutex().unlock();
    registry_locked_ = false;
  }
  if (g_abort.load() != 0) {
    abort_code_ = g_abort.load();
    abort_perm_ = g_abort_perm.load();
    if (failure_.empty())
      failure_ = abort_perm_ ? "a callback cancelled the checkpoint (permanent failure: the process is killed)"
                 : abort_code_ == CR_EOMITTED ? "a callback asked to leave this process out"
                                              : "a callback cancelled the checkpoint (temporary failure)";
    return -abort_code_;
  }
  return outcome;
}

void CheckpointEngine::end() {
  g_thread_snapshot.clear();
  g_state.store(kIdle);
  g_idle_gen.fetch_add(1);
  futex_wake_all(&g_idle_gen);
}

// Runs thread-context callback `index` and, through its cr_checkpoint() (or
// after it returns without calling it), the older ones; the end of the chain
// is after_thread_chain().
int CheckpointEngine::run_thread_chain(int index) {
  if (index < 0) return after_thread_chain();
  Frame f;
  f.index = index;
  Frame* prev = g_thread_frame;
  g_thread_frame = &f;
  Callback cb = g_thread_snapshot[index];
  if (cb.func) {
    int rc = cb.func(cb.arg);
    if (rc != 0) std::fprintf(stderr, "libcr: a thread-context checkpoint callback returned %d\n", rc);
  }
  g_thread_frame = prev;
  if (!f.called) f.outcome = g_abort.load() ? -g_abort.load() : run_thread_chain(index - 1);
  return f.outcome;
}

// All thread-context callbacks are inside cr_checkpoint(): signal phase, then the image.
int CheckpointEngine::after_thread_chain() {
  auto& reg = CallbackRegistry::instance();
  reg.mutex().lock();  // released in run(): no slot changes until the handlers are done
  registry_locked_ = true;
  g_sig_ready.store(0);
  g_sig_done.store(0);
  sig_expected_ = 0;
  int outcome;
  if (g_abort.load() == 0) {
    g_sig_phase.store(true);
    for (int i = 0; i < kMaxSignalThreads; ++i) {
      SignalSlot& s = reg.slots()[i];
      pid_t tid = s.tid.load();
      if (tid == 0 || s.count.load() == 0) continue;
      if (syscall(SYS_tgkill, getpid(), tid, CR_SIGNUM) == 0) {
        ++sig_expected_;
      } else {
        s.count.store(0);  // the thread is gone
        s.tid.store(0);
      }
    }
    for (int r = g_sig_ready.load(); r < sig_expected_; r = g_sig_ready.load()) futex_wait(&g_sig_ready, r);
  }
  outcome = g_abort.load() ? -g_abort.load() : dump();
  g_outcome.store(outcome);
  g_dump_gen.fetch_add(1);
  futex_wake_all(&g_dump_gen);
  return outcome;
}

int CheckpointEngine::dump() {
  if (backend_ == nullptr) {
    failure_ = "no checkpointer: cr_init() has not succeeded in this process";
    return -ENOSYS;
  }
  // The process keeps running (checkpoint_process()'s contract): cr_signal is
  // delivered by libcr once the result is known.
  auto r = backend_->checkpoint_process({req_.dir_fd, req_.dest});
  if (!r.ok()) {
    failure_ = r.status().message();
    return -EIO;
  }
  if (*r == lz::cr::Outcome::kRestarted) {
    restarted_ = true;
    restart_info_.requester = getppid();
    restart_info_.src = req_.dest.c_str();
    return 1;
  }
  return 0;
}

void CheckpointEngine::cancel(int flags) {
  int code = abort_code_for(flags);
  int expected = 0;
  g_abort.compare_exchange_strong(expected, code);
  if (flags & CR_CHECKPOINT_PERM_FAILURE) g_abort_perm.store(true);
}

int CheckpointEngine::checkpoint_from_callback(int flags) {
  const bool cancelling = (flags & (CR_CHECKPOINT_TEMP_FAILURE | CR_CHECKPOINT_PERM_FAILURE | CR_CHECKPOINT_OMIT)) != 0;
  if (tl_in_callback && current_tid() == g_service_tid && g_thread_frame != nullptr) {
    Frame* f = g_thread_frame;
    if (f->called) return -EINVAL;
    f->called = true;
    if (cancelling) {
      cancel(flags);
      f->outcome = -g_abort.load();
      return f->outcome;
    }
    f->outcome = run_thread_chain(f->index - 1);
    g_thread_frame = f;
    return f->outcome;
  }
  SignalSlot* s = tl_in_callback ? CallbackRegistry::instance().own_slot() : nullptr;
  if (s == nullptr || s->current == nullptr) return -CR_ENOTCB;
  Frame* f = s->current;
  if (f->called) return -EINVAL;
  f->called = true;
  if (cancelling) {
    cancel(flags);
    f->outcome = -g_abort.load();
    return f->outcome;
  }
  f->outcome = run_signal_chain(s, f->index - 1);
  s->current = f;
  return f->outcome;
}

int CheckpointEngine::replace_self(cr_callback_t func, void* arg, int flags) {
  const int ctx = flags & (CR_THREAD_CONTEXT | CR_SIGNAL_CONTEXT);
  if (tl_in_callback && current_tid() == g_service_tid && g_thread_frame != nullptr) {
    if (ctx != CR_THREAD_CONTEXT) return fail(EINVAL, "cr_replace_self: the running callback is thread-context");
    CallbackRegistry::instance().replace_running_thread(g_thread_frame->index, func, arg);
    return 0;
  }
  SignalSlot* s = tl_in_callback ? CallbackRegistry::instance().own_slot() : nullptr;
  if (s == nullptr || s->current == nullptr) return fail(CR_ENOTCB, "cr_replace_self outside a callback");
  if (ctx != CR_SIGNAL_CONTEXT) return fail(EINVAL, "cr_replace_self: the running callback is signal-context");
  s->cbs[s->current->index] = {func, arg};
  return 0;
}

}  // namespace lz::libcr
