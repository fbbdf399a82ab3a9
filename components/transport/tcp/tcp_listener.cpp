#include "tcp_listener.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "lazarus/log.h"

namespace lz::transport::tcp {

Status TcpListener::open(const std::vector<NetInterface>& interfaces) {
  close();
  std::string failures;
  for (const auto& itf : interfaces) {
    auto fd = new_tcp_socket(itf.addr.family());
    if (!fd.ok()) return fd.status();
    if (itf.addr.family() == AF_INET6) {
      int one = 1;  // the IPv4 addresses get their own sockets
      setsockopt(fd->get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    }
    SockAddr a = itf.addr;
    a.set_port(0);
    if (::bind(fd->get(), a.sa(), a.len) != 0 || ::listen(fd->get(), SOMAXCONN) != 0) {
      failures += " " + itf.name + "(" + a.to_string() + "): " + std::strerror(errno) + ";";
      continue;
    }
    SockAddr bound;
    bound.len = sizeof bound.ss;
    if (::getsockname(fd->get(), bound.sa(), &bound.len) != 0) return ErrnoError("tcp: getsockname", errno);
    log::debug("tcp: listening on %s (%s)", bound.to_string().c_str(), itf.name.c_str());
    sockets_.push_back({std::move(*fd), bound});
  }
  if (sockets_.empty()) return Unavailable("tcp: could not listen on any interface:" + failures);
  if (!failures.empty()) log::debug("tcp: skipped interfaces:%s", failures.c_str());
  return Status::Ok();
}

void TcpListener::close() { sockets_.clear(); }

std::string TcpListener::address_list() const {
  std::string out;
  for (const auto& s : sockets_) {
    if (!out.empty()) out += ',';
    out += s.addr.to_string();
  }
  return out;
}

std::optional<TcpListener::Accepted> TcpListener::accept_one(size_t index) {
  if (index >= sockets_.size()) return std::nullopt;
  Accepted a;
  a.peer.len = sizeof a.peer.ss;
  int fd = ::accept4(sockets_[index].fd.get(), a.peer.sa(), &a.peer.len, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) {
    // EMFILE/ENFILE repeat on every turn while the limit holds: say it once
    // in a while, not thousands of times a second.
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && now_seconds() - last_warning_ > 10) {
      last_warning_ = now_seconds();
      log::warn("tcp: accept on %s: %s", sockets_[index].addr.to_string().c_str(), std::strerror(errno));
    }
    return std::nullopt;
  }
  a.fd.reset(fd);
  return a;
}

}  // namespace lz::transport::tcp
