// RankMover: how a running job brings one of its ranks back on a host from
// the core image that rank wrote when it left (`lazarus migrate`,
// `lazarus evacuate`). The Job calls it once the moving rank has ended and
// its image is complete; the restored process then reconnects to the same
// launcher as the same rank (oob/restart_info.h carries the job's identity).
//
// LocalRankMover restores on this host through the launcher's cr module
// (cr::Module::restore, as `lazarus restart` does). Restoring on another host
// goes through that host's helper (`lazarus helper`); an implementation of
// this interface for it takes the place of LocalRankMover without any change
// to the Job or the CheckpointCoordinator.
//
//   LocalRankMover mover(cr_module);
//   job.set_mover(&mover);
//   ...
//   LZ_RETURN_IF_ERROR(mover.can_restore_on("node2"));
//   LZ_ASSIGN_OR_RETURN(StartedRank r, mover.restore(spec, "/snap/.migrate.4f2a.1"));
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "launcher/rank_starter.h"
#include "lazarus/frameworks/cr.h"
#include "lazarus/status.h"

namespace lz::launcher {

class RankMover {
 public:
  virtual ~RankMover() = default;
  // Whether a rank can be restored on `host`; otherwise why not (the message
  // names the host). Cheap; called when a migration is requested.
  virtual Status can_restore_on(const std::string& host) const = 0;
  // Restores rank spec.rank from `images_dir`/rank.<rank> on spec.host, with
  // spec.env's LZ_JOB_ID and LZ_OOB_ADDR and spec.secret handed to it as its
  // restart information. Returns once the process runs (its pid and output
  // pipes, as RankStarter::start). kDataLoss while the image is not complete
  // yet (the dumping criu may still be finishing after the rank ended): the
  // caller may try again. Called on the job's event loop thread.
  virtual StatusOr<StartedRank> restore(const RankSpec& spec, const std::string& images_dir) = 0;
  // Whether a rank restored on `host` runs on another machine (then its exit
  // reaches the Job through its helper, as for RankStarter::is_remote).
  virtual bool is_remote(const std::string& host) const {
    (void)host;
    return false;
  }
};

// The mover for a job started by `starter`: a RemoteRankMover when it is a
// RemoteStarter (it restores on another host only where the helpers run in
// PID namespaces: launch_helper_pid_namespace), else a LocalRankMover. `cr` restores (it has
// kCapRestore) and outlives the mover; `params` ("name=value") select the
// same cr module on other hosts.
std::unique_ptr<RankMover> make_rank_mover(RankStarter& starter, cr::Module& cr, std::vector<std::string> params);

}  // namespace lz::launcher
