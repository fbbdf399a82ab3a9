// run_command: runs a program (fork/exec, no shell) with a controlled
// environment and captures stdout, stderr and the exit status separately.
//
//   lz::test::CommandResult r = lz::test::run_command({bin, "info", "--json"}, env);
//   EXPECT_EQ(r.exit_code, 0) << r.err;
#pragma once

#include <string>
#include <vector>

namespace lz::test {

struct CommandResult {
  int exit_code = -1;  // the exit status, or 128 + signal number when killed by a signal
  bool signaled = false;
  std::string out;
  std::string err;
};

// `argv[0]` is the program path. `env` is the complete environment ("NAME=value").
CommandResult run_command(const std::vector<std::string>& argv, const std::vector<std::string>& env);

// argv/envp for execve(): pointers into `v` (which must outlive them), then nullptr.
std::vector<char*> c_array(const std::vector<std::string>& v);

// The current environment minus every LZ_MCA_*, LZ_LOG_LEVEL, HOME and
// XDG_CONFIG_HOME entry, plus HOME=<home>: what a hermetic run of a Lazarus tool
// needs (no user configuration, no stray parameter settings).
std::vector<std::string> hermetic_env(const std::string& home);

}  // namespace lz::test
