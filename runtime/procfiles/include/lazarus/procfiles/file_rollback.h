// Putting a snapshot's files back before its processes run again: restart,
// `--recover auto` and cr_restart roll them back; a migration (nothing rolls
// back) only checks that they are still there.
//
//   LZ_ASSIGN_OR_RETURN(FileRollback rb, FileRollback::load(snapshot_dir));
//   LZ_ASSIGN_OR_RETURN(RollbackReport r, rb.apply(rank, {.mode = RollbackMode::kRollBack}));
//   for (auto& line : r.done) note(line);          // "truncated ... from 2077 to 1843 bytes"
//   for (auto& line : r.warnings) warn(line);      // "input ... changed since the checkpoint"
//
// Several ranks may hold one file (a log they all append to). Their records
// are merged by path over the whole snapshot, so every rank's restore, in any
// order and on any host, drives the file to the same state: the largest size
// any rank recorded (what every rank may have written is kept; a line written
// after one rank's image and before another's may then appear twice, which is
// reported), and that rank's copy. A file is never extended: one that shrank,
// vanished or was replaced by another since the checkpoint is an error naming
// it, unless a copy brings it back.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "lazarus/procfiles/file_record.h"
#include "lazarus/status.h"

namespace lz::procfiles {

enum class RollbackMode {
  kRollBack,  // restart, recovery: back to the recorded state
  kMove,      // migration: the process stopped at its image; only check the files exist
};

struct RollbackOptions {
  RollbackMode mode = RollbackMode::kRollBack;
  bool keep_all = false;  // cr_files=keep at restart: leave every file, report changes
  bool lenient = false;   // cr=app: the program reopens its files itself; problems are warnings
};

struct RollbackReport {
  std::vector<std::string> done;      // what was changed, one line per file
  std::vector<std::string> warnings;  // what changed since the checkpoint and was left
};

class FileRollback {
 public:
  // Reads the records of every rank.<r> in `snapshot_dir` (a directory that
  // holds none gives an empty rollback), or of `snapshot_dir` itself when it
  // is one process's directory (cr_restart). kDataLoss names a bad record.
  static StatusOr<FileRollback> load(const std::string& snapshot_dir);

  // The files of rank `rank` (-1: the single process of a directory that is
  // not a job snapshot). Errors name the file and what happened to it.
  StatusOr<RollbackReport> apply(int rank, const RollbackOptions& options) const;

  bool empty() const { return ranks_.empty(); }

 private:
  // The merged view of one path over every rank that recorded it.
  struct Merged {
    FileRecord rec;        // the record with the largest size (its copy, its identity)
    std::string copy_dir;  // rank directory the copy is relative to
    std::vector<int> ranks;
    bool sizes_differ = false;
  };
  std::map<int, ProcessFiles> ranks_;
  std::map<std::string, Merged> merged_;
};

}  // namespace lz::procfiles
