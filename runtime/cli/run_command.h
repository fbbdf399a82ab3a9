// `lazarus run` (also `mpirun` / `mpiexec`: the same executable answers to
// those names): parses the launcher's command line and hands it to
// lz::launcher::run_launcher().
//
// The command line is split at the program: options before it belong to the
// launcher, everything from the program on belongs to the program. Open MPI's
// single-dash spellings (-np, -host, -hostfile, -mca, ...) are accepted.
#pragma once

#include <CLI/CLI.hpp>

namespace lz::cli {

// True when argv asks for the launcher: invoked as mpirun/mpiexec, or with
// "run" as the first argument.
bool is_run_invocation(int argc, char** argv);
// Runs the launcher for such an invocation; returns the exit status.
int run_main(int argc, char** argv);
// Lists `run` among the subcommands of `lazarus --help` (the invocation
// itself goes through run_main, which understands mpirun's spellings).
void add_run_command(CLI::App& app);

}  // namespace lz::cli
