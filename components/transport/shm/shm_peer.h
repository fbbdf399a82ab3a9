// ShmPeer: what a rank keeps about one other rank of its host.
//
// Split in two on purpose (checkpoint/restart): `address`, `rank`, `local_index` and the
// state flags are module state that survives a checkpoint; everything under
// "mapped resources" points into or refers to objects shared with the peer,
// is dropped by release_peers() and rebuilt by attach_peer() from a (possibly
// new) address. Nothing else in the module holds pointers into peer segments.
#pragma once

#include <string>

#include "lazarus/status.h"
#include "lazarus/unique_fd.h"
#include "shm_address.h"
#include "shm_doorbell.h"
#include "shm_layout.h"
#include "shm_ring.h"
#include "shm_segment.h"

namespace lz::transport::shm {

// What send() and get() return for a peer that has exited.
inline Status peer_gone_status(int rank) {
  return Status(Code::kAborted, "shm: rank " + std::to_string(rank) + " has exited");
}

struct ShmPeer {
  int rank = -1;
  uint32_t local_index = 0;  // its ring index in every segment of this host
  ShmAddress address;        // from the modex (re-read after a restart)
  bool gone = false;         // exited (cleanly or not): sends fail
  bool reported = false;     // peer_failed() already called
  bool tx_blocked = false;   // our last send found its ring full (wake-up requested)
  bool fence_sends = true;   // false: it runs membarrier before sleeping and we are registered

  // Mapped resources.
  Segment segment;                  // the peer's receive segment
  SegmentHeader* header = nullptr;  // == segment.base()
  RingProducer tx;                  // our ring in that segment
  DoorbellWriter bell;
  UniqueFd pidfd;  // readable once the peer exits; invalid: use kill(pid, 0)

  void release() {
    tx = RingProducer();
    header = nullptr;
    bell.reset();
    pidfd.reset();
    segment.reset();
  }
};

// The ring a peer writes into our segment. Kept apart from ShmPeer, densely,
// because progress() walks all of them on every call.
struct Inbound {
  RingConsumer ring;
  int src = -1;
  bool closed = false;  // peer gone and its ring drained, or ring corrupt
};

}  // namespace lz::transport::shm
