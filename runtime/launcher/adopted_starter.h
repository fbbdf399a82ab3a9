// AdoptedStarter: the RankStarter of a job whose ranks another process
// manager started (srun, mpiexec: `lazarus coordinate`, launcher/
// direct_coordinator.h). It starts nothing: start() gives back the rank's
// pid as the rank reported it. The coordinator is not their parent, so the
// Job learns of a rank's end from its OOB connection (adopted()); ranks on
// this host are signalled by pid, others through the OOB (ERROR) only,
// their process manager ending what remains.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "launcher/rank_starter.h"

namespace lz::launcher {

class AdoptedStarter final : public RankStarter {
 public:
  // pids[r]: rank r's process on its host; local[r]: that host is this one.
  AdoptedStarter(std::vector<pid_t> pids, std::vector<bool> local) : pids_(std::move(pids)), local_(std::move(local)) {}

  Status can_start_on(const std::string& host) const override {
    (void)host;
    return Status::Ok();
  }
  StatusOr<StartedRank> start(const RankSpec& spec) override;
  // The coordinator waits for none of them (they are not its children).
  bool is_remote(const std::string& host) const override {
    (void)host;
    return true;
  }
  void signal(int rank, pid_t pid, int sig) override;
  bool adopted() const override { return true; }

 private:
  std::vector<pid_t> pids_;
  std::vector<bool> local_;
};

}  // namespace lz::launcher
