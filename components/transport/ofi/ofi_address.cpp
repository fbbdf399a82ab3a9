#include "ofi_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <rdma/fabric.h>

#include <cstring>

namespace lz::transport::ofi {
namespace {

constexpr std::string_view kMagicLine = "lzofi1";
constexpr size_t kMaxName = 1024;

bool to_u64(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const uint64_t next = v * 10 + static_cast<uint64_t>(c - '0');
    if (next / 10 != v) return false;
    v = next;
  }
  *out = v;
  return true;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

std::string OfiAddress::encode() const {
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(name.size() * 2);
  for (unsigned char c : name) {
    hex += kHex[c >> 4];
    hex += kHex[c & 15];
  }
  std::string s(kMagicLine);
  s += "\nprov=" + provider;
  s += "\npid=" + std::to_string(pid);
  s += "\nnode=" + std::to_string(node_id);
  s += "\nname=" + hex;
  if (epoch != 0) s += "\nepoch=" + std::to_string(epoch);
  s += "\n";
  return s;
}

StatusOr<OfiAddress> OfiAddress::decode(std::string_view text) {
  auto bad = [](std::string_view what) { return ProtocolError("ofi: malformed modex address: " + std::string(what)); };
  size_t nl = text.find('\n');
  if (text.substr(0, nl) != kMagicLine) return bad("unknown version");
  OfiAddress a;
  int seen = 0;
  while (nl != std::string_view::npos && nl + 1 < text.size()) {
    text.remove_prefix(nl + 1);
    nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) return bad("line without '='");
    const std::string_view key = line.substr(0, eq), val = line.substr(eq + 1);
    uint64_t v = 0;
    if (key == "prov") {
      if (val.empty() || val.size() > 128) return bad("prov");
      a.provider = std::string(val);
      seen |= 1;
    } else if (key == "pid") {
      if (!to_u64(val, &v) || v == 0 || v >= (1u << 30)) return bad("pid");
      a.pid = static_cast<pid_t>(v);
      seen |= 2;
    } else if (key == "node") {
      if (!to_u64(val, &v)) return bad("node");
      a.node_id = v;
      seen |= 4;
    } else if (key == "name") {
      if (val.empty() || val.size() % 2 != 0 || val.size() > 2 * kMaxName) return bad("name");
      for (size_t i = 0; i < val.size(); i += 2) {
        const int hi = hex_value(val[i]), lo = hex_value(val[i + 1]);
        if (hi < 0 || lo < 0) return bad("name");
        a.name += static_cast<char>(hi << 4 | lo);
      }
      seen |= 8;
    } else if (key == "epoch") {
      if (!to_u64(val, &v)) return bad("epoch");
      a.epoch = v;
    } else {
      return bad(key);
    }
  }
  if (seen != 15) return bad("missing fields");
  return a;
}

std::string sockaddr_text(uint32_t addr_format, const std::string& name) {
  char buf[INET6_ADDRSTRLEN] = "";
  if (addr_format == FI_SOCKADDR_IN && name.size() >= sizeof(sockaddr_in)) {
    sockaddr_in a;
    std::memcpy(&a, name.data(), sizeof a);
    if (a.sin_family != AF_INET || !inet_ntop(AF_INET, &a.sin_addr, buf, sizeof buf)) return "";
    return std::string(buf) + ":" + std::to_string(ntohs(a.sin_port));
  }
  if (addr_format == FI_SOCKADDR_IN6 && name.size() >= sizeof(sockaddr_in6)) {
    sockaddr_in6 a;
    std::memcpy(&a, name.data(), sizeof a);
    if (a.sin6_family != AF_INET6 || !inet_ntop(AF_INET6, &a.sin6_addr, buf, sizeof buf)) return "";
    return "[" + std::string(buf) + "]:" + std::to_string(ntohs(a.sin6_port));
  }
  return "";
}

}  // namespace lz::transport::ofi
