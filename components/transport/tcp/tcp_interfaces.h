// The local interfaces transport/tcp listens on: every up IPv4/IPv6 address
// (IPv6 link-local excluded: it needs a scope that means nothing to a peer),
// filtered by if_include / if_exclude, whose items are interface names
// ("eth0") or CIDR blocks ("10.0.0.0/8", "fd00::/8").
#pragma once

#include <string>
#include <vector>

#include "lazarus/status.h"
#include "lazarus/net.h"

namespace lz::transport::tcp {

// One parsed if_include/if_exclude item.
class InterfaceMatcher {
 public:
  static StatusOr<InterfaceMatcher> parse(const std::string& item);
  bool matches(const NetInterface& itf) const;
  // True if `a` lies in this item's CIDR block (false for a name item).
  bool contains(const SockAddr& a) const;

 private:
  std::string name_;  // empty for a CIDR item
  int family_ = 0;
  unsigned char net_[16] = {};
  int prefix_len_ = 0;
};

// The interfaces to use, in the order the system lists them. kUnavailable
// when the filters leave none; kInvalidArgument for an unparsable item.
StatusOr<std::vector<NetInterface>> select_interfaces(const std::vector<std::string>& include,
                                                        const std::vector<std::string>& exclude);

// True if `a` is in the same subnet as `itf`.
bool same_subnet(const NetInterface& itf, const SockAddr& a);

}  // namespace lz::transport::tcp
