#include "launcher/local_rank_mover.h"

#include "launcher/host_list.h"
#include "launcher/restore_starter.h"

namespace lz::launcher {

Status LocalRankMover::can_restore_on(const std::string& host) const {
  if (is_local_host(host)) return Status::Ok();
  return Unimplemented("host '" + host +
                       "' is not this host; restoring a moved rank on another host needs that host's helper, "
                       "which this launcher cannot use yet");
}

StatusOr<StartedRank> LocalRankMover::restore(const RankSpec& spec, const std::string& images_dir) {
  LZ_RETURN_IF_ERROR(can_restore_on(spec.host));
  // The restart starter does exactly this for a whole job; a migration is
  // the same restore of one rank into the running job (seq 0: no snapshot).
  RestoreStarter one(cr_, images_dir, 0);
  return one.start(spec);
}

}  // namespace lz::launcher
