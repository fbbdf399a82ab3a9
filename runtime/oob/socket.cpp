#include "oob/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace lz::oob {

Deadline deadline_in(double seconds) {
  if (seconds <= 0) return kNoDeadline;
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

int poll_timeout_ms(Deadline d) {
  if (d == kNoDeadline) return -1;
  auto now = Clock::now();
  if (d <= now) return 0;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d - now).count() + 1;
  return ms > 1000000000 ? 1000000000 : static_cast<int>(ms);
}

StatusOr<std::pair<std::string, uint16_t>> split_host_port(std::string_view s) {
  std::string host;
  std::string_view port;
  if (!s.empty() && s.front() == '[') {
    size_t close = s.find(']');
    if (close == std::string_view::npos || close + 1 >= s.size() || s[close + 1] != ':')
      return InvalidArgument("bad address '" + std::string(s) + "' (expected [v6addr]:port)");
    host = std::string(s.substr(1, close - 1));
    port = s.substr(close + 2);
  } else {
    size_t colon = s.rfind(':');
    if (colon == std::string_view::npos || colon == 0)
      return InvalidArgument("bad address '" + std::string(s) + "' (expected host:port)");
    host = std::string(s.substr(0, colon));
    port = s.substr(colon + 1);
  }
  if (port.empty() || port.size() > 5) return InvalidArgument("bad port in address '" + std::string(s) + "'");
  unsigned long v = 0;
  for (char c : port) {
    if (c < '0' || c > '9') return InvalidArgument("bad port in address '" + std::string(s) + "'");
    v = v * 10 + static_cast<unsigned long>(c - '0');
  }
  if (v > 65535) return InvalidArgument("bad port in address '" + std::string(s) + "'");
  return std::make_pair(host, static_cast<uint16_t>(v));
}

StatusOr<SockAddr> resolve(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
  if (rc != 0) return Unavailable("cannot resolve '" + host + "': " + gai_strerror(rc));
  SockAddr best;
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6) continue;
    if (best.len == 0 || (best.ss.ss_family != AF_INET && ai->ai_family == AF_INET)) {
      std::memcpy(&best.ss, ai->ai_addr, ai->ai_addrlen);
      best.len = ai->ai_addrlen;
    }
  }
  freeaddrinfo(res);
  if (best.len == 0) return Unavailable("no IPv4/IPv6 address for '" + host + "'");
  return best;
}

StatusOr<SockAddr> interface_address(const std::string& ifname, uint16_t port) {
  LZ_ASSIGN_OR_RETURN(std::vector<NetInterface> itfs, local_interfaces());
  SockAddr best;
  for (const NetInterface& i : itfs) {
    if (i.name != ifname) continue;
    if (best.len != 0 && !(best.family() != AF_INET && i.addr.family() == AF_INET)) continue;
    best = i.addr;
  }
  if (best.len == 0) return NotFound("no network interface named '" + ifname + "' with an IP address");
  best.set_port(port);
  return best;
}

StatusOr<Fd> listen_tcp(const SockAddr& addr, int backlog) {
  Fd fd(socket(addr.ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoError("socket", errno);
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr.ss), addr.len) != 0)
    return ErrnoError("bind to " + addr.to_string(), errno);
  if (listen(fd.get(), backlog) != 0) return ErrnoError("listen on " + addr.to_string(), errno);
  return fd;
}

StatusOr<SockAddr> local_address(int fd) {
  SockAddr a;
  a.len = sizeof a.ss;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&a.ss), &a.len) != 0) return ErrnoError("getsockname", errno);
  return a;
}

StatusOr<SockAddr> peer_address(int fd) {
  SockAddr a;
  a.len = sizeof a.ss;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&a.ss), &a.len) != 0) return ErrnoError("getpeername", errno);
  return a;
}

Status set_nonblocking(int fd, bool on) {
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0) return ErrnoError("fcntl", errno);
  fl = on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK);
  if (fcntl(fd, F_SETFL, fl) != 0) return ErrnoError("fcntl", errno);
  return Status::Ok();
}

Status set_keepalive(int fd, double seconds) {
  const int total = std::max(3, static_cast<int>(seconds));
  const int idle = std::max(1, total / 3), interval = 1, count = std::max(1, total - idle);
  const unsigned user_timeout = static_cast<unsigned>(total) * 1000u;
  const int on = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on) != 0 ||
      setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle) != 0 ||
      setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval) != 0 ||
      setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count) != 0 ||
      setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout, sizeof user_timeout) != 0)
    return ErrnoError("setsockopt (TCP keepalive)", errno);
  return Status::Ok();
}

StatusOr<Fd> connect_tcp(const std::string& host, uint16_t port, Deadline deadline) {
  LZ_ASSIGN_OR_RETURN(SockAddr addr, resolve(host, port));
  const std::string where = addr.to_string();
  Fd fd(socket(addr.ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoError("socket", errno);
  if (connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr.ss), addr.len) != 0) {
    if (errno != EINPROGRESS) return Unavailable("connect to " + where + ": " + std::strerror(errno));
    for (;;) {
      pollfd p{fd.get(), POLLOUT, 0};
      int n = poll(&p, 1, poll_timeout_ms(deadline));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return ErrnoError("poll", errno);
      if (n == 0) return Timeout("connect to " + where + " timed out");
      break;
    }
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return Unavailable("connect to " + where + ": " + std::strerror(err));
  }
  LZ_RETURN_IF_ERROR(set_nonblocking(fd.get(), false));
  int one = 1;
  setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

namespace {

// Waits until `fd` is ready for `events` or the deadline passes.
Status wait_ready(int fd, short events, Deadline deadline, const char* what) {
  for (;;) {
    pollfd p{fd, events, 0};
    int n = poll(&p, 1, poll_timeout_ms(deadline));
    if (n > 0) return Status::Ok();
    if (n == 0) return Timeout(std::string(what) + " timed out");
    if (errno != EINTR) return ErrnoError("poll", errno);
  }
}

}  // namespace

Status write_all(int fd, const void* data, size_t n, Deadline deadline) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    if (deadline != kNoDeadline) LZ_RETURN_IF_ERROR(wait_ready(fd, POLLOUT, deadline, "OOB write"));
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      if (errno == EPIPE || errno == ECONNRESET) return Status(Code::kAborted, "OOB peer closed the connection");
      return ErrnoError("OOB send", errno);
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return Status::Ok();
}

Status read_exact(int fd, void* data, size_t n, Deadline deadline) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    if (deadline != kNoDeadline) LZ_RETURN_IF_ERROR(wait_ready(fd, POLLIN, deadline, "OOB read"));
    ssize_t r = recv(fd, p, n, 0);
    if (r == 0) return Status(Code::kAborted, "OOB peer closed the connection");
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      if (errno == ECONNRESET) return Status(Code::kAborted, "OOB peer reset the connection");
      return ErrnoError("OOB recv", errno);
    }
    p += r;
    n -= static_cast<size_t>(r);
  }
  return Status::Ok();
}

}  // namespace lz::oob
