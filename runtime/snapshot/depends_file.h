// The DEPENDS file of an incremental snapshot's rank directory
// (lz::kSnapshotDependsFile, lazarus/snapshot_layout.h): the sequence numbers
// of the older snapshots of the same job directory whose files this rank's
// files refer to, decimal, one per line, each line ending in a newline.
// Blank lines are allowed; anything else (signs, spaces, leading zeros, a
// last line without its newline, as a truncated write leaves) is refused.
//
//   $ cat <job dir>/7.partial/rank.1/DEPENDS
//   3
//   5
//
//   LZ_ASSIGN_OR_RETURN(std::vector<uint64_t> deps, lz::snapshot::read_depends_file(rank_dir + "/DEPENDS"));
//
// SnapshotStore::commit() reads them, records their union in COMMITTED
// (CommitRecord::depends), and refuses the commit when one names a snapshot
// that is not an older committed one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lazarus/status.h"

namespace lz::snapshot {

// A DEPENDS file larger than this is not one of ours.
inline constexpr size_t kMaxDependsFileBytes = 1u << 20;

// The sequence numbers of `text`, in file order (duplicates kept). Errors are
// kDataLoss "<path>:<line>: <what is wrong>".
StatusOr<std::vector<uint64_t>> parse_depends_file(const std::string& text, const std::string& path);
// read_small_file + parse_depends_file.
StatusOr<std::vector<uint64_t>> read_depends_file(const std::string& path);

}  // namespace lz::snapshot
