// Helpers the p2p engine's files share (engine.cpp, engine_send.cpp,
// engine_recv.cpp, ...): frame headers, request ids on the wire, datatype
// shortcuts. Internal to runtime/p2p.
#pragma once

#include <time.h>

#include <cstddef>
#include <cstdint>

#include "lazarus/datatype/datatype.h"
#include "p2p/protocol.h"
#include "p2p/request.h"

namespace lz::rt::engine_detail {

// CLOCK_MONOTONIC in seconds: for bounded waits.
inline double now_seconds() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

constexpr uint32_t kMaxContext = 1u << 24;

// Each rank's CPU list (cpu_sharing.h) in the modex, read by the ranks of its host.
constexpr const char* kCpusKey = "p2p.cpus";

inline bool contiguous(const dt::Datatype* dt) { return dt == nullptr || dt->is_contiguous(); }
inline uint64_t packed_bytes(const dt::Datatype* dt, int count) {
  return dt ? static_cast<uint64_t>(dt->size()) * static_cast<uint64_t>(count) : static_cast<uint64_t>(count);
}
inline ptrdiff_t first_byte(const dt::Datatype* dt) { return dt ? dt->true_lb() : 0; }

inline Request* as_request(uint64_t id) {
  Request* r = reinterpret_cast<Request*>(static_cast<uintptr_t>(id));
  return (r != nullptr && r->valid()) ? r : nullptr;
}

inline wire::Header make_header(uint8_t type, uint32_t ctx, int src, int tag, uint64_t len) {
  wire::Header h;
  h.version = wire::kVersion;
  h.type = type;
  h.flags = 0;
  h.reserved = 0;
  h.context = ctx;
  h.src = src;
  h.tag = tag;
  h.length = len;
  h.sreq = 0;
  h.rreq = 0;
  h.addr = 0;
  return h;
}

}  // namespace lz::rt::engine_detail
