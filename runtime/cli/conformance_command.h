// `lazarus conformance --component FILE.so | [FRAMEWORK/]NAME [--junit FILE]`:
// runs a framework's conformance suite against one component, a plugin file
// (loaded and checked as component_path loading does) or a component this
// Lazarus knows (built in, or a plugin on component_path).
//
// The suites are the in-tree ones (tests/conformance), the same binaries
// ctest runs, installed in <prefix>/libexec/lazarus/: the runner puts the
// plugin on component_path, runs the framework's binary with a gtest filter
// selecting that component's instances and XML output, then prints one line
// per case (case, result, reason of a skip or the first line of a failure),
// writes JUnit XML for a vendor's CI with --junit, and exits 0 when every
// case passed or was skipped, 1 when one failed or none ran, 2 on a usage
// error.
#pragma once

#include <CLI/CLI.hpp>

namespace lz::cli {

void add_conformance_command(CLI::App& app, int& exit_code);

}  // namespace lz::cli
