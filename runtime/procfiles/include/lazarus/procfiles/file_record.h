// The record of the files a process had open when it was checkpointed, and
// what a restart does to each of them (issue: a restarted program's own files
// hold what an uninterrupted run writes).
//
// A checkpoint rolls a process back to one moment; the files it writes must go
// back to that moment too, or a restarted job appends its re-run iterations
// after the ones already written, or (CRIU) fails to restore at all because a
// log grew. So every regular file the process (and its child processes) held
// open or mapped shared is recorded with its size, identity and holders, and
// each gets an action: a file written through a descriptor is truncated back
// to its size (the default, right for logs and outputs a deterministic
// program rewrites), or restored from a copy kept in the snapshot
// (`cr_files=copy`, and always for a file mapped shared and writable, whose
// pages a truncation cannot undo), or kept as it is (`cr_files=keep`); a file
// only read is checked, and a change is reported by name.
//
//   ProcessFiles pf = ...;                            // file_scan.h
//   LZ_RETURN_IF_ERROR(write_process_files(dir_fd, pf));   // <rank dir>/lazarus-files.yaml
//   LZ_ASSIGN_OR_RETURN(ProcessFiles back, read_process_files(rank_dir));
//
// The record is a small YAML file beside the rank's images or variables, so
// the snapshot's COMMITTED checksums cover it and the copies (kCopyDir).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lazarus/status.h"

namespace lz::procfiles {

inline constexpr const char* kRecordFile = "lazarus-files.yaml";
inline constexpr const char* kCopyDir = "lazarus-files";  // copies: <rank dir>/lazarus-files/<n>
inline constexpr uint64_t kDefaultCopyMax = 64ull << 20;

// The snapshot-wide choice (parameter cr_files) for files written through a
// descriptor.
enum class Policy { kTruncate, kCopy, kKeep };
inline constexpr const char* kPolicyChoices = "truncate|copy|keep";
const char* policy_name(Policy p) noexcept;
StatusOr<Policy> parse_policy(std::string_view text);

// What a restart does to one file.
enum class Action {
  kTruncate,  // cut back to the recorded size; one that shrank or vanished is an error
  kCopy,      // rewritten from the snapshot's copy (also recreated when deleted)
  kKeep,      // left alone; a change is reported
  kCheck,     // read only by the process: left alone; a change is reported
};
const char* action_name(Action a) noexcept;
StatusOr<Action> parse_action(std::string_view text);

// One descriptor or shared mapping through which a process holds the file.
struct Holder {
  pid_t pid = 0;
  int fd = -1;       // -1: a mapping only
  int flags = 0;     // open flags of the descriptor (O_ACCMODE, O_APPEND ...)
  uint64_t pos = 0;  // its file offset
  std::string map;   // a shared mapping's permissions ("rw-s"), empty for a descriptor
};

struct FileRecord {
  std::string path;
  bool written = false;        // held open for writing, or mapped shared and writable
  bool mapped_shared = false;  // some holder maps it MAP_SHARED
  uint64_t size = 0;
  uint64_t dev = 0, ino = 0;
  int64_t mtime_ns = 0;
  uint32_t mode = 0;  // st_mode
  Action action = Action::kCheck;
  std::string copy;  // relative to the rank directory; empty: no copy
  std::string note;  // why the action differs from the snapshot's policy
  std::vector<Holder> holders;
};

// One checkpointed process tree's files.
struct ProcessFiles {
  pid_t pid = 0;    // the checkpointed process (the tree's root)
  std::string cwd;  // its working directory
  Policy policy = Policy::kTruncate;
  uint64_t copy_max = kDefaultCopyMax;
  std::vector<FileRecord> files;
};

// Writes kRecordFile into the directory `dir_fd` atomically (temporary name,
// fsync, rename), mode 0600.
Status write_process_files(int dir_fd, const ProcessFiles& pf);
// Reads <rank_dir>/kRecordFile. kNotFound when there is none (a snapshot of
// an older Lazarus, or a back end that records nothing); kDataLoss naming the
// file when it does not parse.
StatusOr<ProcessFiles> read_process_files(const std::string& rank_dir);

// "truncate to 1843 bytes", "copy (lazarus-files/0, 4096 bytes)", "check" ...:
// one line per file for `lazarus snapshot show` and checkpoint reports.
std::string describe(const FileRecord& f);

}  // namespace lz::procfiles
