// run_launcher(): `lazarus run` / `mpirun` after the command line is parsed.
// Resolves the parameters (validating every --mca/--config/LZ_MCA_* name),
// places the ranks on the hosts, builds each rank's environment, picks the
// OOB listener address, and runs the Job. Returns the process exit status.
//
//   RunOptions o;  o.np = 4;  o.program = {"./ring"};
//   return run_launcher(o);
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "launcher/job_spec.h"
#include "lazarus/param_store.h"
#include "lazarus/status.h"

namespace lz {
class Registry;
class ParamStore;
}  // namespace lz

namespace lz::launcher {

struct RunOptions {
  int np = 0;                                // 0: one rank per slot
  std::vector<std::string> hosts;            // --host values, each "h1[:n],h2"
  std::string hostfile;
  std::vector<std::pair<std::string, std::string>> mca;
  std::vector<std::string> config_files;
  std::vector<std::string> exports;          // -x VAR[=value]
  bool oversubscribe = true;                 // default: allowed
  bool tag_output = false;
  double timeout = 0;
  std::vector<std::string> program;          // program and its arguments
  std::vector<std::string> command_line;     // the launcher's argv
  double checkpoint_interval = 0;            // seconds; 0: none
  bool recover = false;                      // --recover auto
  int max_restarts = 3;
  int restarts_done = 0;                     // --recover auto: restarts made so far, runs from the start included
  std::string bind_to;                       // --bind-to core|socket|none; empty: core when ranks <= cores
  std::string map_by;                        // --map-by slot|node|core|socket; empty: core (socket with --bind-to socket)
  bool report_bindings = false;              // --report-bindings
};

int run_launcher(const RunOptions& options);

// The ranks' environment: the launcher's (without job variables), the -x
// exports of `o`, and LZ_MCA_* for every parameter not at its default.
StatusOr<std::vector<std::string>> build_env(const RunOptions& o, const ParamStore& params);

// Pieces `lazarus restart` shares with `lazarus run` (launcher.cpp).
StatusOr<SockAddr> bind_address(const ParamStore& params);
std::string advertised_host(const SockAddr& bound, const std::vector<Placement>& placement);
// The OOB settings of a job spec from the parameters: kill grace, handshake
// timeout, bind address and the host ranks are told to reach (after
// spec.placement is set).
Status fill_oob_spec(const ParamStore& params, JobSpec& spec);
std::string new_job_id();
// The starter for a job with ranks on other hosts: a RemoteStarter with the
// launch_agent command and this executable as the helper.
class RankStarter;
StatusOr<std::unique_ptr<RankStarter>> remote_starter(const ParamStore& params);
// Whether the helpers are started with srun (the launcher parameter: slurm,
// or auto inside a Slurm allocation); kInvalidArgument for launcher=slurm
// outside one.
StatusOr<bool> use_slurm(const ParamStore& params);
// The starter of a job placed as `placement`, as the launcher parameter says:
// a RemoteStarter over srun (slurm), a LocalStarter when every rank is on
// this host, otherwise remote_starter() (ssh); launcher=local refuses
// another host.
StatusOr<std::unique_ptr<RankStarter>> make_starter(const ParamStore& params, const std::vector<Placement>& placement);
// The selected cr component's name ("none" when checkpointing is off); *why
// gets the reason when no cr component can be used here.
// `app_level` (optional) tells whether the selected module has kCapAppLevel.
std::string selected_cr(Registry& reg, std::string* why, bool* app_level = nullptr);
// Fills the checkpoint/restart fields of `spec` from the parameters.
void fill_cr_spec(Registry& reg, JobSpec& spec);

}  // namespace lz::launcher
