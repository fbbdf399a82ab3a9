#include "launcher/adopted_starter.h"

#include <signal.h>

namespace lz::launcher {

StatusOr<StartedRank> AdoptedStarter::start(const RankSpec& spec) {
  if (spec.rank < 0 || static_cast<size_t>(spec.rank) >= pids_.size())
    return InvalidArgument("rank " + std::to_string(spec.rank) + " has no pid: the job has " +
                           std::to_string(pids_.size()) + " ranks");
  StartedRank r;
  r.pid = pids_[static_cast<size_t>(spec.rank)];
  return r;
}

void AdoptedStarter::signal(int rank, pid_t pid, int sig) {
  // Not its process group: the rank leads none (its manager's step does).
  if (rank >= 0 && static_cast<size_t>(rank) < local_.size() && local_[static_cast<size_t>(rank)]) kill(pid, sig);
}

}  // namespace lz::launcher
