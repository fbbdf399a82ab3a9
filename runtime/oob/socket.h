// Small socket toolkit for the OOB channel: an owning fd, name resolution to
// an lz::SockAddr (lazarus/net.h), a non-blocking listener, a connect bounded
// by a deadline, and blocking reads/writes bounded by a deadline (the rank
// side).
//
//   LZ_ASSIGN_OR_RETURN(auto hp, split_host_port("node7:41234"));
//   LZ_ASSIGN_OR_RETURN(Fd fd, connect_tcp(hp.first, hp.second, deadline_in(30.0)));
//   LZ_RETURN_IF_ERROR(write_all(fd.get(), data, n, kNoDeadline));
#pragma once

#include "lazarus/unique_fd.h"

#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "lazarus/net.h"
#include "lazarus/status.h"

namespace lz::oob {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;
inline constexpr Deadline kNoDeadline = Deadline::max();
Deadline deadline_in(double seconds);
// Milliseconds until `d` for poll(): -1 for kNoDeadline, 0 once passed.
int poll_timeout_ms(Deadline d);

// Owns a file descriptor; closes it on destruction.
using Fd = ::lz::UniqueFd;

// "host:port", "[v6addr]:port" -> (host, port).
StatusOr<std::pair<std::string, uint16_t>> split_host_port(std::string_view s);
// Resolves a host name or numeric address (first result; IPv4 preferred).
StatusOr<SockAddr> resolve(const std::string& host, uint16_t port);
// The address of a local network interface by name ("eth0"), IPv4 preferred.
StatusOr<SockAddr> interface_address(const std::string& ifname, uint16_t port);

// A listening TCP socket, non-blocking and close-on-exec.
StatusOr<Fd> listen_tcp(const SockAddr& addr, int backlog);
StatusOr<SockAddr> local_address(int fd);
StatusOr<SockAddr> peer_address(int fd);

// Connects (non-blocking connect, waiting until the deadline); the returned
// socket is blocking, close-on-exec, with TCP_NODELAY. kTimeout or kUnavailable
// name the address.
StatusOr<Fd> connect_tcp(const std::string& host, uint16_t port, Deadline deadline);

// Blocking I/O bounded by a deadline; EINTR is retried. read_exact returns
// kAborted when the peer closed the connection.
Status write_all(int fd, const void* data, size_t n, Deadline deadline);
Status read_exact(int fd, void* data, size_t n, Deadline deadline);

Status set_nonblocking(int fd, bool on);

// Makes a TCP connection fail by itself once its peer has been silent for
// about `seconds` (at least 3): keepalive probes after a third of it idle,
// then every second, and TCP_USER_TIMEOUT for data left unacknowledged. A
// peer whose host froze or whose link went down closes nothing; with this
// the next read reports ETIMEDOUT instead of waiting for ever.
Status set_keepalive(int fd, double seconds);

}  // namespace lz::oob
