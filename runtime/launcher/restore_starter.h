// RestoreStarter: the RankStarter of `lazarus restart`. Instead of exec'ing
// the program it brings each rank back from its local snapshot through the
// selected cr module (cr::Module::restore), with fresh stdout/stderr pipes as
// for a fresh rank and a restart pipe carrying the new job's identity
// (oob/restart_info.h: job id, OOB address, secret, rank, snapshot seq) in
// place of the restart channel the rank held when it was saved. The restored
// rank then reconnect()s to this launcher (kAuthReconnect). What the restore
// did to the rank's files (truncated to their size at the checkpoint ...) is
// printed on stderr, "lazarus: rank <r>: <what>".
//
//   RestoreStarter starter(cr_module, "/snap/job.1a2b/3", 3);
//   Job job(spec, starter);   // spec.restored = true
#pragma once

#include <cstdint>
#include <string>

#include "launcher/rank_starter.h"
#include "lazarus/frameworks/cr.h"

namespace lz::launcher {

class RestoreStarter final : public RankStarter {
 public:
  // seq 0: the images of a migration (no snapshot); the rank's files are
  // then checked, not rolled back (cr::RestoreRequest::move).
  RestoreStarter(cr::Module& cr, std::string snapshot_dir, uint64_t seq)
      : cr_(cr), dir_(std::move(snapshot_dir)), seq_(seq) {}
  Status can_start_on(const std::string& host) const override;
  // spec.env must hold LZ_JOB_ID and LZ_OOB_ADDR (Job::rank_env does).
  StatusOr<StartedRank> start(const RankSpec& spec) override;

 private:
  cr::Module& cr_;
  std::string dir_;
  uint64_t seq_;
};

}  // namespace lz::launcher
