#include "criu_dumpable.h"

#include <dirent.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "lazarus/procfiles/file_scan.h"

namespace lz::cr::criu {
namespace {

std::string proc(pid_t pid, const std::string& rest) { return "/proc/" + std::to_string(pid) + "/" + rest; }

// CRIU 4.1.1 fails on every IPv4/IPv6 socket from kernel 6.16 on.
bool inet_sockets_fail() {
  utsname u{};
  int major = 0, minor = 0;
  if (uname(&u) != 0 || std::sscanf(u.release, "%d.%d", &major, &minor) != 2) return true;
  return major > 6 || (major == 6 && minor >= 16);
}

// "TCP", "UDP6", "raw" ... for `pid`'s socket `fd` when it is an IPv4/IPv6
// one, else "". Asked of the socket itself (through a copy from
// pidfd_getfd for another process): an unbound or unconnected socket is in
// none of /proc/net's tables.
std::string inet_kind(pid_t pid, int fd) {
  int own = -1;
  if (pid == getpid()) {
    own = dup(fd);
  } else {
    int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    if (pidfd < 0) return {};
    own = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, fd, 0));
    close(pidfd);
  }
  if (own < 0) return {};
  int domain = -1, type = -1;
  socklen_t len = sizeof domain;
  socklen_t tlen = sizeof type;
  const bool ok = getsockopt(own, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 &&
                  getsockopt(own, SOL_SOCKET, SO_TYPE, &type, &tlen) == 0;
  close(own);
  if (!ok || (domain != AF_INET && domain != AF_INET6)) return {};
  const std::string v6 = domain == AF_INET6 ? "6" : "";
  return type == SOCK_STREAM ? "TCP" + v6 : type == SOCK_DGRAM ? "UDP" + v6 : "raw" + v6;
}

// What one reading of /proc/PID/maps tells: System V segments attached,
// and files mapped after they were deleted (not memfds, which CRIU saves by
// their descriptor). CRIU reaches the latter only through
// /proc/PID/map_files, which the kernel opens to CAP_CHECKPOINT_RESTORE in
// the initial user namespace alone: root's, never an ordinary user's job
// namespace.
struct Mappings {
  std::vector<std::string> sysv;
  std::vector<std::string> deleted;
};

Mappings mappings(pid_t pid) {
  Mappings m;
  auto add = [](std::vector<std::string>& v, std::string x) {
    if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(std::move(x));
  };
  std::ifstream in(proc(pid, "maps"));
  std::string line;
  while (std::getline(in, line)) {
    if (const size_t at = line.find("/SYSV"); at != std::string::npos) {
      add(m.sysv, line.substr(at));
      continue;
    }
    const size_t at = line.find(" /");
    if (at == std::string::npos || line.size() < 10 || line.compare(line.size() - 10, 10, " (deleted)") != 0 ||
        line.find("/memfd:") != std::string::npos)
      continue;
    add(m.deleted, line.substr(line.find_first_not_of(' ', at)));
  }
  return m;
}

std::vector<std::string> inet_fds(pid_t pid) {
  std::vector<std::string> out;
  DIR* d = opendir(proc(pid, "fd").c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    char buf[64];
    ssize_t n = readlink(proc(pid, std::string("fd/") + e->d_name).c_str(), buf, sizeof buf - 1);
    if (n <= 0) continue;
    buf[n] = '\0';
    if (std::strncmp(buf, "socket:", 7) != 0) continue;
    const std::string kind = inet_kind(pid, std::atoi(e->d_name));
    if (kind.empty()) continue;
    out.push_back("fd " + std::string(e->d_name) + " (" + kind + ")");
  }
  closedir(d);
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

Status check_dumpable(pid_t root) {
  std::vector<std::string> problems;
  const bool check_inet = inet_sockets_fail();
  for (pid_t pid : procfiles::process_tree(root)) {
    const std::string who = pid == root ? "pid " + std::to_string(pid) : "its child pid " + std::to_string(pid);
    const Mappings maps = mappings(pid);
    if (!maps.sysv.empty())
      problems.push_back(who + " has System V shared memory attached (" + joined(maps.sysv) +
                         "), which CRIU saves only with an IPC namespace of the process's own; use POSIX shared "
                         "memory (shm_open) or a file mapped MAP_SHARED instead, which are restored");
    if (geteuid() != 0 && !maps.deleted.empty())
      problems.push_back(who + " maps files that were deleted (" + joined(maps.deleted) +
                         "), which CRIU can save only as root (it reads them through /proc/PID/map_files, "
                         "open to CAP_CHECKPOINT_RESTORE outside every user namespace alone); unlink them after "
                         "the job, or run it as root");
    if (check_inet)
      if (auto fds = inet_fds(pid); !fds.empty())
        problems.push_back(who + " holds IPv4/IPv6 sockets of its own (" + joined(fds) +
                           "), which CRIU 4.1.1 cannot save on Linux 6.16 and later; close them before the "
                           "checkpoint (an LZ_Checkpoint safe point, or cr=app)");
  }
  if (problems.empty()) return Status::Ok();
  std::string msg = "CRIU cannot save this process: ";
  for (size_t i = 0; i < problems.size(); ++i) msg += (i ? "; " : "") + problems[i];
  return Unavailable(msg);
}

}  // namespace lz::cr::criu
