#include "shm_fd.h"

#include <unistd.h>

namespace lz::transport::shm {

void UniqueFd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace lz::transport::shm
