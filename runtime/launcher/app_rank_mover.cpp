#include "launcher/app_rank_mover.h"

namespace lz::launcher {

StatusOr<StartedRank> AppRankMover::restore(const RankSpec& spec, const std::string& images_dir) {
  RankSpec joining = spec;
  // A restarted job's ranks were given the snapshot they started from.
  std::erase_if(joining.env, [](const std::string& e) {
    return e.starts_with("LZ_CR_APP_RESTART=") || e.starts_with("LZ_CR_APP_JOIN=");
  });
  joining.env.push_back("LZ_CR_APP_RESTART=" + images_dir);
  joining.env.push_back("LZ_CR_APP_JOIN=1");
  return starter_.start(joining);
}

}  // namespace lz::launcher
