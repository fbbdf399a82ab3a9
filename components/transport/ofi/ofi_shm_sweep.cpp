#include "ofi_shm_sweep.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

#include "lazarus/log.h"

namespace lz::transport::ofi {
namespace {

constexpr const char* kShmDir = "/dev/shm";

// "<pid>:<n>:<m>", digits only: the pid, or 0 when the name is not one.
pid_t pid_of(const char* name) {
  const char* p = name;
  long v[3];
  for (int i = 0; i < 3; ++i) {
    if (*p < '0' || *p > '9') return 0;
    char* end = nullptr;
    v[i] = std::strtol(p, &end, 10);
    p = end;
    if (i < 2 && *p++ != ':') return 0;
  }
  if (*p != '\0' || v[0] <= 0 || v[0] >= (1L << 30)) return 0;
  return static_cast<pid_t>(v[0]);
}

// True when a process we can see maps /dev/shm/<name>. Its owner maps its
// own region for as long as it lives, so an unmapped region is stale even
// when a process of another PID namespace happens to have the pid.
bool mapped_by_anyone(const std::string& path) {
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return true;  // cannot tell: keep the file
  bool found = false;
  while (struct dirent* e = ::readdir(proc)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    std::ifstream maps(std::string("/proc/") + e->d_name + "/maps");
    for (std::string line; !found && std::getline(maps, line);)
      found = line.size() >= path.size() && line.compare(line.size() - path.size(), path.size(), path) == 0;
    if (found) break;
  }
  ::closedir(proc);
  return found;
}

}  // namespace

int sweep_stale_shm_files(const std::vector<pid_t>& pids) {
  if (pids.empty()) return 0;
  DIR* d = ::opendir(kShmDir);
  if (d == nullptr) return 0;
  const pid_t self = ::getpid();
  const uid_t uid = ::geteuid();
  int removed = 0;
  while (struct dirent* e = ::readdir(d)) {
    const pid_t pid = pid_of(e->d_name);
    if (pid == 0 || std::find(pids.begin(), pids.end(), pid) == pids.end()) continue;
    if (pid != self && !(::kill(pid, 0) != 0 && errno == ESRCH)) continue;  // its owner may be alive
    struct stat st;
    if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) || st.st_uid != uid)
      continue;
    if (mapped_by_anyone(std::string(kShmDir) + "/" + e->d_name)) continue;
    if (::unlinkat(::dirfd(d), e->d_name, 0) == 0) {
      ++removed;
      log::debug("ofi: removed %s/%s, a region of libfabric's shm provider left by pid %d", kShmDir, e->d_name,
                 static_cast<int>(pid));
    }
  }
  ::closedir(d);
  return removed;
}

}  // namespace lz::transport::ofi
