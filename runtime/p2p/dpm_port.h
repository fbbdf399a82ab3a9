// Ports of dynamic-process connections (MPI_Open_port, MPI_Comm_accept,
// MPI_Comm_connect) and the link between the two roots of a connection.
//
// A port is a TCP socket listening on every IPv4 interface and a random
// token. Its name, "lazarus-port:<token hex>@<addr>,<addr>...", lists the
// addresses (other interfaces first, loopback last) at which to reach it;
// MPI_Comm_connect tries each and presents the token, which the acceptor
// checks before it answers (a connection without it is dropped and the
// accept goes on). The link is then the connected socket, carrying
// length-prefixed messages both ways.
//
// Every wait here calls `idle` between polls of at most 10 ms (the engine's
// progress: the process keeps serving its peers while its root waits on
// another job) and ends with kTimeout at `deadline_s` (now_seconds() clock;
// 0: none).
//
//   LZ_ASSIGN_OR_RETURN(auto port, DpmPort::open());
//   LZ_ASSIGN_OR_RETURN(DpmLink link, port->accept(deadline, idle));
//   LZ_RETURN_IF_ERROR(link.send("hello", deadline, idle));
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "lazarus/status.h"
#include "lazarus/unique_fd.h"

namespace lz::rt {

using DpmIdle = std::function<void()>;

class DpmLink {
 public:
  DpmLink() = default;
  explicit DpmLink(UniqueFd fd) : fd_(std::move(fd)) {}
  bool valid() const { return fd_.valid(); }
  Status send(std::string_view msg, double deadline_s, const DpmIdle& idle);
  StatusOr<std::string> recv(double deadline_s, const DpmIdle& idle);

 private:
  UniqueFd fd_;
};

class DpmPort {
 public:
  static StatusOr<std::unique_ptr<DpmPort>> open();
  const std::string& name() const { return name_; }
  // The next connection that presents this port's token.
  StatusOr<DpmLink> accept(double deadline_s, const DpmIdle& idle);

 private:
  DpmPort() = default;
  UniqueFd listener_;
  std::string token_;
  std::string name_;
};

// Connects to the port named `name` (as DpmPort::name() made it).
// kInvalidArgument for a name that is not a Lazarus port's; kUnavailable
// when no address of it answers with its token.
StatusOr<DpmLink> dpm_connect_port(const std::string& name, double deadline_s, const DpmIdle& idle);

// Seconds since an arbitrary start (CLOCK_MONOTONIC), for deadlines; and the
// deadline `timeout_s` from now (0: none).
double dpm_now();
double dpm_deadline(double timeout_s);

}  // namespace lz::rt
