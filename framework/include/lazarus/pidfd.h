// pidfd_open(2) for liveness checks: a descriptor that becomes readable when
// process `pid` exits (the transports watch same-host peers this way).
#pragma once

#include <sys/types.h>

namespace lz {

// The pidfd of `pid`, or -1 with errno set (ESRCH: gone already; ENOSYS: a
// kernel without pidfds, where callers fall back to kill(pid, 0)).
int pidfd_open(pid_t pid);

}  // namespace lz
