#include "shm_membarrier.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace lz::transport::shm::membarrier {
namespace {

long call(int cmd) { return ::syscall(__NR_membarrier, cmd, 0u, 0); }

}  // namespace

bool register_process() {
  const long mask = call(MEMBARRIER_CMD_QUERY);
  constexpr long kNeeded = MEMBARRIER_CMD_GLOBAL_EXPEDITED | MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED;
  if (mask < 0 || (mask & kNeeded) != kNeeded) return false;
  // Registering is idempotent; the first barrier proves the call is allowed
  // here (seccomp filters may pass QUERY and refuse the rest).
  return call(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0 && run_global();
}

bool run_global() { return call(MEMBARRIER_CMD_GLOBAL_EXPEDITED) == 0; }

}  // namespace lz::transport::shm::membarrier
