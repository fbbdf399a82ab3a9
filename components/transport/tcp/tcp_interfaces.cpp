#include "tcp_interfaces.h"

#include <arpa/inet.h>
#include <net/if.h>

#include <cstring>

namespace lz::transport::tcp {
namespace {

// Raw address bytes (4 or 16) of an AF_INET/AF_INET6 SockAddr.
const unsigned char* addr_bytes(const SockAddr& a, int* n) {
  if (a.family() == AF_INET) {
    *n = 4;
    return reinterpret_cast<const unsigned char*>(&reinterpret_cast<const sockaddr_in*>(&a.ss)->sin_addr);
  }
  *n = 16;
  return reinterpret_cast<const unsigned char*>(&reinterpret_cast<const sockaddr_in6*>(&a.ss)->sin6_addr);
}

bool prefix_equal(const unsigned char* a, const unsigned char* b, int bits) {
  const int full = bits / 8, rest = bits % 8;
  if (std::memcmp(a, b, full) != 0) return false;
  if (rest == 0) return true;
  const unsigned char mask = static_cast<unsigned char>(0xff << (8 - rest));
  return (a[full] & mask) == (b[full] & mask);
}

}  // namespace

StatusOr<InterfaceMatcher> InterfaceMatcher::parse(const std::string& item) {
  InterfaceMatcher m;
  const size_t slash = item.find('/');
  if (slash == std::string::npos) {
    if (item.empty() || item.size() >= IFNAMSIZ)
      return InvalidArgument("'" + item + "' is neither an interface name nor a CIDR block");
    m.name_ = item;
    return m;
  }
  const std::string net = item.substr(0, slash), bits = item.substr(slash + 1);
  int max_bits;
  if (inet_pton(AF_INET, net.c_str(), m.net_) == 1) {
    m.family_ = AF_INET;
    max_bits = 32;
  } else if (inet_pton(AF_INET6, net.c_str(), m.net_) == 1) {
    m.family_ = AF_INET6;
    max_bits = 128;
  } else {
    return InvalidArgument("'" + item + "' is not a valid CIDR block (address part)");
  }
  if (bits.empty() || bits.size() > 3 || bits.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(bits) > max_bits)
    return InvalidArgument("'" + item + "' is not a valid CIDR block (prefix length)");
  m.prefix_len_ = std::stoi(bits);
  return m;
}

bool InterfaceMatcher::contains(const SockAddr& a) const {
  if (!name_.empty() || a.family() != family_) return false;
  int n;
  const unsigned char* b = addr_bytes(a, &n);
  return prefix_equal(b, net_, prefix_len_);
}

bool InterfaceMatcher::matches(const NetInterface& itf) const {
  return name_.empty() ? contains(itf.addr) : itf.name == name_;
}

bool same_subnet(const NetInterface& itf, const SockAddr& a) {
  if (itf.addr.family() != a.family()) return false;
  int n;
  const unsigned char* x = addr_bytes(itf.addr, &n);
  const unsigned char* y = addr_bytes(a, &n);
  return prefix_equal(x, y, itf.prefix_len);
}

StatusOr<std::vector<NetInterface>> select_interfaces(const std::vector<std::string>& include,
                                                        const std::vector<std::string>& exclude) {
  std::vector<InterfaceMatcher> inc, exc;
  for (const auto& s : include) {
    LZ_ASSIGN_OR_RETURN(auto m, InterfaceMatcher::parse(s));
    inc.push_back(m);
  }
  for (const auto& s : exclude) {
    LZ_ASSIGN_OR_RETURN(auto m, InterfaceMatcher::parse(s));
    exc.push_back(m);
  }
  auto all = local_interfaces();
  if (!all.ok()) return all.status().with_context("tcp");

  std::vector<NetInterface> out;
  for (NetInterface& itf : *all) {
    if (!itf.up) continue;
    if (itf.addr.family() == AF_INET6 &&
        IN6_IS_ADDR_LINKLOCAL(&reinterpret_cast<const sockaddr_in6*>(&itf.addr.ss)->sin6_addr))
      continue;
    auto hit = [&](const std::vector<InterfaceMatcher>& ms) {
      for (const auto& m : ms)
        if (m.matches(itf)) return true;
      return false;
    };
    if (!inc.empty() && !hit(inc)) continue;
    if (hit(exc)) continue;
    out.push_back(std::move(itf));
  }
  if (out.empty())
    return Unavailable("no usable network interface (if_include/if_exclude leave none that is up)");
  return out;
}

}  // namespace lz::transport::tcp
