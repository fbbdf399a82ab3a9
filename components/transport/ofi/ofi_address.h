// OfiAddress: what a rank publishes in the modex under kModexKey so that its
// peers can reach it: the provider (ranks must agree), the endpoint name from
// fi_getname (opaque bytes, hex-encoded), the rank's pid (liveness of a peer
// on the same host, and which stale /dev/shm files of the shm provider are
// ours), its node id, and the incarnation of its endpoint (epoch).
//
// For sockaddr-based providers (tcp;ofi_rxm) the endpoint's listening
// address is also published as "ip:port" under kSockaddrKey: for a reader of
// logs and for the conformance suite's attackers (the endpoint accepts
// connections from anyone; tcp;ofi_rxm must refuse what is not its protocol,
// and this transport drops frames that are not from a rank of the job).
//
// Encoded as "lzofi1\n" and one key=value line per field; decode() checks
// every field, since a modex value comes from another process.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "lazarus/status.h"

namespace lz::transport::ofi {

inline constexpr const char* kModexKey = "transport.ofi.addr";
inline constexpr const char* kSockaddrKey = "transport.ofi.sockaddr";

struct OfiAddress {
  std::string provider;
  pid_t pid = 0;
  uint64_t node_id = 0;
  std::string name;  // fi_getname bytes
  // Incarnation of the endpoint: drawn at random at every open, so that a
  // remote key from an earlier one is recognised and refused (ofi_rma.cpp).
  // Optional (0: the rank offers no keys).
  uint64_t epoch = 0;

  std::string encode() const;
  static StatusOr<OfiAddress> decode(std::string_view text);
};

// "ip:port" for an FI_SOCKADDR_IN/IN6 name, "" for any other format.
std::string sockaddr_text(uint32_t addr_format, const std::string& name);

}  // namespace lz::transport::ofi
