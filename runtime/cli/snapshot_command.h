// `lazarus snapshot show <dir|file> [--json]` and `lazarus snapshot verify
// <dir|file>`: the application-level snapshot files (rank.<N>.lzck, format
// in lazarus/appfmt/writer.h) of one snapshot, or every such file below a
// directory. show lists ranks, variables, types, shapes, decompositions,
// sizes and checksums; verify reads every variable and checks its checksum,
// exiting 1 with the file and the variable that fail.
#pragma once

#include <CLI/CLI.hpp>

namespace lz::cli {

// Adds the subcommand; its callbacks set `exit_code`.
void add_snapshot_command(CLI::App& app, int& exit_code);

}  // namespace lz::cli
