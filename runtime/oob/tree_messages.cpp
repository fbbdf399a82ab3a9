#include "oob/tree_messages.h"

#include "oob/wire.h"

namespace lz::oob {

std::string encode_bridge_fence(const BridgeFenceMsg& m) {
  WireWriter w;
  w.str(m.key);
  w.u32(m.member);
  w.u32(m.members);
  w.str(m.entries);
  w.u32(static_cast<uint32_t>(m.gone.size()));
  for (uint32_t g : m.gone) w.u32(g);
  return w.take();
}

Status decode_bridge_fence(std::string_view p, BridgeFenceMsg* out) {
  WireReader r(p);
  BridgeFenceMsg m;
  uint32_t ngone = 0;
  if (!r.str(&m.key, kMaxBridgeKeyBytes) || !r.u32(&m.member) || !r.u32(&m.members) ||
      !r.str(&m.entries, kMaxBridgeEntryBytes) || !r.u32(&ngone) || ngone > kMaxBridgeMembers ||
      r.remaining() / 4 < ngone)
    return malformed("BRIDGE_FENCE");
  m.gone.resize(ngone);
  for (uint32_t& g : m.gone)
    if (!r.u32(&g)) return malformed("BRIDGE_FENCE");
  if (!r.at_end()) return malformed("BRIDGE_FENCE");
  if (m.members == 0 || m.members > kMaxBridgeMembers || m.member >= m.members)
    return ProtocolError("BRIDGE_FENCE from member " + std::to_string(m.member) + " of " + std::to_string(m.members));
  for (uint32_t g : m.gone)
    if (g >= m.members || g == m.member)
      return ProtocolError("BRIDGE_FENCE of member " + std::to_string(m.member) + " says member " +
                           std::to_string(g) + " of " + std::to_string(m.members) + " is gone");
  *out = std::move(m);
  return Status::Ok();
}

std::string encode_bridge_table(const BridgeTableMsg& m) {
  WireWriter w;
  w.str(m.key);
  w.str(m.error);
  put_strings(w, m.entries);
  return w.take();
}

Status decode_bridge_table(std::string_view p, BridgeTableMsg* out) {
  WireReader r(p);
  BridgeTableMsg m;
  if (!r.str(&m.key, kMaxBridgeKeyBytes) || !r.str(&m.error, kMaxTreeTextBytes) ||
      !get_strings(r, &m.entries, kMaxBridgeMembers, kMaxBridgeEntryBytes) || !r.at_end())
    return malformed("BRIDGE_TABLE");
  *out = std::move(m);
  return Status::Ok();
}

std::string encode_tree_round(const TreeRoundMsg& m) {
  WireWriter w;
  w.u64(m.round);
  w.u32(m.flags);
  return w.take();
}

Status decode_tree_round(std::string_view p, TreeRoundMsg* out) {
  WireReader r(p);
  TreeRoundMsg m;
  if (!r.u64(&m.round) || !r.u32(&m.flags) || !r.at_end()) return malformed("TREE round");
  *out = m;
  return Status::Ok();
}

std::string encode_tree_done(const TreeDoneMsg& m) {
  WireWriter w;
  w.u64(m.round);
  w.i32(m.ok);
  w.str(m.snapshot);
  w.str(m.reason);
  return w.take();
}

Status decode_tree_done(std::string_view p, TreeDoneMsg* out) {
  WireReader r(p);
  TreeDoneMsg m;
  if (!r.u64(&m.round) || !r.i32(&m.ok) || !r.str(&m.snapshot, kMaxTreeTextBytes) ||
      !r.str(&m.reason, kMaxTreeTextBytes) || !r.at_end())
    return malformed("TREE_DONE");
  if (m.ok != 0 && m.ok != 1) return ProtocolError("TREE_DONE with ok " + std::to_string(m.ok) + " (0 or 1)");
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace lz::oob
