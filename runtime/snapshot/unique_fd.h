// The snapshot store's descriptors are lz::UniqueFd (lazarus/unique_fd.h);
// descriptors that were written to are fsync()ed before they are closed.
#pragma once

#include "lazarus/unique_fd.h"

namespace lz::snapshot {
using UniqueFd = ::lz::UniqueFd;
}  // namespace lz::snapshot
