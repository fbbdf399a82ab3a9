// How the launcher reads a Slurm allocation from its environment
// (runtime/launcher/slurm_allocation.h): hostlist expressions and tasks per
// node as Slurm writes them, and the errors for what it never writes.
#include "launcher/slurm_allocation.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace lz::launcher {
namespace {

using Names = std::vector<std::string>;

TEST(SlurmHostlist, PlainNamesAndRanges) {
  EXPECT_EQ(*expand_hostlist("vm"), Names{"vm"});
  EXPECT_EQ(*expand_hostlist("a,b"), (Names{"a", "b"}));
  EXPECT_EQ(*expand_hostlist("lz6ecaa-h[0-1]"), (Names{"lz6ecaa-h0", "lz6ecaa-h1"}));
  EXPECT_EQ(*expand_hostlist("n[1-3,7]"), (Names{"n1", "n2", "n3", "n7"}));
  EXPECT_EQ(*expand_hostlist("gpu1,n[08-10],x"), (Names{"gpu1", "n08", "n09", "n10", "x"}));
}

TEST(SlurmHostlist, SuffixesAndSeveralBrackets) {
  EXPECT_EQ(*expand_hostlist("r[1-2]n[3,5]"), (Names{"r1n3", "r1n5", "r2n3", "r2n5"}));
  EXPECT_EQ(*expand_hostlist("n[1-2]-ib"), (Names{"n1-ib", "n2-ib"}));
}

TEST(SlurmHostlist, RefusesWhatSlurmNeverWrites) {
  for (const char* bad : {"n[1-3", "n1-3]", "n[]", "n[3-1]", "n[a-b]", "n[1-]", ""})
    EXPECT_EQ(expand_hostlist(bad).status().code(), Code::kInvalidArgument) << bad;
}

TEST(SlurmTasksPerNode, RunLengths) {
  EXPECT_EQ(*expand_tasks_per_node("4"), std::vector<int>{4});
  EXPECT_EQ(*expand_tasks_per_node("3,1"), (std::vector<int>{3, 1}));
  EXPECT_EQ(*expand_tasks_per_node("2(x3),1"), (std::vector<int>{2, 2, 2, 1}));
  for (const char* bad : {"", "0", "2(x)", "2(x3", "x", "2,,1"}) EXPECT_FALSE(expand_tasks_per_node(bad).ok()) << bad;
}

class SlurmEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : kVars) unsetenv(v);
  }
  void TearDown() override { SetUp(); }
  static constexpr const char* kVars[] = {"SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_NODELIST",
                                          "SLURM_TASKS_PER_NODE"};
};

TEST_F(SlurmEnv, OutsideAnAllocation) {
  EXPECT_FALSE(in_slurm_allocation());
  EXPECT_EQ(slurm_allocation_hosts().status().code(), Code::kUnavailable);
}

TEST_F(SlurmEnv, HostsWithTheirTasksAsSlots) {
  setenv("SLURM_JOB_ID", "12", 1);
  setenv("SLURM_JOB_NODELIST", "h[0-2]", 1);
  setenv("SLURM_TASKS_PER_NODE", "2(x2),1", 1);
  auto h = slurm_allocation_hosts();
  ASSERT_TRUE(h.ok()) << h.status().message();
  ASSERT_EQ(h->size(), 3u);
  EXPECT_EQ((*h)[0].name, "h0");
  EXPECT_EQ((*h)[0].slots, 2);
  EXPECT_EQ((*h)[2].name, "h2");
  EXPECT_EQ((*h)[2].slots, 1);
}

TEST_F(SlurmEnv, OlderNodelistNameAndNoTasks) {
  setenv("SLURM_JOB_ID", "12", 1);
  setenv("SLURM_NODELIST", "a,b", 1);
  auto h = slurm_allocation_hosts();
  ASSERT_TRUE(h.ok()) << h.status().message();
  ASSERT_EQ(h->size(), 2u);
  EXPECT_EQ((*h)[1].slots, 1);
}

TEST_F(SlurmEnv, ListsOfDifferentLengthsAreRefused) {
  setenv("SLURM_JOB_ID", "12", 1);
  setenv("SLURM_JOB_NODELIST", "h[0-2]", 1);
  setenv("SLURM_TASKS_PER_NODE", "2", 1);
  auto h = slurm_allocation_hosts();
  EXPECT_EQ(h.status().code(), Code::kInvalidArgument);
  EXPECT_NE(h.status().message().find("SLURM_TASKS_PER_NODE"), std::string::npos) << h.status().message();
  unsetenv("SLURM_JOB_NODELIST");
  EXPECT_EQ(slurm_allocation_hosts().status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace lz::launcher
