#include "coordinate_command.h"

#include <memory>

#include "launcher/direct_coordinator.h"

namespace lz::cli {

void add_coordinate_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<launcher::CoordinatorOptions>();
  CLI::App* cmd = app.add_subcommand(
      "coordinate", "Internal: the coordinator rank 0 starts for a job srun started with checkpointing on");
  cmd->group("");  // hidden: never run by hand
  cmd->add_option("--job", o->job_id, "The ranks' job id")->required();
  cmd->add_option("--hosts", o->hosts, "Each rank's host, in rank order")->delimiter(',')->required();
  cmd->add_option("--nodes", o->nodes, "Each rank's node number (equal on one host)")->delimiter(',')->required();
  cmd->add_option("--pids", o->pids, "Each rank's pid on its host")->delimiter(',')->required();
  cmd->add_option("program", o->argv, "The program and its arguments, as rank 0 runs them")->required();
  cmd->callback([o, &exit_code] { exit_code = launcher::run_coordinator(*o); });
}

}  // namespace lz::cli
