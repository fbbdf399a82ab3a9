// `lazarus helper`: the per-host helper of a multi-host job
// (launcher/helper.h). Internal: the launcher starts it over ssh; it is
// hidden from `lazarus --help`.
#pragma once

#include <CLI/CLI.hpp>

namespace lz::cli {

void add_helper_command(CLI::App& app, int& exit_code);

}  // namespace lz::cli
