// Small value types for sockets (descriptors are lz::UniqueFd):
// SockAddr (an IPv4/IPv6 address with port, as text "1.2.3.4:5" or
// "[fd00::1]:5"), and the socket options every tcp connection gets.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <string>
#include <string_view>
#include <utility>

#include "lazarus/status.h"
#include "lazarus/unique_fd.h"

namespace lz::transport::tcp {

using UniqueFd = ::lz::UniqueFd;

struct SockAddr {
  sockaddr_storage ss{};
  socklen_t len = 0;

  int family() const { return ss.ss_family; }
  const sockaddr* sa() const { return reinterpret_cast<const sockaddr*>(&ss); }
  sockaddr* sa() { return reinterpret_cast<sockaddr*>(&ss); }
  int port() const;
  void set_port(int port);
  bool is_loopback() const;
  // "1.2.3.4:5", "[fd00::1]:5"
  std::string to_string() const;
  // Parses the format of to_string(); numeric only (no name resolution).
  static StatusOr<SockAddr> parse(std::string_view text);
  static SockAddr from(const sockaddr* sa, socklen_t len);
};

// Non-blocking, close-on-exec TCP socket of `family`.
StatusOr<UniqueFd> new_tcp_socket(int family);
// TCP_NODELAY, SO_KEEPALIVE and optional buffer sizes (0: leave default).
void tune_connection(int fd, int64_t sndbuf, int64_t rcvbuf);
// Monotonic seconds (coarse clock: cheap enough to read on every progress turn).
double now_seconds();

}  // namespace lz::transport::tcp
