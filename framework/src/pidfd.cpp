#include "lazarus/pidfd.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace lz {

int pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

}  // namespace lz
