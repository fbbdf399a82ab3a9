// RemoteRankMover: the RankMover of a job whose ranks run on several hosts
// (a RemoteStarter's job). A rank moving to another host is restored there
// by that host's helper (HELPER_RESTORE, RemoteStarter::restore): the helper
// runs as pid 1 of its own PID namespace, so the image's pid is free there,
// and each helper's own ranks start at a block of pids of its own (helper.cpp
// start_pids_apart), so a rank from another host does not find its pid taken.
// A rank moving to the launcher's host is restored as LocalRankMover does.
//
//   RemoteStarter starter(...);
//   starter.helpers_in_pid_namespace(true);          // before begin() (launch_helper_pid_namespace)
//   RemoteRankMover mover(starter, cr_module, {"cr=criu"});
//   job.set_mover(&mover);
#pragma once

#include <string>
#include <vector>

#include "launcher/local_rank_mover.h"
#include "launcher/remote_starter.h"

namespace lz::launcher {

class RemoteRankMover final : public RankMover {
 public:
  // `params` ("name=value") select the same cr module on the helpers' hosts.
  RemoteRankMover(RemoteStarter& starter, cr::Module& cr, std::vector<std::string> params)
      : starter_(starter), local_(cr), params_(std::move(params)) {}
  Status can_restore_on(const std::string& host) const override;
  StatusOr<StartedRank> restore(const RankSpec& spec, const std::string& images_dir) override;
  bool is_remote(const std::string& host) const override { return starter_.is_remote(host); }

 private:
  RemoteStarter& starter_;
  LocalRankMover local_;
  std::vector<std::string> params_;
};

}  // namespace lz::launcher
