// CommRecord: the communicators a rank of a cr=app job made before its first
// LZ_Checkpoint, so that the process that takes its place after a migration
// (`lazarus migrate`) can make them again alone. That process runs the
// program's code before LZ_Restore by itself: its MPI_Comm_dup, _split,
// _create and _create_group there (and MPI_Cart_create, MPI_Graph_create,
// MPI_Comm_split_type, which use them) would wait for ranks that made
// theirs long ago. Each agreement of such a call is recorded (the context id
// and the members it gave) and handed over (cr/app_handover.h); in the new
// process the same calls, in the same order, take their result from the
// record without communicating (CPPC re-executes the logged communicator
// operations the same way, but collectively). The calls that are not
// recorded (intercommunicators, MPI_Comm_idup) are counted instead: a rank
// that made one before its first safe point cannot move under cr=app.
//
// One application thread at a time (the MPI entry); process-wide.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lazarus/status.h"

namespace lz::rt {

class CommRecord {
 public:
  struct Entry {
    std::string call;             // "MPI_Comm_split", ...: the program must repeat the same calls
    uint32_t context = 0;         // the agreed context pair
    bool member = false;          // false: MPI_COMM_NULL here (the id was taken all the same)
    std::vector<int> world_ranks; // the members, in rank order
  };

  static CommRecord& instance();

  // Recording: from MPI_Init to the first safe point of a cr=app rank.
  void set_recording(bool on) { recording_ = on; }
  bool recording() const { return recording_; }
  void add(Entry e) { entries_.push_back(std::move(e)); }
  const std::vector<Entry>& entries() const { return entries_; }
  // Communicators set up while recording, less the recorded ones.
  void count_unrecorded(int delta) { unrecorded_ += delta; }
  int unrecorded() const { return unrecorded_; }

  // Objects alive in this process that a process taking its place could
  // not make again alone, whenever made: one-sided windows (and so MPI
  // files, whose shared pointer is one). cr=app refuses to move such a rank.
  void count_unmovable(int delta) { unmovable_ += delta; }
  int unmovable() const { return unmovable_; }

  // Replay, in a process that took a moved rank's place, until its LZ_Restore.
  void start_replay(std::vector<Entry> entries);
  bool replaying() const { return replaying_; }
  // The next recorded agreement, which must be of `call`: kInvalidArgument
  // naming both when the program makes another call, or one more than the
  // old process made.
  StatusOr<Entry> next(const std::string& call);
  // Ends the replay: kInvalidArgument saying how many recorded calls the
  // program did not make again.
  Status finish_replay();

 private:
  bool recording_ = false, replaying_ = false;
  int unrecorded_ = 0;
  int unmovable_ = 0;
  std::vector<Entry> entries_;
  size_t next_ = 0;
};

}  // namespace lz::rt
