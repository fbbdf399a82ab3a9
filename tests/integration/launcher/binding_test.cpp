// `lazarus run --bind-to core|socket|none` as ranks see it (their
// Cpus_allowed_list), and what the p2p engine concludes from it: whether a
// spinning wait yields its CPU (issue 12: bound ranks used to yield on every
// spin), and whether it gives a sole transport (ucx) its turns alone. Bounds on waiting only guard against hangs; nothing measures time.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "job_runner.h"
#include "launcher/binding.h"
#include "lazarus/cpu_list.h"

namespace lz::test {
namespace {

const std::string kLazarus = LZ_TEST_LAZARUS_BIN;
const std::string kRing = LZ_TEST_MPI_RING;
constexpr double kBound = 180;

// Each rank prints "rank R cpus LIST" from its own /proc status.
const std::vector<std::string> kShowCpus = {
    "/bin/sh", "-c", "echo \"rank $LZ_RANK cpus $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)\""};

class BindingTest : public ::testing::Test {
 protected:
  TempDir home_;
  TempDir runtime_;

  void SetUp() override {
    auto t = launcher::local_cpu_topology();
    ASSERT_TRUE(t.ok()) << t.status().message();
    cores_ = static_cast<int>(t->cores.size());
  }

  JobResult run(std::vector<std::string> args, const std::vector<std::string>& prefix = {}) {
    std::vector<std::string> argv = prefix;
    argv.push_back(kLazarus);
    argv.push_back("run");
    argv.insert(argv.end(), args.begin(), args.end());
    JobRunner job(argv, launcher_env(home_.path(), runtime_.path()));
    JobResult r = job.wait(kBound);
    EXPECT_FALSE(r.hung) << "job hung; stderr:\n" << r.err;
    return r;
  }

  // rank -> its CPUs, from kShowCpus output.
  static std::map<int, std::vector<int>> cpus_by_rank(const std::string& out) {
    std::map<int, std::vector<int>> m;
    std::regex line(R"(rank (\d+) cpus (\S+))");
    for (std::sregex_iterator it(out.begin(), out.end(), line), end; it != end; ++it) {
      auto cpus = parse_cpu_list((*it)[2].str());
      EXPECT_TRUE(cpus.ok()) << cpus.status().message();
      if (cpus.ok()) m[std::stoi((*it)[1].str())] = *cpus;
    }
    return m;
  }

  // Every rank of 0..n-1 reported, each on CPUs this process may use, no
  // CPU in two ranks' lists.
  static void expect_disjoint(const std::map<int, std::vector<int>>& m, int n) {
    ASSERT_EQ(static_cast<int>(m.size()), n);
    std::vector<int> mine = own_cpus();
    std::set<int> allowed(mine.begin(), mine.end()), seen;
    for (const auto& [rank, cpus] : m) {
      EXPECT_FALSE(cpus.empty()) << "rank " << rank;
      for (int c : cpus) {
        EXPECT_EQ(allowed.count(c), 1u) << "rank " << rank << " on CPU " << c << " outside " << format_cpu_list(mine);
        EXPECT_TRUE(seen.insert(c).second) << "CPU " << c << " given to two ranks";
      }
    }
  }

