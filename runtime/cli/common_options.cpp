#include "common_options.h"

#include <cstdio>

#include "lazarus/strings.h"

namespace lz::cli {

void CommonOptions::add_to(CLI::App& app) {
  app.add_option("--mca", mca, "Set parameter NAME to VALUE (highest precedence; repeatable)")
      ->type_name("NAME VALUE")
      ->allow_extra_args(false);
  app.add_option("--config", config_files, "Read parameters from this YAML file (repeatable)")
      ->type_name("FILE")
      ->check(CLI::ExistingFile);
}

ConfigOptions CommonOptions::config() const {
  ConfigOptions o;
  o.mca = mca;
  o.config_files = config_files;
  return o;
}

void print_error(const Status& s) {
  for (const auto& line : str::split(s.message(), '\n')) std::fprintf(stderr, "lazarus: error: %s\n", line.c_str());
}

}  // namespace lz::cli
