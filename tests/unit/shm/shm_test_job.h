// run_ranks: forks N processes ("ranks") that run the same test body, and
// acts as their barrier (the fence of the test modex) from the parent.
//
// Each rank talks to the parent over a socketpair: it writes 'F' to enter a
// barrier and reads 'G' (everyone arrived) or 'X' (a rank exited first: the
// barrier can never complete). A rank's exit code is 1 if its body recorded a
// gtest failure, kSkipExit if it asked to skip, else 0. The parent kills all
// ranks if they are not done after a generous watchdog (a hang guard, not a
// timing assertion).
//
//   auto st = run_ranks(2, [](RankEnv& env) { ... EXPECT_...; });
//   EXPECT_TRUE(all_ok(st));
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "lazarus/status.h"

namespace lz::test::shm {

inline constexpr int kSkipExit = 77;

struct RankEnv {
  int rank = 0;
  int size = 0;
  std::string dir;  // shared by all ranks of the job (modex files)
  int sock = -1;    // to the parent

  // Blocks until every rank entered; kAborted if a rank exited before.
  Status barrier() const;
};

struct RankOutcome {
  int rank = 0;
  int wait_status = 0;  // from waitpid
  bool exited_ok() const;
  bool skipped() const;
  std::string describe() const;
};

std::vector<RankOutcome> run_ranks(int n, const std::function<void(RankEnv&)>& body, int watchdog_seconds = 120);

}  // namespace lz::test::shm
