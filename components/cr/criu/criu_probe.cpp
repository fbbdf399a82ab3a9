#include "criu_probe.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>

#include "lazarus/userns/capabilities.h"
#include "lazarus/userns/job_namespace.h"

namespace lz::cr::criu {

std::string Version::text() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

StatusOr<Version> probe_version(const std::string& binary) {
  if (binary.empty())
    return Unavailable("no criu binary was found at build time; run scripts/setup, or set cr_criu_binary");
  if (access(binary.c_str(), X_OK) != 0) return Unavailable("criu binary " + binary + " is not executable");
  std::string cmd = "'" + binary + "' --version 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return ErrnoError("cannot run " + binary, errno);
  std::string out;
  char buf[256];
  while (fgets(buf, sizeof buf, p)) out += buf;
  int rc = pclose(p);
  if (rc != 0) return Unavailable(binary + " --version failed: " + out);
  auto pos = out.find("Version:");
  if (pos == std::string::npos) return Unavailable("cannot read the version from `" + binary + " --version`: " + out);
  Version v;
  if (std::sscanf(out.c_str() + pos, "Version: %d.%d.%d", &v.major, &v.minor, &v.patch) < 2)
    return Unavailable("cannot parse the version in `" + out + "`");
  return v;
}

Status check_privilege() {
  if (userns::checkpoint_capable()) return Status::Ok();
  // A launcher or tool runs the job in a user namespace of its own, where
  // its ranks and criu hold CAP_CHECKPOINT_RESTORE.
  if (userns::entry_allowed()) return userns::probe();
  return Unavailable("pid " + std::to_string(getpid()) + " (uid " + std::to_string(geteuid()) +
                     ") is not root and holds no CAP_CHECKPOINT_RESTORE: start it with `mpirun`/`lazarus run` "
                     "(or `cr_run` for one process), which run it in a user namespace of its own where it holds "
                     "that capability; or use cr=app");
}

}  // namespace lz::cr::criu
