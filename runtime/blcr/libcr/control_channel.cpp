#include "control_channel.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace lz::libcr {
namespace {

// mkdir -p with mode 0700 for the components we create; the last one must be
// a real directory owned by us and not writable by others.
Status ensure_private_dir(const std::string& dir) {
  std::string partial;
  std::stringstream ss(dir);
  std::string part;
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    partial += "/" + part;
    if (mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) return ErrnoError("cannot create " + partial, errno);
  }
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0) return ErrnoError("cannot stat " + dir, errno);
  if (!S_ISDIR(st.st_mode)) return PermissionDenied(dir + " is not a directory");
  if (st.st_uid != geteuid())
    return PermissionDenied(dir + " belongs to uid " + std::to_string(st.st_uid) + ", not to us");
  if ((st.st_mode & 077) != 0 && chmod(dir.c_str(), 0700) != 0) return ErrnoError("cannot chmod 0700 " + dir, errno);
  return Status::Ok();
}

bool owned_dir(const char* p) {
  struct stat st {};
  return p && *p == '/' && stat(p, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid();
}

std::string own_dir() {
  if (const char* d = std::getenv("LAZARUS_CR_SOCKET_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_RUNTIME_DIR"); owned_dir(x)) return std::string(x) + "/lazarus/cr";
  return "/tmp/lazarus-" + std::to_string(geteuid()) + "/cr";
}

uid_t uid_of(pid_t pid) {
  struct stat st {};
  if (stat(("/proc/" + std::to_string(pid)).c_str(), &st) != 0) return static_cast<uid_t>(-1);
  return st.st_uid;
}

sockaddr_un address_of(const std::string& path, socklen_t* len) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
  *len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + std::strlen(a.sun_path) + 1);
  return a;
}

}  // namespace

void set_text(WireMsg* m, const std::string& s) { std::snprintf(m->text, sizeof m->text, "%s", s.c_str()); }

std::string text_of(const WireMsg& m) { return std::string(m.text, strnlen(m.text, sizeof m.text)); }

