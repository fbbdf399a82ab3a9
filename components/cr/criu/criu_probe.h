// Finding a usable CRIU: binary, version, and the privilege it needs.
#pragma once

#include <string>

#include "lazarus/status.h"

namespace lz::cr::criu {

struct Version {
  int major = 0, minor = 0, patch = 0;
  std::string text() const;
  bool at_least(int ma, int mi) const { return major > ma || (major == ma && minor >= mi); }
};

// Runs `<binary> --version` and parses "Version: X.Y[.Z]".
StatusOr<Version> probe_version(const std::string& binary);
// Ok when this process may checkpoint and restore: root, or
// CAP_CHECKPOINT_RESTORE / CAP_SYS_ADMIN in the effective set (a rank of a
// job its launcher runs in a user namespace: lazarus/userns/job_namespace.h),
// or a launcher or tool that can make such a namespace here. The error
// names what is missing and the fix.
Status check_privilege();

}  // namespace lz::cr::criu
