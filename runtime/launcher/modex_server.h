// ModexServer: the launcher's side of the modex fence and of the barrier.
//
// Every rank sends FENCE (with the modex entries it put since its last
// fence) or BARRIER with its own round number; a round completes when the
// last rank of the job arrives, and the launcher broadcasts the answer
// (FENCE_DONE with every entry of the round, or BARRIER_DONE). Rounds are
// numbered from 1 and a rank may not skip or repeat one. Ranks restored from
// a snapshot carry the numbers of the job they were saved from: the first
// round of a restored job starts where they are.
//
//   ModexServer modex(size, spec.restored);
//   auto done = modex.on_fence(r.rank, r.restored, frame.payload);
//   if (!done.ok()) fail(...);                     // out of sequence, too large
//   else if (*done) server.broadcast(kFenceDone, **done);
//
// Threading: the launcher's event loop only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lazarus/status.h"
#include "oob/frame.h"
#include "oob/messages.h"

namespace lz::launcher {

class ModexServer {
 public:
  ModexServer(int size, bool restored_job);

  // A FENCE message from `rank` (`restored_rank`: restored from a snapshot).
  // nullopt while ranks are missing; the FENCE_DONE payload to broadcast
  // when the round completes. kProtocol when the rank is out of sequence,
  // kInvalidArgument when the round's entries exceed an OOB frame.
  StatusOr<std::optional<std::string>> on_fence(int rank, bool restored_rank, std::string_view payload);
  // A BARRIER message; the BARRIER_DONE payload when the round completes.
  StatusOr<std::optional<std::string>> on_barrier(int rank, bool restored_rank, std::string_view payload);
  // Rounds completed so far (a joining rank's WELCOME: it numbers from there).
  uint64_t fences_done() const { return fences_.current - 1; }
  uint64_t barriers_done() const { return barriers_.current - 1; }

 private:
  // One kind of round (fence or barrier): its number, who arrived, and the
  // last round each rank took part in.
  struct Rounds {
    const char* what;
    uint64_t current = 1;
    int arrived = 0;
    bool adopt = false;  // restored job: the first round adopts the ranks' number
    std::vector<uint64_t> last_of_rank;
    // Checks `seq` from `rank` against the sequence and counts the arrival;
    // true when the round is complete (then `current` has moved on).
    StatusOr<bool> arrive(int rank, bool restored_rank, uint64_t seq);
  };
  Rounds fences_{"FENCE"}, barriers_{"BARRIER"};
  std::vector<oob::FenceEntry> entries_;  // of the current fence round
};

}  // namespace lz::launcher
