// run_restart(): `lazarus restart <snapshot dir | job store dir>` after the
// command line is parsed, and recover_job(), the `--recover auto` path of
// `lazarus run`, which is the same restart from the newest valid snapshot.
//
// A restart verifies the snapshot (a damaged file is refused, naming it; from
// a job store directory the newest snapshot that verifies is used and the
// ones passed over are named), reads the manifest, and runs a new Job whose
// RestoreStarter restores every rank through the snapshot's cr module, in a
// fresh PID namespace (pid_namespace.h) so the ranks' original pids are free.
// The restored job writes its next snapshots to the same store.
//
// With --host/--hostfile naming other hosts (or a manifest that recorded
// them), each rank comes back on the host the placement gives it, as `lazarus
// run` places ranks: core images through that host's helper, which restores
// them in its own PID namespace (RemoteStarter::restore_from), application-
// level ranks by starting the program there. --recover auto leaves out the
// hosts whose helper was lost (RestartOptions::lost_hosts), re-maps the ranks
// onto the remaining slots (oversubscribing if it must) and says which rank
// moved where.
//
//   RestartOptions o;  o.path = "~/.lazarus/snapshots/solver.1a2b3c4d";
//   return run_restart(o);
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "launcher/host_list.h"
#include "launcher/job_spec.h"

namespace lz::launcher {

struct RestartOptions {
  std::string path;                                      // snapshot dir or job store dir
  std::vector<std::string> hosts;                        // --host (default: the manifest's hosts)
  int np = 0;                                            // -np (0: the snapshot's)
  std::string hostfile;
  std::vector<std::pair<std::string, std::string>> mca;  // over the manifest's parameters
  std::vector<std::string> config_files;
  double timeout = 0;
  bool tag_output = false;
  // The original job's output settings under --recover auto (tag_output
  // is then output.tag); a `lazarus restart` of its own sets tag_output only.
  std::optional<OutputSpec> output;
  double checkpoint_interval = 0;
  bool recover = false;  // --recover auto for the restored job
  int max_restarts = 3;
  int restarts_done = 0;
  bool new_pid_namespace = true;  // false: restore in this namespace (pids must be free)
  // Hosts that are gone (their helper died or became unreachable): left out
  // of the host list, their ranks re-mapped onto the other hosts' slots.
  std::vector<std::string> lost_hosts;
  std::vector<std::string> command_line;
  std::string who = "lazarus restart";  // prefix of messages
};

int run_restart(const RestartOptions& options);

// The hosts of `hosts` without those named in `lost` (by their name in the
// list); the ranks that were on `old_hosts` (index: rank) and are not on the
// same host in `placement` are described in *moves ("rank 2 h1 -> h0"), and
// *oversubscribed tells whether the ranks outnumber the remaining slots.
std::vector<HostEntry> without_lost_hosts(const std::vector<HostEntry>& hosts, const std::vector<std::string>& lost);
std::string describe_moves(const std::vector<std::string>& old_hosts, const std::vector<Placement>& placement);

// After a job ended because a rank died (`death`, e.g. "rank 2 died (signal
// 9)") with exit status `rc`: restart it from the newest valid snapshot in
// `store_dir`, up to options.max_restarts times, saying so on stderr. Without
// a snapshot, says so and returns rc.
int recover_job(const std::string& store_dir, const std::string& death, int rc, RestartOptions options);

}  // namespace lz::launcher
