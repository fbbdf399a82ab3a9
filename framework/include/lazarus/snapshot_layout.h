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

}  // namespace lz
