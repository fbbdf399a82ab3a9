// The listening side of transport/tcp: one non-blocking socket per selected
// interface address (port chosen by the kernel), so if_include/if_exclude also
// decide where strangers can reach this rank. Holds no per-peer state, so it
// can be closed before a checkpoint and re-opened (on new ports) after it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lazarus/status.h"
#include "tcp_interfaces.h"
#include "tcp_socket.h"

namespace lz::transport::tcp {

class TcpListener {
 public:
  struct Socket {
    UniqueFd fd;
    SockAddr addr;  // bound address with the kernel-chosen port
  };

  // Binds and listens on every interface address that accepts it; kUnavailable
  // when none does.
  Status open(const std::vector<NetInterface>& interfaces);
  void close();
  bool is_open() const { return !sockets_.empty(); }

  const std::vector<Socket>& sockets() const { return sockets_; }
  // "ip:port,ip:port" — the value published in the modex.
  std::string address_list() const;

  struct Accepted {
    UniqueFd fd;
    SockAddr peer;
  };
  // One pending connection of socket `index`, or nullopt when none is ready.
  // Transient accept errors (EMFILE, ECONNABORTED...) are logged and give nullopt.
  std::optional<Accepted> accept_one(size_t index);

 private:
  std::vector<Socket> sockets_;
  double last_warning_ = -1e9;  // accept errors are logged at most every few seconds
};

}  // namespace lz::transport::tcp
