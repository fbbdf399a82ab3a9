#include "tcp_socket.h"

#include <netinet/tcp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "lazarus/log.h"

namespace lz::transport::tcp {

StatusOr<UniqueFd> new_tcp_socket(int family) {
  int fd = ::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
  if (fd < 0) return ErrnoError("tcp: socket()", errno);
  return UniqueFd(fd);
}

void tune_connection(int fd, int64_t sndbuf, int64_t rcvbuf) {
  // Latency first: the engine already sends whole frames, Nagle would only
  // hold back the last segment of each.
  int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
    log::debug("tcp: TCP_NODELAY: %s", std::strerror(errno));
  if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one) != 0)
    log::debug("tcp: SO_KEEPALIVE: %s", std::strerror(errno));
  if (sndbuf > 0) {
    int v = static_cast<int>(sndbuf);
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof v) != 0)
      log::debug("tcp: SO_SNDBUF: %s", std::strerror(errno));
  }
  if (rcvbuf > 0) {
    int v = static_cast<int>(rcvbuf);
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof v) != 0)
      log::debug("tcp: SO_RCVBUF: %s", std::strerror(errno));
  }
}

double now_seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace lz::transport::tcp