  // A job of one rank per core with `options` and --report-bindings: each
  // rank on CPUs of its own, the ones the launcher reported.
  void expect_a_core_each_as_reported(std::vector<std::string> options) {
    std::vector<std::string> args = std::move(options);
    for (const std::string& a : {std::string("--report-bindings"), std::string("-np"), std::to_string(cores_)})
      args.push_back(a);
    args.insert(args.end(), kShowCpus.begin(), kShowCpus.end());
    JobResult r = run(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto m = cpus_by_rank(r.out);
    expect_disjoint(m, cores_);
    for (const auto& [rank, cpus] : m)
      EXPECT_NE(r.err.find("rank " + std::to_string(rank) + " bound to CPUs " + format_cpu_list(cpus)),
                std::string::npos)
          << r.err;
  }

  int cores_ = 0;
};

TEST_F(BindingTest, BindToCoreGivesEachRankItsOwnCoreAndReportsIt) {
  expect_a_core_each_as_reported({"--bind-to", "core"});
}

TEST_F(BindingTest, BindToNoneLeavesEveryRankTheLaunchersCpus) {
  std::vector<std::string> args = {"--bind-to", "none", "-np", "2"};
  args.insert(args.end(), kShowCpus.begin(), kShowCpus.end());
  JobResult r = run(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto m = cpus_by_rank(r.out);
  ASSERT_EQ(m.size(), 2u) << r.out;
  for (const auto& [rank, cpus] : m) EXPECT_EQ(cpus, own_cpus()) << "rank " << rank;
}

TEST_F(BindingTest, DefaultBindsWhileTheRanksFitTheCoresOnly) {
  std::vector<std::string> fit = {"-np", std::to_string(cores_)};
  fit.insert(fit.end(), kShowCpus.begin(), kShowCpus.end());
  JobResult r = run(fit);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_disjoint(cpus_by_rank(r.out), cores_);

  std::vector<std::string> over = {"-np", std::to_string(cores_ + 1)};
  over.insert(over.end(), kShowCpus.begin(), kShowCpus.end());
  r = run(over);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto m = cpus_by_rank(r.out);
  ASSERT_EQ(static_cast<int>(m.size()), cores_ + 1) << r.out;
  for (const auto& [rank, cpus] : m) EXPECT_EQ(cpus, own_cpus()) << "rank " << rank;
}

TEST_F(BindingTest, BindToCoreWithMoreRanksThanCoresIsRefused) {
  JobResult r = run({"--bind-to", "core", "-np", std::to_string(cores_ + 1), "/bin/true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--bind-to core: " + std::to_string(cores_ + 1) + " ranks on this host but only " +
                       std::to_string(cores_) + " cores"),
            std::string::npos)
      << r.err;
}

TEST_F(BindingTest, MapBySocketStillGivesEachRankItsOwnCore) {
  // This machine's sockets taken in turn: whatever their number, every core
  // is used once and the ranks' real affinity is what was reported.
  expect_a_core_each_as_reported({"--map-by", "socket"});
}

TEST_F(BindingTest, AnUnknownMappingIsRefusedNamingIt) {
  JobResult r = run({"--map-by", "board", "-np", "1", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--map-by 'board'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("slot, node, core, socket, hwthread, numa, l3cache"), std::string::npos) << r.err;
}

TEST_F(BindingTest, AnUnknownBindingIsRefusedNamingIt) {
  JobResult r = run({"--bind-to", "cores", "-np", "1", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cores"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("core"), std::string::npos) << r.err;
}

// The engine's view, from its debug line: ranks bound to cores of their own
// spin without yielding; two ranks both held on one CPU yield.
TEST_F(BindingTest, BoundRanksDoNotYieldAndRanksSharingACpuDo) {
  if (cores_ < 2) GTEST_SKIP() << "needs 2 cores to bind 2 ranks apart; this machine gives the launcher " << cores_;
  JobResult r = run({"--bind-to", "core", "--mca", "log_level", "debug", "-np", "2", kRing});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::regex no_yield("rank [01] on CPUs \\S+: not oversubscribed");
  EXPECT_EQ(std::distance(std::sregex_iterator(r.err.begin(), r.err.end(), no_yield), std::sregex_iterator()), 2)
      << r.err;

  int cpu = own_cpus().front();
  r = run({"--bind-to", "none", "--mca", "log_level", "debug", "-np", "2", kRing},
          {"/usr/bin/taskset", "-c", std::to_string(cpu)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::regex yields("rank [01] on CPUs " + std::to_string(cpu) + ": shared with more ranks than CPUs");
  EXPECT_EQ(std::distance(std::sregex_iterator(r.err.begin(), r.err.end(), yields), std::sregex_iterator()), 2)
      << r.err;
}

// How a blocking wait spins over ucx on one host, from the debug lines: not
// oversubscribed, the engine gives ucx its turns alone
// (Module::progress_waiting, looks at the UCX worker between its own
// turns), and UCX's keepalive is off (the pidfds watch the peers, at once).
// Two ranks held on one CPU yield instead: no turn given alone.
TEST_F(BindingTest, UcxOnOneHostGetsTheWaitsTurnsAloneWithoutUcxKeepalive) {
#ifndef LZ_TEST_HAVE_UCX
  GTEST_SKIP() << "transport/ucx is not built (pkg-config finds no ucx)";
#else
  if (cores_ < 2) GTEST_SKIP() << "needs 2 cores to bind 2 ranks apart; this machine gives the launcher " << cores_;
  auto count = [](const std::string& text, const std::string& pattern) {
    std::regex re(pattern);
    return std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator());
  };
  const std::vector<std::string> ucx = {"--mca", "log_level", "debug", "--mca", "transport", "ucx,self", "-np", "2"};
  std::vector<std::string> args = {"--bind-to", "core"};
  args.insert(args.end(), ucx.begin(), ucx.end());
  args.push_back(kRing);
  JobResult r = run(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count(r.err, "rank [01]: blocking waits give ucx its turns alone"), 2) << r.err;
  EXPECT_EQ(count(r.err, "rank [01] opened a worker [^\n]*UCX's keepalive off: every peer is on this host"), 2)
      << r.err;

  args = {"--bind-to", "none"};
  args.insert(args.end(), ucx.begin(), ucx.end());
  args.push_back(kRing);
  r = run(args, {"/usr/bin/taskset", "-c", std::to_string(own_cpus().front())});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count(r.err, "rank [01] on CPUs \\S+: shared with more ranks than CPUs"), 2) << r.err;
  EXPECT_EQ(count(r.err, "blocking waits give"), 0) << r.err;
#endif
}

}  // namespace
}  // namespace lz::test
