#include "lazarus/net.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace lz {
namespace {

int netmask_bits(const sockaddr* mask) {
  if (mask == nullptr) return 0;
  const unsigned char* p;
  int n;
  if (mask->sa_family == AF_INET) {
    p = reinterpret_cast<const unsigned char*>(&reinterpret_cast<const sockaddr_in*>(mask)->sin_addr);
    n = 4;
  } else if (mask->sa_family == AF_INET6) {
    p = reinterpret_cast<const unsigned char*>(&reinterpret_cast<const sockaddr_in6*>(mask)->sin6_addr);
    n = 16;
  } else {
    return 0;
  }
  int bits = 0;
  for (int i = 0; i < n; ++i) bits += __builtin_popcount(p[i]);
  return bits;
}

}  // namespace

uint16_t SockAddr::port() const {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&ss)->sin_port);
  if (family() == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_port);
  return 0;
}

void SockAddr::set_port(uint16_t port) {
  if (family() == AF_INET) reinterpret_cast<sockaddr_in*>(&ss)->sin_port = htons(port);
  if (family() == AF_INET6) reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port = htons(port);
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

bool SockAddr::is_wildcard() const {
  if (family() == AF_INET) return reinterpret_cast<const sockaddr_in*>(&ss)->sin_addr.s_addr == htonl(INADDR_ANY);
  if (family() == AF_INET6) return IN6_IS_ADDR_UNSPECIFIED(&reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_addr);
  return false;
}

std::string SockAddr::host() const {
  char buf[INET6_ADDRSTRLEN] = "?";
  if (family() == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&ss)->sin_addr, buf, sizeof buf);
  else if (family() == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_addr, buf, sizeof buf);
  return buf;
}

std::string SockAddr::to_string() const {
  if (family() == AF_INET) return host() + ":" + std::to_string(port());
  if (family() == AF_INET6) return "[" + host() + "]:" + std::to_string(port());
  return "?";
}

StatusOr<SockAddr> SockAddr::parse(std::string_view text) {
  auto bad = [&] { return InvalidArgument("malformed address '" + std::string(text) + "'"); };
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
  a.set_port(static_cast<uint16_t>(port));
  return a;
}

SockAddr SockAddr::from(const sockaddr* sa, socklen_t len) {
  SockAddr a;
  if (len > sizeof a.ss) len = sizeof a.ss;
  std::memcpy(&a.ss, sa, len);
  a.len = len;
  return a;
}

StatusOr<std::vector<NetInterface>> local_interfaces() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return ErrnoError("getifaddrs", errno);
  std::unique_ptr<ifaddrs, void (*)(ifaddrs*)> guard(list, freeifaddrs);
  std::vector<NetInterface> out;
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr) continue;
    const int fam = i->ifa_addr->sa_family;
    if (fam != AF_INET && fam != AF_INET6) continue;
    NetInterface itf;
    itf.name = i->ifa_name;
    itf.addr = SockAddr::from(i->ifa_addr, fam == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6));
    itf.addr.set_port(0);
    itf.prefix_len = netmask_bits(i->ifa_netmask);
    itf.up = (i->ifa_flags & IFF_UP) != 0;
    out.push_back(std::move(itf));
  }
  return out;
}

}  // namespace lz
