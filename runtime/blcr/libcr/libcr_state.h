// Process-wide state of libcr shared by its parts: the checkpoint state
// machine word, the critical-section count, futex helpers, per-thread error
// text, and the configuration read from the environment.
//
// Everything touched from a signal handler or from cr_enter_cs/cr_leave_cs
// (documented async-signal-safe) is a lock-free atomic or an initial-exec
// thread-local, and waits are raw futexes.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <string>

namespace lz::libcr {

enum State : int { kIdle = 0, kPending = 1, kActive = 2 };

// CR_STATE_* of cr_status().
extern std::atomic<int> g_state;
// Sum of the critical-section depths of all threads.
extern std::atomic<int> g_cs_count;
// Incremented each time a checkpoint ends (state back to kIdle).
extern std::atomic<int> g_idle_gen;

void futex_wait(std::atomic<int>* word, int expected);
void futex_wake_all(std::atomic<int>* word);

pid_t current_tid();

// Per-thread flags, initial-exec TLS so that signal handlers may read them.
extern thread_local bool tl_in_callback __attribute__((tls_model("initial-exec")));
extern thread_local int tl_cs_depth __attribute__((tls_model("initial-exec")));
extern thread_local int tl_client_id __attribute__((tls_model("initial-exec")));

// Sets errno and the thread's detailed message (cr_lz_last_error); returns -1.
int fail(int err, const std::string& message);
const char* last_error();
void clear_error();

}  // namespace lz::libcr
