// SnapshotStore: the on-disk store of a job's global snapshots (ARCHITECTURE.md
// "Snapshot store"): atomic commit, verification before restart, pruning.
//
//   <snapshot_root>/<job name>.<job id>/       mode 0700
//       manifest.yaml       job spec + committed snapshot index (Manifest)
//       .lock               flock()ed by the one process that may write here
//       <seq>/              a committed global snapshot
//           rank.<r>/...    the rank's local snapshot (opaque files)
//           COMMITTED       written last: every file's size and XXH3-64, metadata
//       <seq>.partial/      a snapshot being written (never restarted from)
//
// Directories are 0700 and files 0600: commit() fixes the modes of files that
// other programs wrote (CRIU writes its images 0644).
//
// Commit protocol (crash-consistent at every step):
//   1. every file is chmod 0600, its writeback started (sync_file_range) so
//      the disk works while we hash, then read and hashed in 1 MiB blocks and
//      fsync()ed; every directory is chmod 0700 and fsync()ed;
//   2. COMMITTED is written as COMMITTED.tmp, fsync()ed, renamed, and the
//      snapshot directory fsync()ed;
//   3. <seq>.partial is renamed to <seq> and the job directory fsync()ed: this
//      rename is the commit point;
//   4. older snapshots beyond `keep` are pruned (renamed to <seq>.pruning,
//      then removed), never the one just committed;
//   5. manifest.yaml is rewritten atomically (temporary name, fsync, rename).
//
// Incremental snapshots: a rank directory may hold a DEPENDS file naming older
// snapshots of this store whose files its own refer to (depends_file.h).
// commit() records their union in COMMITTED and refuses to commit when one is
// not an older committed snapshot; prune() keeps, besides the newest `keep`,
// every snapshot a kept one depends on (transitively); verify() checks the
// snapshots depended on as well, so newest_valid() passes over a snapshot
// whose base is damaged or gone.
// A crash before 3 leaves a .partial directory that is ignored and removed by
// the next writer to open the job directory; the previous snapshot is untouched.
// A crash after 3 leaves a committed snapshot even if the manifest lags (the
// next open rewrites it from the COMMITTED files, which are the truth).
//
// One writer per job directory, enforced with flock() on .lock (released by the
// kernel when the writer dies, so a killed launcher never blocks its restart).
// open() takes the lock or fails; open_existing() takes it when free (and may
// then write and clean up) and is read-only when another process holds it (for
// example `lazarus restart` of a job that is still running), in which case
// .partial directories are left alone: they may be a checkpoint in progress.
//
// Usage, launcher side:
//
//   lz::snapshot::JobRecord job{.name = "solver", .id = job_id, .argv = argv, .np = 4, ...};
//   LZ_ASSIGN_OR_RETURN(auto store, lz::snapshot::SnapshotStore::open(
//       lz::snapshot::snapshot_root(params), job, lz::snapshot::store_options(params)));
//   LZ_ASSIGN_OR_RETURN(auto snap, store.begin(store.next_seq()));
//   for (int r = 0; r < 4; ++r) { LZ_ASSIGN_OR_RETURN(auto d, snap.rank_dir(r)); send_checkpoint(r, d); }
//   if (!all_ranks_ok) return store.abort(snap);
//   LZ_ASSIGN_OR_RETURN(auto info, store.commit(snap, {.np = 4, .cr = "criu", .crcp = "bkmrk"}));
//
// Restart side:
//
//   LZ_ASSIGN_OR_RETURN(auto store, lz::snapshot::SnapshotStore::open_existing(user_path));
//   std::vector<std::string> skipped;
//   auto snap = store.requested_seq() ? store.info(*store.requested_seq()) : store.newest_valid(&skipped);
//   if (store.requested_seq() && snap.ok()) LZ_RETURN_IF_ERROR(store.verify(snap->seq));
//   for (auto& why : skipped) fprintf(stderr, "skipping %s\n", why.c_str());
//
// Errors: kDataLoss for a damaged snapshot or metadata file (the message names
// the file and what is wrong), kNotFound for a missing snapshot or directory,
// kUnavailable when another process holds the job directory, kInvalidArgument
// for a bad name or sequence number, kIo for failing system calls.
// Not thread-safe: one thread drives a store.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lazarus/status.h"
#include "lazarus/unique_fd.h"
#include "snapshot/commit_record.h"
#include "snapshot/manifest.h"
#include "snapshot/pending_snapshot.h"
#include "snapshot/progress.h"

