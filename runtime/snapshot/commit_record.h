// CommitRecord: the contents of a snapshot's COMMITTED file, the last file
// written into a global snapshot, whose presence (in a directory named by the
// bare sequence number) makes the snapshot restartable.
//
// It lists every file of the snapshot with its size and XXH3-64 checksum, and
// the snapshot's metadata. Its last line is a checksum of all the lines before
// it, so a damaged COMMITTED is reported as such instead of as a damaged
// rank file. Example (YAML):
//
//   # Lazarus snapshot commit record: written last; its presence commits the snapshot.
//   format: lazarus-snapshot-commit
//   version: 1
//   seq: 3
//   time: 1718000000
//   date: "2024-06-10T06:13:20Z"
//   np: 2
//   cr: "criu"
//   crcp: "bkmrk"
//   job: "1a2b3c4d"
//   checksum: xxh3-64
//   file_count: 2
//   total_bytes: 5120
//   files:
//     - {path: "rank.0/pages-1.img", size: 4096, xxh3: "8d1ec0a2b5e9f4c1"}
//     - {path: "rank.1/core-7.img", size: 1024, xxh3: "03ff2a9c0d5b7e61"}
//   commit_checksum: "5b0f1d9e2c3a4b68"
//
// An incremental snapshot (one whose rank directories hold a DEPENDS file,
// lazarus/snapshot_layout.h) also records the older snapshots its files refer
// to, after `job`; such a record says `version: 2`, so that a Lazarus that
// does not know dependencies (and could prune a snapshot that another needs)
// refuses it instead of restoring half a snapshot. Records without
// dependencies are still written as version 1, byte for byte as before:
//
//   version: 2
//   ...
//   job: "1a2b3c4d"
//   depends: [3, 5]
//
//   lz::snapshot::CommitRecord r;  // filled by SnapshotStore::commit
//   std::string text = r.format();
//   LZ_ASSIGN_OR_RETURN(auto back, lz::snapshot::CommitRecord::parse(text, path));
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lazarus/status.h"

namespace lz::snapshot {

inline constexpr const char* kCommittedFile = "COMMITTED";

// What the caller (the launcher) tells commit() about a snapshot.
struct SnapshotMeta {
  int np = 0;        // ranks in the job (rank.0 .. rank.<np-1> must exist); 0: not checked
  std::string cr;    // cr component that wrote the rank files ("criu", "app")
  std::string crcp;  // coordination protocol ("bkmrk")
  int64_t time = 0;  // seconds since the epoch; 0: now
  std::string job;   // id of the job that wrote it (the store fills it in; absent in older records)
};

// One file of a snapshot, relative to the snapshot directory.
struct CommittedFile {
  std::string path;  // "rank.1/pages-1.img"
  uint64_t size = 0;
  uint64_t xxh3 = 0;
};

// What list() reports about a committed snapshot.
struct SnapshotInfo {
  uint64_t seq = 0;
  int64_t time = 0;
  int np = 0;
  std::string cr, crcp;
  uint64_t total_bytes = 0;
  uint64_t file_count = 0;
  std::string path;  // absolute directory of the snapshot (empty when read from the manifest)
  std::vector<uint64_t> depends;  // older snapshots this one's files refer to (sorted; empty: self-contained)
};

struct CommitRecord {
  // The newest format version read; written only when `depends` is not empty
  // (kVersionSelfContained otherwise).
  static constexpr int kVersion = 2;
  static constexpr int kVersionSelfContained = 1;
  // Refuse absurd files before allocating for them.
  static constexpr size_t kMaxFileBytes = 64u << 20;
  static constexpr uint64_t kMaxFiles = 1u << 20;
  static constexpr int kMaxRanks = 1 << 24;

  uint64_t seq = 0;
  SnapshotMeta meta;
  std::vector<CommittedFile> files;  // sorted by path
  // Sequence numbers of the older snapshots of the same job directory whose
  // files this one's refer to: sorted, unique, each < seq.
  std::vector<uint64_t> depends;

  uint64_t total_bytes() const;
  SnapshotInfo info(const std::string& dir) const;

  std::string format() const;
  // Parses and checks a COMMITTED file's text; `path` names it in errors
  // ("<path>:<line>: ..."), all kDataLoss except a newer format version
  // (kUnimplemented).
  static StatusOr<CommitRecord> parse(const std::string& text, const std::string& path);
  // read_small_file + parse.
  static StatusOr<CommitRecord> read(const std::string& path);
};

// "2024-06-10T06:13:20Z".
std::string format_utc(int64_t seconds_since_epoch);
// "[3, 5]": a list of sequence numbers as COMMITTED and the manifest write it.
std::string seq_list(const std::vector<uint64_t>& seqs);
// A relative path without "", ".", ".." components, a leading '/', or control
// characters: the only kind a snapshot may list.
bool is_safe_relative_path(std::string_view p);

}  // namespace lz::snapshot
