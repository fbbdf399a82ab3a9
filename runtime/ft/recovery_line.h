// Finding the snapshot a restarted program resumes from (cr_app_restart).
//
//   auto line = lz::ft::find_recovery_line(root, "stencil", 4, "auto", &skipped);
//   // line->job_dir: <root>/stencil.<id>; line->snapshot_dir: <job_dir>/<seq>
//
// "auto": every job directory <root>/<name>.<id> is looked at; of their
// committed snapshots written by cr=app for `np` ranks, the newest (by commit
// time, then sequence number) that verifies (every file's size and XXH3
// against COMMITTED, SnapshotStore::verify) is chosen; each one passed over
// adds a line to `skipped` saying why. A path: the job directory (its newest
// valid snapshot, any rank count: cr/app redistributes) or one snapshot in it
// (verified). "none" or "": no line (nullopt). Nothing found under "auto" is
// not an error (nullopt: the program starts afresh, so the same command line
// serves the first run and every restart); a path that holds nothing valid is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lazarus/status.h"

namespace lz::ft {

struct RecoveryLine {
  std::string job_dir;       // the store the snapshot is in
  std::string job_id;        // its id (the <id> of <name>.<id>)
  std::string snapshot_dir;  // <job_dir>/<seq>
  uint64_t seq = 0;
};

StatusOr<std::optional<RecoveryLine>> find_recovery_line(const std::string& root, const std::string& name, int np,
                                                         const std::string& setting,
                                                         std::vector<std::string>* skipped);

}  // namespace lz::ft
