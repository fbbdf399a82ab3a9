#include "libcr_state.h"

#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>

namespace lz::libcr {

std::atomic<int> g_state{kIdle};
std::atomic<int> g_cs_count{0};
std::atomic<int> g_idle_gen{0};

thread_local bool tl_in_callback __attribute__((tls_model("initial-exec"))) = false;
thread_local int tl_cs_depth __attribute__((tls_model("initial-exec"))) = 0;
thread_local int tl_client_id __attribute__((tls_model("initial-exec"))) = 0;

namespace {
thread_local char tl_error[1024] __attribute__((tls_model("initial-exec")));
}

static_assert(sizeof(std::atomic<int>) == sizeof(int), "futex word must be a plain int");

void futex_wait(std::atomic<int>* word, int expected) {
  syscall(SYS_futex, reinterpret_cast<int*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}

void futex_wake_all(std::atomic<int>* word) {
  syscall(SYS_futex, reinterpret_cast<int*>(word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

pid_t current_tid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

int fail(int err, const std::string& message) {
  std::snprintf(tl_error, sizeof tl_error, "%s", message.c_str());
  errno = err;
  return -1;
}

const char* last_error() { return tl_error; }
void clear_error() { tl_error[0] = '\0'; }

}  // namespace lz::libcr
