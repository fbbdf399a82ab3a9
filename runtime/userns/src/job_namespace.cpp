#include "lazarus/userns/job_namespace.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>

#include "lazarus/userns/capabilities.h"

namespace lz::userns {
namespace {

std::atomic<bool> g_entry_allowed{false};

// Steps of enter() a probe reports as its exit status (errno in the status
// would not fit; the parent reads errno from the pipe).
enum Step : int { kOk = 0, kUnshare = 1, kMaps = 2, kCaps = 3 };

bool write_file(const char* path, const std::string& text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  return ok;
}

std::optional<long> read_sysctl(const char* path) {
  std::ifstream in(path);
  long v = 0;
  if (!(in >> v)) return std::nullopt;
  return v;
}

// Does enter()'s work up to `step` failing; returns the failed step.
int enter_here(int also, uid_t uid, gid_t gid) {
  if (unshare(CLONE_NEWUSER | also) != 0) return kUnshare;
  if (!write_file("/proc/self/setgroups", "deny") ||
      !write_file("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1") ||
      !write_file("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1"))
    return kMaps;
  if (!keep_only({kCapSysAdmin, kCapCheckpointRestore}, {kCapCheckpointRestore}).ok()) return kCaps;
  return kOk;
}

Status explain(int step, int err) {
  const std::string what = std::string(std::strerror(err));
  if (step == kUnshare) {
    // The switches that forbid ordinary users their own user namespace, the
    // ones this kernel has.
    if (auto v = read_sysctl("/proc/sys/kernel/unprivileged_userns_clone"); v && *v == 0)
      return Unavailable(
          "this kernel forbids ordinary users a user namespace (kernel.unprivileged_userns_clone = 0); "
          "as root, once: `sysctl -w kernel.unprivileged_userns_clone=1` (scripts/setup does it), or run "
          "as root");
    if (auto v = read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); v && *v != 0)
      return Unavailable(
          "AppArmor forbids ordinary users a user namespace "
          "(kernel.apparmor_restrict_unprivileged_userns = 1); as root, once: `sysctl -w "
          "kernel.apparmor_restrict_unprivileged_userns=0` (scripts/setup does it), or run as root");
    if (auto v = read_sysctl("/proc/sys/user/max_user_namespaces"); v && *v == 0)
      return Unavailable(
          "user namespaces are switched off (user.max_user_namespaces = 0); as root, once: "
          "`sysctl -w user.max_user_namespaces=15000` (scripts/setup does it), or run as root");
    return Unavailable("cannot create a user namespace (unshare: " + what +
                       "); an ordinary user checkpoints with CRIU only in one of their own: run as root, or allow "
                       "user namespaces");
  }
  if (step == kMaps)
    return Unavailable("cannot map the user's ids in a new user namespace (" + what + "); run as root");
  return Unavailable("cannot keep CAP_CHECKPOINT_RESTORE in a user namespace (" + what +
                     "): Linux >= 5.9 has it; run as root on this kernel");
}

}  // namespace

void allow_entry() { g_entry_allowed = true; }
bool entry_allowed() { return g_entry_allowed; }

bool wanted() { return !checkpoint_capable(); }

Status probe() {
  static const Status cached = [] {
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0) return ErrnoError("pipe", errno);
    const uid_t uid = geteuid();
    const gid_t gid = getegid();
    pid_t child = fork();
    if (child < 0) {
      close(pipefd[0]);
      close(pipefd[1]);
      return ErrnoError("fork for a user namespace probe", errno);
    }
    if (child == 0) {
      int step = enter_here(0, uid, gid);
      int err = errno;
      if (write(pipefd[1], &err, sizeof err) < 0) _exit(100);
      _exit(step);
    }
    close(pipefd[1]);
    int err = 0;
    if (read(pipefd[0], &err, sizeof err) != sizeof err) err = EIO;
    close(pipefd[0]);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == kOk) return Status::Ok();
    return explain(WIFEXITED(status) ? WEXITSTATUS(status) : kUnshare, err);
  }();
  return cached;
}

Status enter(int also) {
  int step = enter_here(also, geteuid(), getegid());
  if (step == kOk) return Status::Ok();
  return explain(step, errno);
}

bool inside() {
  // The initial namespace maps every id ("0 0 4294967295"); enter()'s maps one.
  std::ifstream in("/proc/self/uid_map");
  long inner = 0, outer = 0, count = 0;
  if (!(in >> inner >> outer >> count)) return false;
  return count == 1;
}

}  // namespace lz::userns
