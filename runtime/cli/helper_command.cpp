#include "helper_command.h"

#include <memory>

#include "launcher/helper.h"

namespace lz::cli {

void add_helper_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<launcher::HelperOptions>();
  CLI::App* cmd = app.add_subcommand(
      "helper", "Internal: the per-host helper `lazarus run` starts over ssh (or srun) for ranks on other hosts");
  cmd->group("");  // hidden: never run by hand
  cmd->add_option("--job", o->job_id, "Job id")->required();
  cmd->add_option("--oob", o->oob_address, "The launcher's OOB address, host:port")->required();
  cmd->add_option("--index", o->index, "This host's index in the job")->check(CLI::NonNegativeNumber);
  cmd->add_option("--host", o->host, "This host's name in the job");
  cmd->add_option("--hosts", o->hosts,
                  "Under srun: the job's hosts in index order; the helper finds its own from SLURMD_NODENAME");
  cmd->add_flag("--pid-namespace", o->pid_namespace,
                "Run as pid 1 of a fresh PID namespace (a helper that restores core images)");
  cmd->add_option("--keepalive", o->keepalive,
                  "Seconds of silence from the launcher after which its ranks are killed (0: never)");
  cmd->callback([o, &exit_code] { exit_code = launcher::run_helper(*o); });
}

}  // namespace lz::cli
