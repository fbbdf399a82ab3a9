#include "oob/spawn_messages.h"

#include "oob/wire.h"

namespace lz::oob {
namespace {

// The smallest encoded app: an empty command, no arguments, maxprocs and
// four empty strings (each a 4-byte length).
constexpr size_t kMinAppBytes = 4 + 4 + 4 + 4 * 4;

}  // namespace

std::string encode_spawn_request(const SpawnRequestMsg& m) {
  WireWriter w;
  w.u64(m.seq);
  w.u32(static_cast<uint32_t>(m.apps.size()));
  for (const SpawnApp& a : m.apps) {
    w.str(a.command);
    put_strings(w, a.argv);
    w.i32(a.maxprocs);
    w.str(a.host);
    w.str(a.hostfile);
    w.str(a.wdir);
    w.str(a.path);
  }
  put_strings(w, m.env);
  return w.take();
}

Status decode_spawn_request(std::string_view p, SpawnRequestMsg* out) {
  WireReader r(p);
  SpawnRequestMsg m;
  uint32_t napps = 0;
  if (!r.u64(&m.seq) || !r.u32(&napps) || napps > kMaxSpawnApps || r.remaining() / kMinAppBytes < napps)
    return malformed("SPAWN_REQUEST");
  m.apps.resize(napps);
  for (SpawnApp& a : m.apps) {
    if (!r.str(&a.command, kMaxPathBytes) || !get_strings(r, &a.argv, kMaxArgs, kMaxArgBytes) || !r.i32(&a.maxprocs) ||
        !r.str(&a.host, kMaxArgBytes) || !r.str(&a.hostfile, kMaxPathBytes) || !r.str(&a.wdir, kMaxPathBytes) ||
        !r.str(&a.path, kMaxArgBytes))
      return malformed("SPAWN_REQUEST");
  }
  if (!get_strings(r, &m.env, kMaxArgs, kMaxArgBytes) || !r.at_end()) return malformed("SPAWN_REQUEST");
  *out = std::move(m);
  return Status::Ok();
}

std::string encode_spawn_reply(const SpawnReplyMsg& m) {
  WireWriter w;
  w.u64(m.seq);
  w.i32(m.ok);
  w.str(m.message);
  return w.take();
}

Status decode_spawn_reply(std::string_view p, SpawnReplyMsg* out) {
  WireReader r(p);
  SpawnReplyMsg m;
  if (!r.u64(&m.seq) || !r.i32(&m.ok) || !r.str(&m.message, kMaxSpawnMessageBytes) || !r.at_end())
    return malformed("SPAWN_REPLY");
  if (m.ok != 0 && m.ok != 1) return ProtocolError("SPAWN_REPLY with ok " + std::to_string(m.ok) + " (0 or 1)");
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace lz::oob
