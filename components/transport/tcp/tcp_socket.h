// The socket options every tcp connection gets, and the transport's clock.
// Addresses are lz::SockAddr (lazarus/net.h), descriptors lz::UniqueFd.
//
//   LZ_ASSIGN_OR_RETURN(UniqueFd fd, new_tcp_socket(addr.family()));
//   tune_connection(fd.get(), config.sndbuf, config.rcvbuf);
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <string>
#include <string_view>
#include <utility>

#include "lazarus/net.h"
#include "lazarus/status.h"
#include "lazarus/unique_fd.h"

namespace lz::transport::tcp {

using UniqueFd = ::lz::UniqueFd;

// Non-blocking, close-on-exec TCP socket of `family`.
StatusOr<UniqueFd> new_tcp_socket(int family);
// TCP_NODELAY, SO_KEEPALIVE and optional buffer sizes (0: leave default).
void tune_connection(int fd, int64_t sndbuf, int64_t rcvbuf);
// Monotonic seconds (coarse clock: cheap enough to read on every progress turn).
double now_seconds();

}  // namespace lz::transport::tcp
