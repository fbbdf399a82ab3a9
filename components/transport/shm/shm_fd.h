// shm's descriptors (FIFOs, pidfds, epoll) are lz::UniqueFd.
#pragma once

#include "lazarus/unique_fd.h"

namespace lz::transport::shm {
using UniqueFd = ::lz::UniqueFd;
}  // namespace lz::transport::shm
