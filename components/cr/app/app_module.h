// AppModule: the cr/app back end (cr_app_component.cpp has the overview).
//
// Files: <snapshot>/rank.<r>/rank.<r>.lzck, one per rank (runtime/appfmt:
// portable, checksummed, zero blocks left out, optionally zstd). A
// decomposed array's record holds only the rank's owned block, with the
// decomposition, so another rank count can find every element.
//
// Incremental (cr_incremental on, FTI's differential checkpoint): the module
// keeps, per variable, the hash of every block it wrote last and which
// snapshot holds each 4 KiB block's bytes. A block whose hash has not
// changed is left to that snapshot's file when it is committed (its
// COMMITTED exists), and the rank directory's DEPENDS lists the snapshots so
// referred to, for the store to keep and verify them. Snapshots 1, K + 1,
// 2K + 1, ... (K = cr_full_every), the first after a restart (a new process
// knows no hashes), a variable whose type or shape changed and a
// migration's hand-over are written in full.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "lazarus/appfmt/variable.h"
#include "lazarus/appfmt/writer.h"
#include "lazarus/frameworks/cr.h"

namespace lz::cr::app {

struct AppConfig {
  bool compress = false;                            // cr_app_compress zstd
  bool incremental = false;                         // cr_incremental on
  int64_t full_every = 8;                           // cr_full_every
  uint64_t incremental_block = appfmt::kBlockSize;  // cr_app_incremental_block
};

// "<snapshot_dir>/rank.<r>/rank.<r>.lzck"
std::string rank_file(const std::string& snapshot_dir, int rank);

class AppModule final : public Module {
 public:
  explicit AppModule(AppConfig c) : config_(c) {}
  uint64_t capabilities() const override { return kCapAppLevel | kCapPortable | kCapChangeRanks; }
  Status init() override { return Status::Ok(); }
  // A core-image checkpoint of the process: not what this back end does.
  StatusOr<Outcome> checkpoint(const LocalSnapshot& snap) override;
  StatusOr<uint64_t> save_variables(const AppSave& save) override;
  StatusOr<AppSnapshotInfo> describe_snapshot(const std::string& snapshot_dir) override;
  Status load_variables(const AppLoad& load) override;
  Status finalize() override { return Status::Ok(); }

 private:
  // What this rank wrote last of one variable.
  struct Prior {
    appfmt::Variable desc;                  // name, type, count, decomposition
    std::vector<appfmt::BlockHash> hashes;  // per incremental_block
    std::vector<uint64_t> origin;           // per 4 KiB block: the snapshot holding its bytes
  };
  // The job directory and snapshot number of an incremental save into
  // <job dir>/<seq>.partial/rank.<r> ("" when `save` is not one).
  std::string job_dir_of(const AppSave& save) const;
  // What one save has learnt of older snapshots, across its variables.
  struct SaveBases {
    std::map<uint64_t, uint32_t> number;  // snapshot -> base number in the file being written
    std::map<uint64_t, bool> committed;   // snapshot -> its COMMITTED exists
  };
  // Per 4 KiB block of `packed`: -1 (write it) or the base of `w` that holds
  // it; fills `next` with this save's record of the variable.
  std::vector<int32_t> unchanged_blocks(const AppSave& save, const std::string& job_dir, appfmt::Writer& w,
                                        SaveBases& bases, const appfmt::Variable& rec, const char* packed,
                                        uint64_t bytes, Prior* next);

  AppConfig config_;
  std::map<std::string, Prior> prior_;  // by variable name
  std::string prior_dir_;               // the job directory prior_ refers to
};

}  // namespace lz::cr::app
