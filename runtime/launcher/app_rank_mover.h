// AppRankMover: the RankMover of a cr=app job. A moving rank leaves no
// process image: at the negotiated safe point it writes its registered
// variables and its hand-over (cr/app_handover.h) into
// `images_dir`/rank.<rank> and ends. "Restoring" it starts the program
// afresh, through the job's own starter (this host, or another host's
// helper), as the same rank with LZ_CR_APP_RESTART=`images_dir` and
// LZ_CR_APP_JOIN=1: its MPI_Init joins the running job in that rank's place
// (runtime/cr/app_service.h) and its LZ_Restore loads what the old process
// wrote. Nothing is restored by pid, so no PID namespace is needed.
#pragma once

#include "launcher/rank_mover.h"

namespace lz::launcher {

class AppRankMover final : public RankMover {
 public:
  explicit AppRankMover(RankStarter& starter) : starter_(starter) {}
  Status can_restore_on(const std::string& host) const override { return starter_.can_start_on(host); }
  StatusOr<StartedRank> restore(const RankSpec& spec, const std::string& images_dir) override;
  bool is_remote(const std::string& host) const override { return starter_.is_remote(host); }

 private:
  RankStarter& starter_;
};

}  // namespace lz::launcher
