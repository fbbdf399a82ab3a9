#include "tcp_interfaces.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>

#include <cerrno>
#include <cstring>
#include <memory>

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

bool InterfaceMatcher::matches(const LocalInterface& itf) const {
  return name_.empty() ? contains(itf.addr) : itf.name == name_;
}

bool same_subnet(const LocalInterface& itf, const SockAddr& a) {
  if (itf.addr.family() != a.family()) return false;
  int n;
  const unsigned char* x = addr_bytes(itf.addr, &n);
  const unsigned char* y = addr_bytes(a, &n);
  return prefix_equal(x, y, itf.prefix_len);
}

StatusOr<std::vector<LocalInterface>> select_interfaces(const std::vector<std::string>& include,
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
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return ErrnoError("tcp: getifaddrs", errno);
  std::unique_ptr<ifaddrs, void (*)(ifaddrs*)> guard(list, freeifaddrs);

  std::vector<LocalInterface> out;
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || !(i->ifa_flags & IFF_UP)) continue;
    const int fam = i->ifa_addr->sa_family;
    if (fam != AF_INET && fam != AF_INET6) continue;
    if (fam == AF_INET6 &&
        IN6_IS_ADDR_LINKLOCAL(&reinterpret_cast<const sockaddr_in6*>(i->ifa_addr)->sin6_addr))
      continue;
    LocalInterface itf;
    itf.name = i->ifa_name;
    itf.addr = SockAddr::from(i->ifa_addr, fam == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6));
    itf.addr.set_port(0);
    itf.prefix_len = netmask_bits(i->ifa_netmask);
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