namespace lz::snapshot {

struct StoreOptions {
  int64_t keep = 2;                              // cr_keep; <= 0 keeps every snapshot
  Progress::Mode progress = Progress::Mode::kAuto;  // commit/verify progress line
  FILE* progress_out = nullptr;                  // null: stderr
};

class SnapshotStore {
 public:
  // Opens (creating if needed) <root>/<job.name>.<job.id> for writing, takes
  // its lock, removes leftovers of interrupted checkpoints and writes the
  // manifest. Missing directories of `root` are created 0700.
  static StatusOr<SnapshotStore> open(const std::string& root, const JobRecord& job, StoreOptions options = {});
  // Opens an existing job directory, or a snapshot directory inside one
  // (<job dir>/<seq>, then requested_seq() is set). Reads the manifest.
  static StatusOr<SnapshotStore> open_existing(const std::string& path, StoreOptions options = {});

  SnapshotStore(SnapshotStore&&) noexcept = default;
  SnapshotStore& operator=(SnapshotStore&&) noexcept = default;
  ~SnapshotStore() = default;

  const std::string& dir() const { return dir_; }
  const JobRecord& job() const { return job_; }
  // False when another process holds the job directory.
  bool writable() const { return lock_.valid(); }
  // The snapshot named by open_existing(<job dir>/<seq>).
  std::optional<uint64_t> requested_seq() const { return requested_seq_; }
  std::string snapshot_dir(uint64_t seq) const;

  // One more than the largest sequence number present (1 for an empty store).
  uint64_t next_seq() const;
  // Starts snapshot `seq` (must be larger than every existing one).
  StatusOr<PendingSnapshot> begin(uint64_t seq);
  // Commits `snap` (see the banner); on success `snap` is no longer pending.
  // On failure nothing was committed and `snap` is still pending (abort it or
  // let it go out of scope).
  StatusOr<SnapshotInfo> commit(PendingSnapshot& snap, const SnapshotMeta& meta);
  // Removes the partial directory.
  Status abort(PendingSnapshot& snap);

  // Committed snapshots, newest first. A snapshot directory whose COMMITTED is
  // missing or unreadable is left out; `problems` (optional) says which and why.
  StatusOr<std::vector<SnapshotInfo>> list(std::vector<std::string>* problems = nullptr) const;
  // The COMMITTED metadata of one snapshot (no file is read but COMMITTED).
  StatusOr<SnapshotInfo> info(uint64_t seq) const;
  // Re-reads every file listed in COMMITTED and checks size and checksum, and
  // that no unlisted file is present. kDataLoss names every damaged file.
  // The snapshots `seq` depends on are verified too (each once): "snapshot 7
  // depends on snapshot 3, which is damaged: ...".
  Status verify(uint64_t seq) const;
  // The newest snapshot that verifies; older ones are tried when newer ones do
  // not, and `skipped` (optional) gets one line per snapshot passed over.
  StatusOr<SnapshotInfo> newest_valid(std::vector<std::string>* skipped = nullptr) const;
  // Rewrites manifest.yaml from the committed snapshots.
  Status write_manifest() const;

 private:
  SnapshotStore() = default;
  Status take_lock(bool must);
  void remove_stale();
  Status prune(uint64_t just_committed);
  // The checked union of the DEPENDS files of the pending snapshot `seq` in
  // `root` (`files`: every file below it), sorted.
  StatusOr<std::vector<uint64_t>> pending_depends(const std::string& root, uint64_t seq,
                                                  const std::vector<std::string>& files) const;
  // verify_files() of one snapshot, remembered so that newest_valid() reads a
  // snapshot that several others depend on once.
  struct Verified {
    Status status;
    std::vector<uint64_t> depends;
  };
  using VerifyCache = std::map<uint64_t, Verified>;
  // The files of `seq` alone; `depends` gets its dependencies.
  Status verify_files(uint64_t seq, std::vector<uint64_t>* depends) const;
  const Verified& verify_cached(uint64_t seq, VerifyCache& cache) const;
  // verify(), with results kept in `cache`.
  Status verify_with_depends(uint64_t seq, VerifyCache& cache) const;
  // Numeric entries of the job directory (any state), descending.
  StatusOr<std::vector<uint64_t>> numeric_dirs() const;

  std::string dir_;
  JobRecord job_;
  StoreOptions options_;
  UniqueFd lock_;
  std::optional<uint64_t> requested_seq_;
};

}  // namespace lz::snapshot
