// JobRunner: starts a launcher (or any program) in the background with its
// stdout/stderr going to files, so a test can act while the job runs (read
// the job registry, connect to the OOB port), then waits for it with a
// generous bound that only guards against hangs.
//
//   JobRunner job({bin, "run", "-np", "2", prog}, env);
//   ...
//   JobResult r = job.wait(120);
//   EXPECT_EQ(r.exit_code, 0) << r.err;
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "temp_dir.h"

namespace lz::test {

struct JobResult {
  int exit_code = -1;  // exit status, or 128 + signal
  bool hung = false;   // did not end within the bound (then killed)
  std::string out;
  std::string err;
};

class JobRunner {
 public:
  JobRunner(const std::vector<std::string>& argv, const std::vector<std::string>& env);
  ~JobRunner();
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;

  pid_t pid() const { return pid_; }
  // Output so far.
  std::string out() const;
  std::string err() const;
  void signal(int sig) const;
  JobResult wait(double max_seconds);

 private:
  pid_t pid_ = -1;
  TempDir dir_;  // the job's stdout and stderr files
  bool done_ = false;
};

// The environment minus LZ_* and user configuration, plus HOME=<home> and
// XDG_RUNTIME_DIR=<runtime_dir> (the job registry goes there).
std::vector<std::string> launcher_env(const std::string& home, const std::string& runtime_dir);

}  // namespace lz::test
