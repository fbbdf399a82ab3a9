// Socket addresses and local network interfaces, shared by the OOB channel,
// the launcher and transport/tcp (which sees only framework headers).
//
// SockAddr is an IPv4 or IPv6 address with a port, printed and parsed as
// "1.2.3.4:5" or "[fd00::1]:5". local_interfaces() is the one getifaddrs()
// walk: every IPv4/IPv6 address of every interface, which callers filter.
//
//   LZ_ASSIGN_OR_RETURN(lz::SockAddr a, lz::SockAddr::parse("10.0.0.7:41234"));
//   ::connect(fd, a.sa(), a.len);
//   LZ_ASSIGN_OR_RETURN(auto itfs, lz::local_interfaces());
//   for (const lz::NetInterface& i : itfs)
//     if (i.up && !i.addr.is_loopback()) use(i.name, i.addr.host());
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lazarus/status.h"

namespace lz {

struct SockAddr {
  sockaddr_storage ss{};
  socklen_t len = 0;  // 0: no address

  int family() const { return ss.ss_family; }
  const sockaddr* sa() const { return reinterpret_cast<const sockaddr*>(&ss); }
  sockaddr* sa() { return reinterpret_cast<sockaddr*>(&ss); }
  uint16_t port() const;  // 0 for a family other than IPv4/IPv6
  void set_port(uint16_t port);
  bool is_loopback() const;  // 127.0.0.0/8, ::1, ::ffff:127.x.y.z
  bool is_wildcard() const;  // 0.0.0.0 or ::
  // Numeric host only: "1.2.3.4" or "::1" ("?" for another family).
  std::string host() const;
  // "1.2.3.4:5" or "[::1]:5" ("?" for another family).
  std::string to_string() const;
  // Parses the format of to_string(); numeric only (no name resolution), and
  // a port of 0 is refused: the text names something to connect to.
  static StatusOr<SockAddr> parse(std::string_view text);
  // Copies at most sizeof(ss) bytes of `sa`.
  static SockAddr from(const sockaddr* sa, socklen_t len);
};

// One address of one local network interface.
struct NetInterface {
  std::string name;    // "eth0"
  SockAddr addr;       // port 0
  int prefix_len = 0;  // bits set in the netmask
  bool up = false;     // IFF_UP
};

// Every IPv4/IPv6 address of every local interface, in the order the system
// lists them (getifaddrs). kIo-class errno error when the list is unavailable.
StatusOr<std::vector<NetInterface>> local_interfaces();

}  // namespace lz
