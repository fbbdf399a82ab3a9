// run_launcher(): `lazarus run` / `mpirun` after the command line is parsed.
// Resolves the parameters (validating every --mca/--config/LZ_MCA_* name),
// places the ranks on the hosts, builds each rank's environment, picks the
// OOB listener address, and runs the Job. Returns the process exit status.
//
//   RunOptions o;  o.np = 4;  o.program = {"./ring"};
//   return run_launcher(o);
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lz::launcher {

struct RunOptions {
  int np = 0;                                // 0: one rank per slot
  std::vector<std::string> hosts;            // --host values, each "h1[:n],h2"
  std::string hostfile;
  std::vector<std::pair<std::string, std::string>> mca;
  std::vector<std::string> config_files;
  std::vector<std::string> exports;          // -x VAR[=value]
  bool oversubscribe = true;                 // default: allowed
  bool tag_output = false;
  double timeout = 0;
  std::vector<std::string> program;          // program and its arguments
  std::vector<std::string> command_line;     // the launcher's argv
};

int run_launcher(const RunOptions& options);

}  // namespace lz::launcher
