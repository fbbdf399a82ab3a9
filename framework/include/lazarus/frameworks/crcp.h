// The `crcp` framework: checkpoint coordination protocols. Before the cr module
// saves a rank, the protocol brings every channel to this rank to a quiet,
// consistent state (bkmrk: exchange "sent" bookmarks, drain until "received"
// matches them, hold sends meanwhile — the LAM/MPI design).
//
//   LZ_RETURN_IF_ERROR(crcp.quiesce(coord));  // on the CR thread, lock held
//   ... transports' on_checkpoint, cr.checkpoint ...
//   LZ_RETURN_IF_ERROR(crcp.resume(coord, restarted));
//
// A protocol that can coordinate a job of several ranks advertises kCapDrain;
// crcp/none does not (it refuses to quiesce more than one rank). The
// conformance suite (tests/conformance/crcp) runs the contract below against
// a fake coordinator for every component, crcp/none as the reference.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "lazarus/component.h"
#include "lazarus/status.h"

namespace lz::crcp {

// 2: capabilities (kCapDrain).
inline constexpr uint32_t kInterfaceVersion = 2;

enum Capability : uint64_t {
  kCapDrain = 1ull << 0,  // quiesce() drains a job of any size (else it refuses more than one rank)
};
// "drain" for messages and `lazarus info`; "none" for 0.
std::string capability_names(uint64_t caps);

// Per peer and direction: complete messages and payload bytes.
struct Bookmark {
  uint64_t messages = 0;
  uint64_t bytes = 0;
  bool operator==(const Bookmark&) const = default;
};

// What a protocol needs from the runtime (p2p engine and OOB channel).
class Coordinator {
 public:
  virtual ~Coordinator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual Bookmark sent_to(int peer) const = 0;
  virtual Bookmark received_from(int peer) const = 0;
  // All-to-all exchange of one bookmark per peer over the OOB channel:
  // mine[p] goes to p; returns theirs[p] = what p sent for this rank.
  virtual StatusOr<std::vector<Bookmark>> exchange(const std::vector<Bookmark>& mine) = 0;
  // Makes receive progress (no new sends leave) for at most `budget`.
  virtual Status progress_receives(std::chrono::milliseconds budget) = 0;
  // While held, the engine queues new outgoing frames instead of sending them.
  virtual void hold_sends(bool hold) = 0;
};

class Module : public lz::Module {
 public:
  // On the CR thread with the entry lock held, before the cr module saves
  // this rank. Returns when no data is in flight to this rank: with
  // kCapDrain, sends are held (c.hold_sends(true)) before the "sent"
  // bookmarks are taken and exchanged, and receives progress until every
  // c.received_from(p) equals what p says it sent. Sends stay held on return,
  // whatever the result, until resume(). Bounded by the runtime's
  // cr_drain_timeout (seconds, read at query time when registered): kTimeout
  // names every peer whose bookmarks never matched ("rank 2") and no other.
  // Other errors: more received from a peer than it sent (names the peer),
  // the coordinator's exchange error as is (kAborted: the launcher gave up).
  // Without kCapDrain: Ok for a one-rank job, kUnavailable otherwise.
  virtual Status quiesce(Coordinator& c) = 0;
  // After the local checkpoint (continued or restarted), or after a failed
  // quiesce(): releases held sends (c.hold_sends(false)).
  virtual Status resume(Coordinator& c, bool restarted) = 0;
};

}  // namespace lz::crcp
