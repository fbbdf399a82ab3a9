#include "launcher/rank_mover.h"

#include "launcher/local_rank_mover.h"
#include "launcher/remote_rank_mover.h"

namespace lz::launcher {

std::unique_ptr<RankMover> make_rank_mover(RankStarter& starter, cr::Module& cr, std::vector<std::string> params) {
  if (auto* remote = dynamic_cast<RemoteStarter*>(&starter); remote != nullptr)
    return std::make_unique<RemoteRankMover>(*remote, cr, std::move(params));
  return std::make_unique<LocalRankMover>(cr);
}

}  // namespace lz::launcher
