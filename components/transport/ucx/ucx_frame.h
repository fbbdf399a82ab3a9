// The active-message header of every frame the ucx transport sends, and the
// job tag in it.
//
// Frames travel as UCP active messages (ucp_am_send_nbx, one handler id),
// not tagged messages: a frame is a self-contained message the receiver
// must take whatever its size, with no receive posted in advance, which is
// what active messages are; the tag API would need a wildcard receive
// re-posted after every frame and a probe for the size. The UCP AM header
// (delivered beside the data, never copied into it) carries:
//   tag   a 64-bit value derived from the job secret (job_tag()): a worker of
//         another job, or a stale one that learnt an address, is refused;
//   src   the sender's rank (checked against the job size and the endpoint
//         state of that rank);
//   kind  data (kData; kDataHead: a data frame whose first bytes, the
//         engine's header, travel in the AM header after this one, so
//         that the receiver can place the rest at UCX's rendezvous request:
//         ucx_head_frame.cpp), or a control frame: kBye (the sender finalized: its exit is
//         not a failure), kCheckpoint (the sender is tearing its worker down
//         for a checkpoint: its endpoint and pid are stale until connect());
//   seq   per (sender, receiver) data frame number, from 0: delivery follows
//         it, so order holds even when UCX completes a rendezvous frame after
//         a later eager one, and a gap or duplicate is detected. For the pull
//         kinds below, the id of the pull instead (data frames' numbering
//         is not touched by them).
// The pull kinds carry a get_async() where UCX cannot read a peer's memory
// itself (tcp; ucx_rma.cpp): kGetReq (payload PullRequest) asks the owner
// of a registered region for bytes of it; the owner answers kGetReply, the
// bytes sent with UCX's own rendezvous (zero copy on both sides: UCX moves
// them from the region straight into the reader's buffer), or kGetFail
// (header only) when the request names no region of its.
// kBulkHello (header only) comes from a receiver of kDataHead frames on its
// bulk endpoint: the sender sends its later head frames on its end of that
// endpoint (ucx_head_frame.cpp says why), and answers kBulkAck (header only)
// on it (ucx_bulk_endpoint.cpp says why). The seq of kBye and kCheckpoint
// is kSaidHello if their sender sent us a kBulkHello, else 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace lz::transport::ucx {

enum FrameKind : uint32_t {
  kData = 1,
  kBye = 2,
  kCheckpoint = 3,
  kGetReq = 4,
  kGetReply = 5,
  kGetFail = 6,
  kDataHead = 7,
  kBulkHello = 8,
  kBulkAck = 9,
};

inline constexpr uint64_t kSaidHello = 1;

// The most bytes of a kDataHead frame that travel in its AM header.
inline constexpr size_t kMaxHead = 64;

struct FrameHeader {
  uint64_t tag;
  uint32_t src;
  uint32_t kind;
  uint64_t seq;
};
static_assert(sizeof(FrameHeader) == 24);

// The payload of kGetReq: `len` bytes at `addr` of the region `region` (the
// handle the owner's register_memory() put in the key).
struct PullRequest {
  uint64_t region;
  uint64_t addr;
  uint64_t len;
};
static_assert(sizeof(PullRequest) == 24);

// 64 bits of crypto_auth(secret, "ucx-frame-tag", zero nonce, "v1"): equal in
// every rank of a job, unpredictable without the secret.
uint64_t job_tag(const std::string& secret);

}  // namespace lz::transport::ucx
