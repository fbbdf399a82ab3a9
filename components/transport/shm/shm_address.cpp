#include "shm_address.h"

#include <cstdlib>

namespace lz::transport::shm {
namespace {

constexpr std::string_view kMagicLine = "lzshm1";

bool to_u64(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const uint64_t next = v * 10 + static_cast<uint64_t>(c - '0');
    if (next / 10 != v) return false;  // overflow
    v = next;
  }
  *out = v;
  return true;
}

}  // namespace

std::string ShmAddress::encode() const {
  std::string s(kMagicLine);
  s += "\nrank=" + std::to_string(rank);
  s += "\npid=" + std::to_string(pid);
  s += "\nnode=" + std::to_string(node_id);
  s += "\nrings=" + std::to_string(num_rings);
  s += "\nring_bytes=" + std::to_string(ring_bytes);
  s += "\nprobe=" + std::to_string(probe_addr);
  s += "\nseg=" + segment_path;
  s += "\nbell=" + doorbell_path;
  s += "\n";
  return s;
}

StatusOr<ShmAddress> ShmAddress::decode(std::string_view text) {
  auto bad = [](std::string_view what) { return ProtocolError("shm: malformed modex address: " + std::string(what)); };
  size_t nl = text.find('\n');
  if (text.substr(0, nl) != kMagicLine) return bad("unknown version");
  ShmAddress a;
  uint64_t v = 0;
  int seen = 0;
  while (nl != std::string_view::npos && nl + 1 < text.size()) {
    text.remove_prefix(nl + 1);
    nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) return bad("line without '='");
    std::string_view key = line.substr(0, eq), val = line.substr(eq + 1);
    if (key == "seg" || key == "bell") {
      if (val.empty() || val[0] != '/' || val.size() > 4096) return bad(key);
      (key == "seg" ? a.segment_path : a.doorbell_path) = std::string(val);
      seen |= key == "seg" ? 1 << 6 : 1 << 7;
      continue;
    }
    if (!to_u64(val, &v)) return bad(key);
    if (key == "rank" && v < (1u << 30)) a.rank = static_cast<int>(v), seen |= 1 << 0;
    else if (key == "pid" && v > 0 && v < (1u << 30)) a.pid = static_cast<pid_t>(v), seen |= 1 << 1;
    else if (key == "node") a.node_id = v, seen |= 1 << 2;
    else if (key == "rings" && v > 0 && v < (1u << 20)) a.num_rings = static_cast<uint32_t>(v), seen |= 1 << 3;
    else if (key == "ring_bytes" && v >= 4096 && v <= (uint64_t{1} << 32) && (v & (v - 1)) == 0)
      a.ring_bytes = v, seen |= 1 << 4;
    else if (key == "probe") a.probe_addr = v, seen |= 1 << 5;
    else return bad(key);
  }
  if (seen != 0xff) return bad("missing fields");
  return a;
}

}  // namespace lz::transport::shm
