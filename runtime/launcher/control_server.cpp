#include "launcher/control_server.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "lazarus/log.h"

namespace lz::launcher {
namespace {

// A request line longer than this is not a request.
constexpr size_t kMaxLine = 64 * 1024;

}  // namespace

ControlServer::~ControlServer() {
  for (auto& [id, c] : conns_) loop_.unwatch(c.fd.get());
  if (listener_.valid()) {
    loop_.unwatch(listener_.get());
    unlink(path_.c_str());
  }
}

Status ControlServer::listen(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.size() >= sizeof a.sun_path) return InvalidArgument("control socket path too long: " + path);
  std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoError("socket(AF_UNIX)", errno);
  oob::Fd s(fd);
  unlink(path.c_str());  // a stale socket of a launcher that died
  // The socket is created 0600 (umask), not chmod()ed afterwards: no window.
  mode_t old = umask(0177);
  int rc = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  int err = errno;
  umask(old);
  if (rc != 0) return ErrnoError("bind " + path, err);
  if (::listen(fd, 16) != 0) return ErrnoError("listen " + path, errno);
  listener_ = std::move(s);
  path_ = path;
  loop_.watch(listener_.get(), POLLIN, [this](short) { on_accept(); });
  return Status::Ok();
}

void ControlServer::on_accept() {
  for (;;) {
    int fd = accept4(listener_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    oob::Fd c(fd);
    ucred cred{};
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
        (cred.uid != getuid() && cred.uid != 0)) {
      log::warn("refused control connection on %s from uid %u (pid %d): not the job's user", path_.c_str(),
                static_cast<unsigned>(cred.uid), static_cast<int>(cred.pid));
      continue;
    }
    uint64_t id = next_id_++;
    conns_[id].fd = std::move(c);
    loop_.watch(fd, POLLIN, [this, id](short) { on_readable(id); });
  }
}

void ControlServer::on_readable(uint64_t id) {
  auto it = conns_.find(id);
  if (it == conns_.end()) return;
  char buf[4096];
  ssize_t n = read(it->second.fd.get(), buf, sizeof buf);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    drop(id);
    return;
  }
  it->second.in.append(buf, static_cast<size_t>(n));
  for (;;) {
    auto c = conns_.find(id);  // the handler may have closed it
    if (c == conns_.end()) return;
    size_t nl = c->second.in.find('\n');
    if (nl == std::string::npos) {
      if (c->second.in.size() > kMaxLine) drop(id);
      return;
    }
    std::string line = c->second.in.substr(0, nl);
    c->second.in.erase(0, nl + 1);
    handler_(id, line);
  }
}

void ControlServer::reply(uint64_t conn, const std::string& line, bool close_after) {
  auto it = conns_.find(conn);
  if (it == conns_.end()) return;
  std::string s = line + "\n";
  ssize_t n = send(it->second.fd.get(), s.data(), s.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  if (n != static_cast<ssize_t>(s.size()) || close_after) drop(conn);
}

void ControlServer::drop(uint64_t id) {
  auto it = conns_.find(id);
  if (it == conns_.end()) return;
  loop_.unwatch(it->second.fd.get());
  conns_.erase(it);
}

}  // namespace lz::launcher
