#include "launcher/remote_rank_mover.h"

#include <algorithm>

#include "lazarus/snapshot_layout.h"

namespace lz::launcher {

Status RemoteRankMover::can_restore_on(const std::string& host) const {
  if (!starter_.is_remote(host)) return local_.can_restore_on(host);
  const auto& hosts = starter_.remote_hosts();
  if (std::find(hosts.begin(), hosts.end(), host) == hosts.end())
    return Unimplemented("host '" + host + "' has no helper of this job (only hosts it was started on do)");
  return starter_.helper_usable(host);
}

StatusOr<StartedRank> RemoteRankMover::restore(const RankSpec& spec, const std::string& images_dir) {
  if (!starter_.is_remote(spec.host)) return local_.restore(spec, images_dir);
  LZ_RETURN_IF_ERROR(can_restore_on(spec.host));
  // seq 0: the images are no snapshot of the store.
  return starter_.restore(spec, snapshot_rank_dir(images_dir, spec.rank), 0, params_);
}

}  // namespace lz::launcher
