#include "oob/messages.h"

#include "oob/frame.h"
#include "oob/wire.h"

namespace lz::oob {

std::string auth_id(std::string_view job_id, uint32_t rank) {
  std::string id(job_id);
  id += '/';
  id += std::to_string(rank);
  return id;
}

std::string encode_hello(const HelloMsg& m) {
  WireWriter w;
  w.raw(m.nonce.data(), m.nonce.size());
  w.str(m.job_id);
  return w.take();
}

Status decode_hello(std::string_view p, HelloMsg* out) {
  WireReader r(p);
  HelloMsg m;
  if (!r.raw(m.nonce.data(), m.nonce.size()) || !r.str(&m.job_id, kMaxJobIdBytes) || !r.at_end())
    return malformed("HELLO");
  *out = std::move(m);
  return Status::Ok();
}

std::string encode_auth(const AuthMsg& m) {
  WireWriter w;
  w.u32(m.rank);
  w.u32(m.flags);
  w.raw(m.mac.data(), m.mac.size());
  return w.take();
}

Status decode_auth(std::string_view p, AuthMsg* out) {
  WireReader r(p);
  AuthMsg m;
  if (!r.u32(&m.rank) || !r.u32(&m.flags) || !r.raw(m.mac.data(), m.mac.size()) || !r.at_end())
    return malformed("AUTH");
  *out = m;
  return Status::Ok();
}

std::string encode_welcome(const WelcomeMsg& m) {
  WireWriter w;
  w.str(m.job_id);
  w.u32(m.size);
  for (uint32_t i = 0; i < m.size; ++i) {
    w.u64(m.node_of_rank[i]);
    w.str(m.hostname_of_rank[i]);
  }
  w.u64(m.fences_done);
  w.u64(m.barriers_done);
  return w.take();
}

Status decode_welcome(std::string_view p, WelcomeMsg* out) {
  WireReader r(p);
  WelcomeMsg m;
  if (!r.str(&m.job_id, kMaxJobIdBytes) || !r.u32(&m.size)) return malformed("WELCOME");
  // Each rank takes at least 12 bytes: check before reserving anything.
  if (m.size == 0 || m.size > kMaxRanks || r.remaining() / 12 < m.size) return malformed("WELCOME");
  m.node_of_rank.resize(m.size);
  m.hostname_of_rank.resize(m.size);
  for (uint32_t i = 0; i < m.size; ++i)
    if (!r.u64(&m.node_of_rank[i]) || !r.str(&m.hostname_of_rank[i], kMaxHostnameBytes)) return malformed("WELCOME");
  if (!r.u64(&m.fences_done) || !r.u64(&m.barriers_done)) return malformed("WELCOME");
  if (!r.at_end()) return malformed("WELCOME");
  *out = std::move(m);
  return Status::Ok();
}

std::string encode_error(const ErrorMsg& m) {
  WireWriter w;
  w.str(m.reason);
  return w.take();
}

Status decode_error(std::string_view p, ErrorMsg* out) {
  WireReader r(p);
  ErrorMsg m;
  if (!r.str(&m.reason, kMaxReasonBytes) || !r.at_end()) return malformed("ERROR");
  *out = std::move(m);
  return Status::Ok();
}

std::string encode_fence(const FenceMsg& m) {
  WireWriter w;
  w.u64(m.seq);
  w.u32(static_cast<uint32_t>(m.entries.size()));
  for (const auto& [k, v] : m.entries) {
    w.str(k);
    w.str(v);
  }
  return w.take();
}

Status decode_fence(std::string_view p, FenceMsg* out) {
  WireReader r(p);
  FenceMsg m;
  uint32_t n = 0;
  if (!r.u64(&m.seq) || !r.u32(&n) || r.remaining() / 8 < n) return malformed("FENCE");
  m.entries.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    std::string k, v;
    if (!r.str(&k, kMaxKeyBytes) || !r.str(&v, kMaxPayload)) return malformed("FENCE");
    m.entries.emplace_back(std::move(k), std::move(v));
  }
  if (!r.at_end()) return malformed("FENCE");
  *out = std::move(m);
  return Status::Ok();
}

std::string encode_fence_done(const FenceDoneMsg& m) {
  WireWriter w;
  w.u64(m.seq);
  w.u32(static_cast<uint32_t>(m.entries.size()));
  for (const auto& e : m.entries) {
    w.u32(e.rank);
    w.str(e.key);
    w.str(e.value);
  }
  return w.take();
}

Status decode_fence_done(std::string_view p, uint32_t size, FenceDoneMsg* out) {
  WireReader r(p);
  FenceDoneMsg m;
  uint32_t n = 0;
  if (!r.u64(&m.seq) || !r.u32(&n) || r.remaining() / 12 < n) return malformed("FENCE_DONE");
  m.entries.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    FenceEntry e;
    if (!r.u32(&e.rank) || e.rank >= size || !r.str(&e.key, kMaxKeyBytes) || !r.str(&e.value, kMaxPayload))
      return malformed("FENCE_DONE");
    m.entries.push_back(std::move(e));
  }
  if (!r.at_end()) return malformed("FENCE_DONE");
  *out = std::move(m);
  return Status::Ok();
}

std::string encode_seq(const SeqMsg& m) {
  WireWriter w;
  w.u64(m.seq);
  return w.take();
}

