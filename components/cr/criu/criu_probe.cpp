#include "criu_probe.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace lz::cr::criu {

std::string Version::text() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

StatusOr<Version> probe_version(const std::string& binary) {
  if (binary.empty()) return Unavailable("no criu binary was found at build time; run scripts/setup, or set cr_criu_binary");
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
  if (geteuid() == 0) return Status::Ok();
  std::ifstream st("/proc/self/status");
  std::string line;
  while (std::getline(st, line)) {
    if (line.rfind("CapEff:", 0) != 0) continue;
    unsigned long long caps = std::stoull(line.substr(7), nullptr, 16);
    constexpr int kCapSysAdmin = 21, kCapCheckpointRestore = 40;
    if (caps & ((1ull << kCapSysAdmin) | (1ull << kCapCheckpointRestore))) return Status::Ok();
  }
  return Unavailable("needs root or CAP_CHECKPOINT_RESTORE (run as root, or `setcap cap_checkpoint_restore+eip` "
                     "on the criu binary and the launcher)");
}

}  // namespace lz::cr::criu
