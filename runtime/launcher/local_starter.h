// LocalStarter: starts ranks on this host with fork/exec. Each rank gets its
// own process group (so the launcher can signal a rank and its children),
// fresh stdout/stderr pipes, a default signal mask and dispositions, and the
// job secret through an inherited pipe named by LZ_SECRET_FD.
#pragma once

#include "launcher/rank_starter.h"

namespace lz::launcher {

class LocalStarter final : public RankStarter {
 public:
  Status can_start_on(const std::string& host) const override;
  StatusOr<StartedRank> start(const RankSpec& spec) override;
};

}  // namespace lz::launcher
