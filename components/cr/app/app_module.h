// AppModule: the cr/app back end (cr_app_component.cpp has the overview).
//
// Files: <snapshot>/rank.<r>/rank.<r>.lzck, one per rank (runtime/appfmt:
// portable, checksummed, zero blocks left out, optionally zstd). A
// decomposed array's record holds only the rank's owned block, with the
// decomposition, so another rank count can find every element.
#pragma once

#include "lazarus/frameworks/cr.h"

namespace lz::cr::app {

struct AppConfig {
  bool compress = false;  // cr_app_compress zstd
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
  AppConfig config_;
};

}  // namespace lz::cr::app