Status send_msg(int sock, const WireMsg& m, int fd) {
  iovec iov{const_cast<WireMsg*>(&m), sizeof m};
  msghdr h{};
  h.msg_iov = &iov;
  h.msg_iovlen = 1;
  alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int))] = {};
  if (fd >= 0) {
    h.msg_control = ctl;
    h.msg_controllen = sizeof ctl;
    cmsghdr* c = CMSG_FIRSTHDR(&h);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  }
  ssize_t n;
  do {
    n = sendmsg(sock, &h, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return ErrnoError("send on the libcr control socket", errno);
  if (n != static_cast<ssize_t>(sizeof m)) return ProtocolError("short send on the libcr control socket");
  return Status::Ok();
}

Status recv_msg(int sock, WireMsg* m, int* fd_out) {
  iovec iov{m, sizeof *m};
  msghdr h{};
  h.msg_iov = &iov;
  h.msg_iovlen = 1;
  alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int))] = {};
  h.msg_control = ctl;
  h.msg_controllen = sizeof ctl;
  ssize_t n;
  do {
    n = recvmsg(sock, &h, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return ErrnoError("receive on the libcr control socket", errno);
  int fd = -1;
  for (cmsghdr* c = CMSG_FIRSTHDR(&h); c != nullptr; c = CMSG_NXTHDR(&h, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
  if (fd >= 0 && fd_out == nullptr) close(fd);
  if (fd_out) *fd_out = fd;
  if (n == 0) return ProtocolError("the peer closed the libcr control socket");
  if (n != static_cast<ssize_t>(sizeof *m) || m->magic != kWireMagic || m->version != kWireVersion) {
    if (fd >= 0 && fd_out) {
      close(fd);
      *fd_out = -1;
    }
    return ProtocolError("malformed message on the libcr control socket");
  }
  m->text[sizeof m->text - 1] = '\0';
  return Status::Ok();
}

StatusOr<std::string> own_socket_path() {
  std::string dir = own_dir();
  LZ_RETURN_IF_ERROR(ensure_private_dir(dir));
  // Sockets left by processes that were killed: a restored process re-creates its own.
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      char* end = nullptr;
      long pid = std::strtol(e->d_name, &end, 10);
      if (pid > 0 && end && std::strcmp(end, ".sock") == 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
        unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
  }
  return dir + "/" + std::to_string(getpid()) + ".sock";
}

StatusOr<int> listen_at(const std::string& path) {
  socklen_t len;
  sockaddr_un a = address_of(path, &len);
  if (path.size() >= sizeof a.sun_path) return InvalidArgument("socket path too long: " + path);
  int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (s < 0) return ErrnoError("socket", errno);
  unlink(path.c_str());
  mode_t old = umask(077);
  int rc = bind(s, reinterpret_cast<sockaddr*>(&a), len);
  umask(old);
  if (rc != 0 || chmod(path.c_str(), 0600) != 0 || listen(s, 16) != 0) {
    int err = errno;
    close(s);
    return ErrnoError("cannot listen on " + path, err);
  }
  return s;
}

// The pids a process has in its PID namespaces, ours first ("NSpid:" of
// its status). A process that an ordinary user's cr_restart brought back
// lives in a PID namespace of its own and names its socket by the pid it
// sees there.
static std::vector<pid_t> namespace_pids(pid_t pid) {
  std::vector<pid_t> out{pid};
  std::ifstream st("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(st, line)) {
    if (line.rfind("NSpid:", 0) != 0) continue;
    std::istringstream in(line.substr(6));
    long v = 0;
    while (in >> v)
      if (v > 0 && v != pid) out.push_back(static_cast<pid_t>(v));
  }
  return out;
}

std::vector<std::string> candidate_paths(pid_t pid) {
  std::vector<std::string> dirs;
  auto add_dir = [&](const std::string& d) {
    if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  };
  add_dir(own_dir());
  uid_t u = uid_of(pid);
  if (u != static_cast<uid_t>(-1)) {
    add_dir("/run/user/" + std::to_string(u) + "/lazarus/cr");
    add_dir("/tmp/lazarus-" + std::to_string(u) + "/cr");
  }
  add_dir("/tmp/lazarus-" + std::to_string(geteuid()) + "/cr");
  std::vector<std::string> out;
  for (pid_t p : namespace_pids(pid))
    for (const std::string& d : dirs) out.push_back(d + "/" + std::to_string(p) + ".sock");
  return out;
}

double process_start_time(pid_t pid) {
  std::ifstream st("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(st)), std::istreambuf_iterator<char>());
  auto close_paren = all.rfind(')');
  if (close_paren == std::string::npos) return 0;
  std::istringstream rest(all.substr(close_paren + 2));
  std::string field;
  unsigned long long start_ticks = 0;
  for (int i = 3; i <= 22 && rest >> field; ++i)
    if (i == 22) start_ticks = std::strtoull(field.c_str(), nullptr, 10);
  std::ifstream s("/proc/stat");
  std::string line;
  double btime = 0;
  while (std::getline(s, line))
    if (line.rfind("btime ", 0) == 0) btime = std::atof(line.c_str() + 6);
  return btime + static_cast<double>(start_ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

StatusOr<int> connect_to(pid_t pid, std::string* path_used) {
  if (pid <= 0) return InvalidArgument("invalid pid " + std::to_string(pid));
  if (kill(pid, 0) != 0 && errno == ESRCH) return NotFound("no process with pid " + std::to_string(pid));
  const double started = process_start_time(pid);
  bool refused = false;
  std::string tried;
  for (const auto& path : candidate_paths(pid)) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    // A socket older than the process belongs to an earlier process with this pid.
    if (started > 0 && static_cast<double>(st.st_mtime) + 2 < started) {
      tried += (tried.empty() ? "" : ", ") + path + " (stale)";
      continue;
    }
    socklen_t len;
    sockaddr_un a = address_of(path, &len);
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (s < 0) return ErrnoError("socket", errno);
    if (connect(s, reinterpret_cast<sockaddr*>(&a), len) == 0) {
      // A socket named by a pid of another namespace may be another
      // process's: the listener's pid, as we see it, must be `pid`.
      ucred peer{};
      socklen_t plen = sizeof peer;
      if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &peer, &plen) == 0 && peer.pid > 0 && peer.pid != pid) {
        close(s);
        tried += (tried.empty() ? "" : ", ") + path + " (another process's)";
        continue;
      }
      if (path_used) *path_used = path;
      return s;
    }
    int err = errno;
    close(s);
    if (err == EACCES || err == EPERM)
      return PermissionDenied("not allowed to connect to " + path + " (process " + std::to_string(pid) +
                              " belongs to another user)");
    refused = true;
    tried += (tried.empty() ? "" : ", ") + path + " (" + std::strerror(err) + ")";
  }
  if (refused)
    return Unavailable("process " + std::to_string(pid) + " does not answer on its control socket (" + tried + ")");
  return Unimplemented("process " + std::to_string(pid) +
                       " is not a libcr process: it has no control socket (looked for " + tried +
                       "); start it with cr_run, or have it call cr_init()");
}

}  // namespace lz::libcr
