#include "p2p/process_name.h"

namespace lz::rt {
namespace {

constexpr uint32_t kMaxNames = 1u << 20;
constexpr size_t kMaxField = 4096;

}  // namespace

void put_names(oob::WireWriter& w, const std::vector<ProcessName>& names) {
  w.u32(static_cast<uint32_t>(names.size()));
  for (const auto& n : names) {
    w.str(n.job);
    w.u32(static_cast<uint32_t>(n.rank));
    w.str(n.host);
  }
}

bool get_names(oob::WireReader& r, std::vector<ProcessName>* out) {
  uint32_t n = 0;
  if (!r.u32(&n) || n > kMaxNames || r.remaining() / 12 < n) return false;
  out->resize(n);
  for (auto& p : *out) {
    uint32_t rank = 0;
    if (!r.str(&p.job, kMaxField) || !r.u32(&rank) || !r.str(&p.host, kMaxField)) return false;
    p.rank = static_cast<int>(rank);
  }
  return true;
}

}  // namespace lz::rt
