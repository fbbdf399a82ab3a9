// Options every `lazarus` subcommand shares: --mca NAME VALUE (repeatable) and
// --config FILE (repeatable), turned into the registry's ConfigOptions.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <utility>
#include <vector>

#include "lazarus/registry.h"

namespace lz::cli {

struct CommonOptions {
  std::vector<std::pair<std::string, std::string>> mca;
  std::vector<std::string> config_files;

  void add_to(CLI::App& app);
  ConfigOptions config() const;
};

// Prints "lazarus: error: <message>" (one line per problem) to stderr.
void print_error(const Status& s);

}  // namespace lz::cli
