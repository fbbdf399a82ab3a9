#include "lazarus/unique_fd.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "lazarus/log.h"

namespace lz {

void UniqueFd::reset(int fd) {
  if (fd_ >= 0 && ::close(fd_) != 0 && errno != EINTR)
    log::debug("close(%d) failed: %s", fd_, std::strerror(errno));
  fd_ = fd;
}

}  // namespace lz
