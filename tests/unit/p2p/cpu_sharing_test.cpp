// Whether a rank shares its CPUs with more ranks than they have: the rule
// that decides if a spinning wait yields (runtime/p2p/cpu_sharing.h).
#include "p2p/cpu_sharing.h"

#include <gtest/gtest.h>

namespace lz::rt {
namespace {

using Lists = std::vector<std::vector<int>>;

TEST(CpuSharing, RanksBoundToTheirOwnCoresDoNotYield) {
  // The case of issue 12: 2 ranks bound to cores 0 and 1 each see one CPU.
  Lists local = {{0}, {1}};
  EXPECT_FALSE(shares_cpus_with_more_ranks(local, 0));
  EXPECT_FALSE(shares_cpus_with_more_ranks(local, 1));
}

TEST(CpuSharing, UnboundRanksYieldOnlyWhenTheyOutnumberTheCpus) {
  EXPECT_FALSE(shares_cpus_with_more_ranks({{0, 1}, {0, 1}}, 0));
  Lists four = {{0, 1}, {0, 1}, {0, 1}, {0, 1}};
  for (size_t i = 0; i < four.size(); ++i) EXPECT_TRUE(shares_cpus_with_more_ranks(four, i)) << i;
}

TEST(CpuSharing, RanksBoundToTheSameCoreYield) {
  EXPECT_TRUE(shares_cpus_with_more_ranks({{0}, {0}}, 0));
  EXPECT_TRUE(shares_cpus_with_more_ranks({{0}, {0}}, 1));
}

TEST(CpuSharing, OnlyTheRanksThatOverlapCount) {
  // Ranks 0 and 1 share core 0; rank 2 and 3 have a core each.
  Lists local = {{0}, {0}, {1}, {2}};
  EXPECT_TRUE(shares_cpus_with_more_ranks(local, 0));
  EXPECT_TRUE(shares_cpus_with_more_ranks(local, 1));
  EXPECT_FALSE(shares_cpus_with_more_ranks(local, 2));
  EXPECT_FALSE(shares_cpus_with_more_ranks(local, 3));
  // A rank on a whole socket {0,1} with two single-core ranks inside it.
  Lists socket = {{0, 1}, {0}, {1}};
  EXPECT_TRUE(shares_cpus_with_more_ranks(socket, 0));   // 3 ranks on 2 CPUs
  EXPECT_FALSE(shares_cpus_with_more_ranks(socket, 1));  // itself and the socket rank on {0,1}
}

TEST(CpuSharing, AlonePerHostNeverYields) {
  EXPECT_FALSE(shares_cpus_with_more_ranks({{3}}, 0));
  EXPECT_FALSE(shares_cpus_with_more_ranks({}, 0));
}

}  // namespace
}  // namespace lz::rt
