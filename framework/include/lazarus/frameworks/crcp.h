// The `crcp` framework: checkpoint coordination protocols. Before the cr module
// saves a rank, the protocol brings every channel to this rank to a quiet,
// consistent state (bkmrk: exchange "sent" bookmarks, drain until "received"
// matches them, hold sends meanwhile — the LAM/MPI design).
//
//   LZ_RETURN_IF_ERROR(crcp.quiesce(coord));  // on the CR thread, lock held
//   ... transports' on_checkpoint, cr.checkpoint ...
//   LZ_RETURN_IF_ERROR(crcp.resume(coord, restarted));
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "lazarus/component.h"
#include "lazarus/status.h"

namespace lz::crcp {

inline constexpr uint32_t kInterfaceVersion = 1;

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
  // Returns when no data is in flight to this rank. Bounded; kTimeout names
  // the peers whose bookmarks never matched.
  virtual Status quiesce(Coordinator& c) = 0;
  // After the local checkpoint (continued or restarted): release held sends.
  virtual Status resume(Coordinator& c, bool restarted) = 0;
};

}  // namespace lz::crcp
