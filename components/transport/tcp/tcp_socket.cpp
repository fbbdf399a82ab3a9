#include "tcp_socket.h"

#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "lazarus/log.h"

namespace lz::transport::tcp {

int SockAddr::port() const {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&ss)->sin_port);
  if (family() == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_port);
  return 0;
}

void SockAddr::set_port(int port) {
  if (family() == AF_INET) reinterpret_cast<sockaddr_in*>(&ss)->sin_port = htons(static_cast<uint16_t>(port));
  if (family() == AF_INET6) reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port = htons(static_cast<uint16_t>(port));
}

bool SockAddr::is_loopback() const {
  if (family() == AF_INET)
    return (ntohl(reinterpret_cast<const sockaddr_in*>(&ss)->sin_addr.s_addr) >> 24) == 127;
  if (family() == AF_INET6) {
    const auto* a6 = &reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_addr;
    return IN6_IS_ADDR_LOOPBACK(a6) || (IN6_IS_ADDR_V4MAPPED(a6) && a6->s6_addr[12] == 127);
  }
  return false;
}

std::string SockAddr::to_string() const {
  char buf[INET6_ADDRSTRLEN] = "?";
  if (family() == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&ss)->sin_addr, buf, sizeof buf);
    return std::string(buf) + ":" + std::to_string(port());
  }
  if (family() == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_addr, buf, sizeof buf);
    return "[" + std::string(buf) + "]:" + std::to_string(port());
  }
  return "?";
}

StatusOr<SockAddr> SockAddr::parse(std::string_view text) {
  auto bad = [&] { return InvalidArgument("malformed tcp address '" + std::string(text) + "'"); };
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon + 1 >= text.size() || text.size() > 64) return bad();
  std::string host(text.substr(0, colon));
  const std::string_view port_text = text.substr(colon + 1);
  int port = 0;
  for (char ch : port_text) {
    if (ch < '0' || ch > '9') return bad();
    port = port * 10 + (ch - '0');
    if (port > 65535) return bad();
  }
  if (port == 0) return bad();
  SockAddr a;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
    auto* s6 = reinterpret_cast<sockaddr_in6*>(&a.ss);
    if (inet_pton(AF_INET6, host.c_str(), &s6->sin6_addr) != 1) return bad();
    s6->sin6_family = AF_INET6;
    a.len = sizeof(sockaddr_in6);
  } else {
    auto* s4 = reinterpret_cast<sockaddr_in*>(&a.ss);
    if (inet_pton(AF_INET, host.c_str(), &s4->sin_addr) != 1) return bad();
    s4->sin_family = AF_INET;
    a.len = sizeof(sockaddr_in);
  }
  a.set_port(port);
  return a;
}

SockAddr SockAddr::from(const sockaddr* sa, socklen_t len) {
  SockAddr a;
  if (len > sizeof a.ss) len = sizeof a.ss;
  std::memcpy(&a.ss, sa, len);
  a.len = len;
  return a;
}

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