Status decode_seq(std::string_view p, SeqMsg* out) {
  WireReader r(p);
  SeqMsg m;
  if (!r.u64(&m.seq) || !r.at_end()) return malformed("BARRIER");
  *out = m;
  return Status::Ok();
}

std::string encode_abort(const AbortMsg& m) {
  WireWriter w;
  w.i32(m.code);
  w.str(m.reason);
  return w.take();
}

Status decode_abort(std::string_view p, AbortMsg* out) {
  WireReader r(p);
  AbortMsg m;
  if (!r.i32(&m.code) || !r.str(&m.reason, kMaxReasonBytes) || !r.at_end()) return malformed("ABORT");
  *out = std::move(m);
  return Status::Ok();
}

std::string encode_app_point(const AppPointMsg& m) {
  WireWriter w;
  w.u64(m.safe_point);
  w.u64(m.seq);
  w.str(m.dir);
  return w.take();
}

Status decode_app_point(std::string_view p, AppPointMsg* out) {
  WireReader r(p);
  AppPointMsg m;
  if (!r.u64(&m.safe_point) || !r.u64(&m.seq) || !r.str(&m.dir, kMaxKeyBytes) || !r.at_end())
    return malformed("APP_POINT");
  *out = std::move(m);
  return Status::Ok();
}

std::string encode_cr_request(const CrRequestMsg& m) {
  WireWriter w;
  w.u64(m.seq);
  w.u32(m.flags);
  w.str(m.dir);
  return w.take();
}

Status decode_cr_request(std::string_view p, CrRequestMsg* out) {
  WireReader r(p);
  CrRequestMsg m;
  if (!r.u64(&m.seq) || !r.u32(&m.flags) || !r.str(&m.dir, kMaxKeyBytes) || !r.at_end())
    return malformed("CHECKPOINT_REQUEST");
  *out = std::move(m);
  return Status::Ok();
}

std::string encode_cr_bookmarks(const CrBookmarksMsg& m) {
  WireWriter w;
  w.u64(m.seq);
  w.u32(static_cast<uint32_t>(m.peers.size()));
  for (const auto& b : m.peers) {
    w.u64(b.messages);
    w.u64(b.bytes);
  }
  return w.take();
}

Status decode_cr_bookmarks(std::string_view p, uint32_t size, CrBookmarksMsg* out) {
  WireReader r(p);
  CrBookmarksMsg m;
  uint32_t n = 0;
  if (!r.u64(&m.seq) || !r.u32(&n)) return malformed("CHECKPOINT bookmarks");
  if (n != size || r.remaining() != static_cast<size_t>(n) * 16) return malformed("CHECKPOINT bookmarks");
  m.peers.resize(n);
  for (auto& b : m.peers)
    if (!r.u64(&b.messages) || !r.u64(&b.bytes)) return malformed("CHECKPOINT bookmarks");
  *out = std::move(m);
  return Status::Ok();
}

std::string encode_cr_done(const CrDoneMsg& m) {
  WireWriter w;
  w.u64(m.seq);
  w.u32(m.outcome);
  w.u64(m.image_bytes);
  return w.take();
}

Status decode_cr_done(std::string_view p, CrDoneMsg* out) {
  WireReader r(p);
  CrDoneMsg m;
  if (!r.u64(&m.seq) || !r.u32(&m.outcome) || !r.u64(&m.image_bytes) || !r.at_end() ||
      m.outcome > kCrOutcomeRestarted)
    return malformed("CHECKPOINT_DONE");
  *out = m;
  return Status::Ok();
}

std::string encode_cr_reason(const CrReasonMsg& m) {
  WireWriter w;
  w.u64(m.seq);
  w.str(m.reason);
  return w.take();
}

Status decode_cr_reason(std::string_view p, CrReasonMsg* out) {
  WireReader r(p);
  CrReasonMsg m;
  if (!r.u64(&m.seq) || !r.str(&m.reason, kMaxReasonBytes) || !r.at_end()) return malformed("CHECKPOINT reason");
  *out = std::move(m);
  return Status::Ok();
}

std::optional<uint64_t> cr_seq_of(uint16_t type, std::string_view payload, uint32_t size) {
  switch (static_cast<MsgType>(type)) {
    case MsgType::kCheckpointReady:
    case MsgType::kCheckpointDrain: {
      CrBookmarksMsg m;
      if (!decode_cr_bookmarks(payload, size, &m).ok()) return std::nullopt;
      return m.seq;
    }
    case MsgType::kCheckpointDrained:
    case MsgType::kCheckpointGo: {
      SeqMsg m;
      if (!decode_seq(payload, &m).ok()) return std::nullopt;
      return m.seq;
    }
    case MsgType::kCheckpointDone: {
      CrDoneMsg m;
      if (!decode_cr_done(payload, &m).ok()) return std::nullopt;
      return m.seq;
    }
    case MsgType::kCheckpointFailed:
    case MsgType::kCheckpointAbort: {
      CrReasonMsg m;
      if (!decode_cr_reason(payload, &m).ok()) return std::nullopt;
      return m.seq;
    }
    default:
      return std::nullopt;
  }
}

Status decode_empty(std::string_view p, const char* what) {
  if (!p.empty()) return malformed(what);
  return Status::Ok();
}

}  // namespace lz::oob
