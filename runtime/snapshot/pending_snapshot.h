// PendingSnapshot: a global snapshot being written, handed out by
// SnapshotStore::begin() and finished by SnapshotStore::commit() or abort().
//
// It owns the temporary directory <job dir>/<seq>.partial/ in which each rank
// (or the launcher on its behalf) writes its local snapshot under rank_dir(r).
// Nothing in a .partial directory is ever restarted from. If the object is
// destroyed while still pending (an error path), the partial directory is
// removed; if the process dies instead, the next SnapshotStore that opens the
// job directory removes it.
//
//   LZ_ASSIGN_OR_RETURN(auto snap, store.begin(store.next_seq()));
//   LZ_ASSIGN_OR_RETURN(std::string d0, snap.rank_dir(0));  // created, mode 0700
//   ... ranks write their files ...
//   LZ_ASSIGN_OR_RETURN(auto info, store.commit(snap, {.np = 4, .cr = "criu", .crcp = "bkmrk"}));
//
// Movable, not copyable; not thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "lazarus/status.h"

namespace lz::snapshot {

class SnapshotStore;

class PendingSnapshot {
 public:
  PendingSnapshot(PendingSnapshot&& o) noexcept;
  PendingSnapshot& operator=(PendingSnapshot&& o) noexcept;
  PendingSnapshot(const PendingSnapshot&) = delete;
  PendingSnapshot& operator=(const PendingSnapshot&) = delete;
  ~PendingSnapshot();  // removes the partial directory if neither committed nor aborted

  uint64_t seq() const { return seq_; }
  // The temporary directory (<job dir>/<seq>.partial).
  const std::string& dir() const { return dir_; }
  // The directory the snapshot will have once committed (<job dir>/<seq>).
  const std::string& final_dir() const { return final_dir_; }
  bool pending() const { return pending_; }

  // <dir>/rank.<r>, created with mode 0700 on first call.
  StatusOr<std::string> rank_dir(int rank) const;

 private:
  friend class SnapshotStore;
  PendingSnapshot(uint64_t seq, std::string dir, std::string final_dir);
  void discard() noexcept;

  uint64_t seq_ = 0;
  std::string dir_, final_dir_;
  bool pending_ = false;
};

}  // namespace lz::snapshot
