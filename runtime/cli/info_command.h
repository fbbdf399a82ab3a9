// `lazarus info`: frameworks, components (with the reason an unavailable one
// declines), parameters with current value, source and help; text or --json.
#pragma once

#include <CLI/CLI.hpp>

namespace lz::cli {

// Adds the subcommand; its callback sets `exit_code`.
void add_info_command(CLI::App& app, int& exit_code);

}  // namespace lz::cli
