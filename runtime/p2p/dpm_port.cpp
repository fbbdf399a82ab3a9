#include "p2p/dpm_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <vector>

#include "lazarus/auth.h"
#include "lazarus/net.h"
#include "lazarus/strings.h"
#include "lazarus/wire.h"

namespace lz::rt {
namespace {

constexpr const char* kPrefix = "lazarus-port:";
constexpr size_t kMaxMessage = 256u << 20;
constexpr const char* kAccepted = "lazarus-port-accepted";

// Polls `fd` for `events` until it is ready (true), calling `idle` between
// polls; kTimeout past the deadline.
Status wait_for(int fd, short events, double deadline_s, const DpmIdle& idle, const char* what) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, 10);
    if (n > 0) return Status::Ok();
    if (n < 0 && errno != EINTR) return ErrnoError(what, errno);
    if (deadline_s > 0 && dpm_now() > deadline_s)
      return Timeout(std::string(what) + ": the other side did not answer in time (dpm_timeout)");
    if (idle) idle();
  }
}

Status write_all(int fd, const char* p, size_t n, double deadline_s, const DpmIdle& idle) {
  while (n > 0) {
    const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w > 0) {
      p += w;
      n -= static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      return ErrnoError("dpm link: send to the other job", errno);
    LZ_RETURN_IF_ERROR(wait_for(fd, POLLOUT, deadline_s, idle, "dpm link: send to the other job"));
  }
  return Status::Ok();
}

Status read_all(int fd, char* p, size_t n, double deadline_s, const DpmIdle& idle) {
  while (n > 0) {
    const ssize_t r = ::recv(fd, p, n, 0);
    if (r > 0) {
      p += r;
      n -= static_cast<size_t>(r);
      continue;
    }
    if (r == 0) return Status(Code::kAborted, "dpm link: the other job closed the connection");
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      return ErrnoError("dpm link: receive from the other job", errno);
    LZ_RETURN_IF_ERROR(wait_for(fd, POLLIN, deadline_s, idle, "dpm link: receive from the other job"));
  }
  return Status::Ok();
}

std::string hex(const uint8_t* p, size_t n) {
  std::string out;
  char b[3];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(b, sizeof b, "%02x", p[i]);
    out += b;
  }
  return out;
}

}  // namespace

double dpm_now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double dpm_deadline(double timeout_s) { return timeout_s > 0 ? dpm_now() + timeout_s : 0; }

Status DpmLink::send(std::string_view msg, double deadline_s, const DpmIdle& idle) {
  unsigned char len[8];
  wire::put_be64(len, msg.size());
  LZ_RETURN_IF_ERROR(write_all(fd_.get(), reinterpret_cast<const char*>(len), sizeof len, deadline_s, idle));
  return write_all(fd_.get(), msg.data(), msg.size(), deadline_s, idle);
}

StatusOr<std::string> DpmLink::recv(double deadline_s, const DpmIdle& idle) {
  unsigned char len[8];
  LZ_RETURN_IF_ERROR(read_all(fd_.get(), reinterpret_cast<char*>(len), sizeof len, deadline_s, idle));
  const uint64_t n = wire::get_be64(len);
  if (n > kMaxMessage) return ProtocolError("dpm link: a message of " + std::to_string(n) + " bytes");
  std::string out(static_cast<size_t>(n), '\0');
  LZ_RETURN_IF_ERROR(read_all(fd_.get(), out.data(), out.size(), deadline_s, idle));
  return out;
}

