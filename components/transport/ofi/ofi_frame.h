// The header this transport puts before every frame it carries (one frame per
// libfabric message). The endpoint accepts messages from anyone who knows its
// address, so a frame is delivered only when the header proves it comes from
// a rank of this job: `tag` is a MAC of the job secret over the (source,
// destination) pair (lazarus/auth.h), which a stranger cannot compute. `seq`
// numbers the frames of each pair; the receiver delivers them in that order
// (the provider's FI_ORDER_SAS already gives it; completion order is not
// promised, so a frame that completes early waits for its predecessors) and
// drops one it has already delivered.
#pragma once

#include <cstdint>

namespace lz::transport::ofi {

enum class FrameKind : uint32_t {
  kData = 1,  // payload for Host::deliver
  kBye = 2,   // the sender finalized: its exit that follows is not a failure
};

struct FrameHeader {
  uint64_t tag;  // pair_tag(secret, src, dst)
  uint32_t src;  // sender's rank
  uint32_t seq;  // per (src, dst), from 0, wraps
  uint32_t kind;
  uint32_t len;  // payload bytes after the header
};
static_assert(sizeof(FrameHeader) == 24, "the wire header is 24 bytes");

}  // namespace lz::transport::ofi
