// The one spelling of a rank's directory in a snapshot (or a migration's
// image directory): <dir>/rank.<r>. The launcher makes these directories,
// the snapshot store checks them, a rank's CR service and the cr modules
// read and write in them. It lives in framework/ because the components see
// only framework/ (and the public runtime headers), not runtime/snapshot.
#pragma once

#include <string>

namespace lz {

// "rank.<r>": the entry of rank `rank` in a snapshot directory.
inline std::string snapshot_rank_entry(int rank) { return "rank." + std::to_string(rank); }

// "<snapshot_dir>/rank.<r>".
inline std::string snapshot_rank_dir(const std::string& snapshot_dir, int rank) {
  return snapshot_dir + "/" + snapshot_rank_entry(rank);
}

// A snapshot being written is <job dir>/<seq>.partial; once committed it is
// <job dir>/<seq> and holds this file, written last.
inline constexpr const char* kSnapshotPartialSuffix = ".partial";
inline constexpr const char* kSnapshotCommittedFile = "COMMITTED";

// An incremental snapshot's rank directory may hold this file: the sequence
// numbers (decimal, one per line) of the older snapshots of the same job
// directory whose files this rank's files refer to (blocks left unchanged
// are not written again). The store records them at commit, keeps those
// snapshots while a kept one depends on them, and verifies them with it.
inline constexpr const char* kSnapshotDependsFile = "DEPENDS";

}  // namespace lz
