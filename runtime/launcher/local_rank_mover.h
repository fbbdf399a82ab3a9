// LocalRankMover: the RankMover for this host. It restores the rank's image
// with the launcher's cr module (cr::Module::restore, kCapRestore) in the
// launcher's own PID namespace: the image's pid is free again once the
// moving rank has ended (CRIU restores a process under its original pid),
// and the restored process is reparented to the launcher (a subreaper), so
// the Job reaps it as it reaped the original.
#pragma once

#include "launcher/rank_mover.h"
#include "lazarus/frameworks/cr.h"

namespace lz::launcher {

class LocalRankMover final : public RankMover {
 public:
  explicit LocalRankMover(cr::Module& cr) : cr_(cr) {}
  Status can_restore_on(const std::string& host) const override;
  StatusOr<StartedRank> restore(const RankSpec& spec, const std::string& images_dir) override;

 private:
  cr::Module& cr_;
};

}  // namespace lz::launcher
