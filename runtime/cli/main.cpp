// `lazarus`: the command-line front end (info, run, ps, checkpoint, restart,
// snapshot, conformance).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "conformance_command.h"
#include "coordinate_command.h"
#include "cr_commands.h"
#include "helper_command.h"
#include "info_command.h"
#include "run_command.h"
#include "snapshot_command.h"
#include "lazarus/userns/job_namespace.h"

int main(int argc, char** argv) {
  // It starts jobs: a cr=criu job of an ordinary user runs in a user namespace it makes.
  lz::userns::allow_entry();
  if (lz::cli::is_run_invocation(argc, argv)) return lz::cli::run_main(argc, argv);
  CLI::App app{"Lazarus " LZ_VERSION ": a fault-tolerant MPI-like runtime (checkpoint, restart, migrate)", "lazarus"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "lazarus " LZ_VERSION);
  int exit_code = 0;
  lz::cli::add_info_command(app, exit_code);
  lz::cli::add_run_command(app);
  lz::cli::add_cr_commands(app, exit_code);
  lz::cli::add_snapshot_command(app, exit_code);
  lz::cli::add_conformance_command(app, exit_code);
  lz::cli::add_helper_command(app, exit_code);
  lz::cli::add_coordinate_command(app, exit_code);
  // mpirun's spelling `-np M` (CLI11 takes one-letter short options only).
  std::vector<std::string> args(argv + 1, argv + argc);
  for (auto& a : args)
    if (a == "-np") a = "--np";
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return exit_code;
}
