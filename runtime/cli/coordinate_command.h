// `lazarus coordinate`: the coordinator of a job srun (or mpiexec) started
// with checkpointing on (launcher/direct_coordinator.h). Internal: rank 0
// starts it in MPI_Init; it is hidden from `lazarus --help`.
#pragma once

#include <CLI/CLI.hpp>

namespace lz::cli {

void add_coordinate_command(CLI::App& app, int& exit_code);

}  // namespace lz::cli