StatusOr<std::unique_ptr<DpmPort>> DpmPort::open() {
  std::unique_ptr<DpmPort> port(new DpmPort());
  port->listener_ = UniqueFd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!port->listener_.valid()) return ErrnoError("MPI_Open_port: socket", errno);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  if (::bind(port->listener_.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
    return ErrnoError("MPI_Open_port: bind", errno);
  if (::listen(port->listener_.get(), 64) != 0) return ErrnoError("MPI_Open_port: listen", errno);
  socklen_t alen = sizeof a;
  if (::getsockname(port->listener_.get(), reinterpret_cast<sockaddr*>(&a), &alen) != 0)
    return ErrnoError("MPI_Open_port: getsockname", errno);
  const uint16_t tcp_port = ntohs(a.sin_port);
  const auth::Nonce t = auth::random_nonce();
  port->token_ = hex(t.data(), 16);
  std::vector<std::string> addrs, loop;
  if (auto itfs = local_interfaces(); itfs.ok()) {
    for (const NetInterface& i : *itfs) {
      if (!i.up || i.addr.family() != AF_INET) continue;
      SockAddr s = i.addr;
      s.set_port(tcp_port);
      (s.is_loopback() ? loop : addrs).push_back(s.to_string());
    }
  }
  if (loop.empty()) loop.push_back("127.0.0.1:" + std::to_string(tcp_port));
  addrs.insert(addrs.end(), loop.begin(), loop.end());
  port->name_ = kPrefix + port->token_ + "@" + str::join(addrs, ",");
  return port;
}

StatusOr<DpmLink> DpmPort::accept(double deadline_s, const DpmIdle& idle) {
  for (;;) {
    LZ_RETURN_IF_ERROR(wait_for(listener_.get(), POLLIN, deadline_s, idle, "MPI_Comm_accept"));
    UniqueFd fd(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (!fd.valid()) {
      if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED) continue;
      return ErrnoError("MPI_Comm_accept: accept", errno);
    }
    int one = 1;
    ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    DpmLink link(std::move(fd));
    // A connection that does not present the token soon is not ours.
    auto token = link.recv(dpm_now() + 10, idle);
    if (!token.ok() || *token != token_) continue;
    if (!link.send(kAccepted, deadline_s, idle).ok()) continue;
    return link;
  }
}

StatusOr<DpmLink> dpm_connect_port(const std::string& name, double deadline_s, const DpmIdle& idle) {
  const std::string prefix = kPrefix;
  const size_t at = name.find('@');
  if (name.compare(0, prefix.size(), prefix) != 0 || at == std::string::npos)
    return InvalidArgument("'" + name + "' is not the name of a Lazarus port (\"" + prefix +
                           "<token>@<addresses>\", as MPI_Open_port gives)");
  const std::string token = name.substr(prefix.size(), at - prefix.size());
  std::string tried;
  for (const std::string& item : str::split(name.substr(at + 1), ',')) {
    auto addr = SockAddr::parse(item);
    if (!addr.ok()) return InvalidArgument("port name '" + name + "': " + addr.status().message());
    UniqueFd fd(::socket(addr->family(), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd.valid()) return ErrnoError("MPI_Comm_connect: socket", errno);
    Status s;
    if (::connect(fd.get(), addr->sa(), addr->len) != 0 && errno != EINPROGRESS) {
      s = ErrnoError("connect " + item, errno);
    } else {
      const double until = deadline_s > 0 ? std::min(deadline_s, dpm_now() + 5) : dpm_now() + 5;
      s = wait_for(fd.get(), POLLOUT, until, idle, "MPI_Comm_connect");
      int err = 0;
      socklen_t len = sizeof err;
      if (s.ok() && ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err != 0)
        s = ErrnoError("connect " + item, err);
    }
    if (s.ok()) {
      int one = 1;
      ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      DpmLink link(std::move(fd));
      s = link.send(token, deadline_s, idle);
      // Answered once MPI_Comm_accept takes the connection, however late.
      StatusOr<std::string> answer = s.ok() ? link.recv(deadline_s, idle) : StatusOr<std::string>(s);
      if (answer.ok() && *answer == kAccepted) return link;
      s = answer.ok() ? ProtocolError("not this port") : answer.status();
    }
    tried += (tried.empty() ? "" : "; ") + item + ": " + s.message();
    if (deadline_s > 0 && dpm_now() > deadline_s) break;
  }
  return Unavailable("no address of port '" + name + "' accepted the connection (" + tried +
                     "); is MPI_Comm_accept waiting on it?");
}

}  // namespace lz::rt
