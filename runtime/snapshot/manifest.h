// Manifest: the contents of <job dir>/manifest.yaml, the job spec a restart
// needs (how the job was started) and the list of its committed snapshots.
//
// The snapshot list is an index for people and tools (`lazarus ps`, `ls`); the
// truth is the set of <seq>/COMMITTED files, from which the store rewrites the
// manifest after every commit and prune (atomically: temporary name, fsync,
// rename). Example:
//
//   # Lazarus job manifest: the job spec and its committed snapshots (oldest first).
//   format: lazarus-job-manifest
//   version: 1
//   job:
//     name: "solver"
//     id: "1a2b3c4d"
//     argv: ["./solver", "-n", "100"]
//     np: 4
//     hosts: ["node1", "node1", "node2", "node2"]
//     cwd: "/home/alice/run"
//     parameters:
//       "cr": "criu"
//       "transport": "shm,self"
//     environment:
//       "OMP_NUM_THREADS": "2"
//   snapshots:
//     - {seq: 2, time: 1718000000, date: "2024-06-10T06:13:20Z", np: 4, cr: "criu", crcp: "bkmrk",
//        total_bytes: 1073741824, file_count: 88}
//     - {seq: 3, time: 1718000600, date: "2024-06-10T06:23:20Z", np: 4, cr: "app", crcp: "bkmrk",
//        total_bytes: 4096, file_count: 8, depends: [2]}
//
// `depends` (only present when not empty) lists the older snapshots whose
// files an incremental snapshot refers to (CommitRecord::depends).
//
//   LZ_ASSIGN_OR_RETURN(auto m, lz::snapshot::Manifest::read(dir + "/manifest.yaml"));
//   relaunch(m.job.argv, m.job.np, m.job.hosts);
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "lazarus/status.h"
#include "snapshot/commit_record.h"

namespace lz::snapshot {

inline constexpr const char* kManifestFile = "manifest.yaml";

// How the job was started: what `lazarus restart` needs to start it again.
// One program of an MPMD job (`mpirun -np 2 a : -np 1 b`): its ranks
// follow the previous program's.
struct AppRecord {
  std::vector<std::string> argv;
  int np = 0;
  std::string cwd;                                               // -wdir (empty: the job's)
  std::vector<std::pair<std::string, std::string>> environment;  // its -x / -env exports
};

struct JobRecord {
  std::string name;                 // job name (the program's base name by default)
  std::string id;                   // launcher's job id
  std::vector<std::string> argv;    // program and arguments (of the first program, for an MPMD job)
  int np = 0;
  std::vector<std::string> hosts;   // host of each rank, in rank order
  std::string cwd;
  // Non-default parameters (name, value) and the environment passed with -x.
  std::vector<std::pair<std::string, std::string>> parameters;
  std::vector<std::pair<std::string, std::string>> environment;
  std::vector<AppRecord> apps;  // every program of an MPMD job, in rank order (empty: argv alone)
};

struct Manifest {
  static constexpr int kVersion = 1;
  static constexpr size_t kMaxFileBytes = 16u << 20;

  JobRecord job;
  std::vector<SnapshotInfo> snapshots;  // oldest first; `path` left empty

  std::string format() const;
  // Errors name `path` and the line; kDataLoss (kUnimplemented for a newer version).
  static StatusOr<Manifest> parse(const std::string& text, const std::string& path);
  static StatusOr<Manifest> read(const std::string& path);
};

}  // namespace lz::snapshot
