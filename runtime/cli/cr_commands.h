// The checkpoint/restart commands of `lazarus`:
//   lazarus ps [--ranks]                          running jobs (id, launcher pid, np, command, last snapshot)
//   lazarus migrate <job> --rank R[,R2] --to HOST  move ranks while the others go on
//   lazarus evacuate <job> --host HOST            move every rank off a host
//   lazarus checkpoint <job id | pid> [--term] [--wait]   (Open MPI's ompi-checkpoint)
//   lazarus restart <snapshot dir | job store dir> [--hostfile F] [--mca N V] [--timeout S]
//                                                 (ompi-restart)
// and the duration syntax shared with `lazarus run --checkpoint-interval`.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "lazarus/status.h"

namespace lz::cli {

// Adds ps, checkpoint, restart, migrate and evacuate; their callbacks set `exit_code`.
void add_cr_commands(CLI::App& app, int& exit_code);

// "30s", "2m", "500ms", "45" (seconds) -> seconds; an error naming `what` and the value.
StatusOr<double> parse_duration(const std::string& text, const std::string& what);

}  // namespace lz::cli
