// run_launcher(): `lazarus run` / `mpirun` after the command line is parsed.
// Resolves the parameters (validating every --mca/--config/LZ_MCA_* name),
// places the ranks on the hosts, builds each rank's environment, picks the
// OOB listener address, and runs the Job. Returns the process exit status.
//
//   RunOptions o;  o.apps = {{.argv = {"./ring"}, .np = 4}};
//   return run_launcher(o);
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "launcher/app_context.h"
#include "launcher/job_spec.h"
#include "lazarus/param_store.h"
#include "lazarus/status.h"

namespace lz {
class Registry;
class ParamStore;
}  // namespace lz

namespace lz::launcher {

struct RunOptions {
  std::vector<std::string> hosts;            // --host values, each "h1[:n],h2"
  std::string hostfile;
  std::vector<std::pair<std::string, std::string>> mca;
  std::vector<std::string> config_files;
  std::vector<std::string> ompi_param_files;  // --am FILE: Open MPI "name = value" parameter files
  std::vector<std::string> exports;           // -genv VAR=value: every program's ranks
  EnvPolicy env = EnvPolicy::kAll;            // -genvnone / -genvlist
  std::vector<std::string> env_list;
  bool oversubscribe = true;                 // default: allowed
  bool oversubscribe_given = false;          // --oversubscribe or --nooversubscribe was given
  bool tag_output = false;
  bool timestamp_output = false;   // --timestamp-output
  bool prepend_rank = false;       // -prepend-rank: "[rank] " before each line
  bool merge_stderr = false;       // --merge-stderr-to-stdout
  std::string output_dir;          // --output-filename DIR[:nojobid,nocopy]: DIR/1/rank.N/std{out,err}
  std::string outfile_pattern;     // -outfile-pattern: %r rank, %h host, %g 0, %% percent
  std::string errfile_pattern;     // -errfile-pattern
  std::string stdin_target = "0";  // --stdin: a rank, "all" or "none"
  double timeout = 0;
  std::vector<AppContext> apps;              // the program(s), in rank order
  std::vector<std::string> command_line;     // the launcher's argv
  double checkpoint_interval = 0;            // seconds; 0: none
  bool recover = false;                      // --recover auto
  int max_restarts = 3;
  int restarts_done = 0;                     // --recover auto: restarts made so far, runs from the start included
  std::string bind_to;    // --bind-to core|socket|hwthread|numa|l3cache|none; empty: core when ranks <= cores
  std::string map_by;     // --map-by slot|node|core|socket|hwthread|numa|l3cache; empty: core
  std::string rank_by;    // --rank-by slot|node: rank order over the mapped slots
  int npernode = 0;       // -N, --npernode, -ppn, --map-by ppr:N:node
  int cpus_per_rank = 0;  // --map-by ...:PE=n: each rank bound to n cores
  bool nolocal = false;   // --nolocal: no rank on this host
  bool report_bindings = false;              // --report-bindings
  bool display_map = false;                  // --display-map: where each rank runs, before the job
  bool display_allocation = false;           // --display-allocation: the hosts and their slots
  std::vector<std::string> warnings;         // said once before the job starts (ignored options ...)
};

int run_launcher(const RunOptions& options);

// The ranks' environment: the launcher's (without job variables; with
// kNone only PATH, with kList only PATH and `keep`), then `exports` (VAR: its
// value here; VAR=value; a later one wins), and LZ_MCA_* for every parameter
// not at its default.
StatusOr<std::vector<std::string>> build_env(const std::vector<std::string>& exports, const ParamStore& params,
                                             EnvPolicy policy = EnvPolicy::kAll,
                                             const std::vector<std::string>& keep = {});

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
// Fills what the manifest records of the job beyond its programs: its name
// (the first program's base name), id, size and hosts (from the placement)
// and every parameter set by anything but its default.
void fill_job_record(const ParamStore& params, JobSpec& spec);

}  // namespace lz::launcher
