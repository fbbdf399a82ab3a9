// How `lazarus run --bind-to` places ranks on a host's cores and sockets
// (runtime/launcher/binding.h), on made-up topologies and on this machine's.
#include "launcher/binding.h"

#include <gtest/gtest.h>

#include <set>

#include "lazarus/cpu_list.h"

namespace lz::launcher {
namespace {

// 2 sockets x 2 cores x 2 hardware threads: core k holds PUs k and k+4.
CpuTopology two_sockets() {
  CpuTopology t;
  t.cores = {{0, 4}, {1, 5}, {2, 6}, {3, 7}};
  t.sockets = {{0, 1, 4, 5}, {2, 3, 6, 7}};
  return t;
}

std::vector<Placement> on_this_host(int n) {
  std::vector<Placement> p(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) p[static_cast<size_t>(i)] = {"localhost", 0, i, n, {}};
  return p;
}

TEST(Binding, CoreGivesEachRankItsOwnCoreWithItsHardwareThreads) {
  auto p = on_this_host(3);
  ASSERT_TRUE(bind_ranks(BindTo::kCore, two_sockets(), p, {true, true, true}).ok());
  EXPECT_EQ(p[0].cpus, (std::vector<int>{0, 4}));
  EXPECT_EQ(p[1].cpus, (std::vector<int>{1, 5}));
  EXPECT_EQ(p[2].cpus, (std::vector<int>{2, 6}));
}

TEST(Binding, SocketGoesRoundRobinOverSockets) {
  auto p = on_this_host(3);
  ASSERT_TRUE(bind_ranks(BindTo::kSocket, two_sockets(), p, {true, true, true}).ok());
  EXPECT_EQ(p[0].cpus, (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(p[1].cpus, (std::vector<int>{2, 3, 6, 7}));
  EXPECT_EQ(p[2].cpus, (std::vector<int>{0, 1, 4, 5}));
}

TEST(Binding, DefaultBindsToCoresUntilTheRanksOutnumberThem) {
  auto four = on_this_host(4);
  ASSERT_TRUE(bind_ranks(BindTo::kDefault, two_sockets(), four, std::vector<bool>(4, true)).ok());
  for (size_t i = 0; i < four.size(); ++i) EXPECT_EQ(four[i].cpus, two_sockets().cores[i]) << i;
  auto five = on_this_host(5);
  ASSERT_TRUE(bind_ranks(BindTo::kDefault, two_sockets(), five, std::vector<bool>(5, true)).ok());
  for (const auto& pl : five) EXPECT_TRUE(pl.cpus.empty()) << format_cpu_list(pl.cpus);
}

TEST(Binding, CoreWithMoreRanksThanCoresIsRefusedNamingBothCounts) {
  auto p = on_this_host(5);
  Status s = bind_ranks(BindTo::kCore, two_sockets(), p, std::vector<bool>(5, true));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("5 ranks on this host but only 4 cores"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("--bind-to none"), std::string::npos) << s.message();
}

TEST(Binding, NoneAndRanksOfOtherHostsStayUnbound) {
  auto p = on_this_host(2);
  p[0].cpus = {3};  // a stale value is cleared
  ASSERT_TRUE(bind_ranks(BindTo::kNone, two_sockets(), p, {true, true}).ok());
  EXPECT_TRUE(p[0].cpus.empty());
  EXPECT_TRUE(p[1].cpus.empty());
  auto q = on_this_host(2);
  q[1].host = "elsewhere";
  q[1].local_rank = 0;
  ASSERT_TRUE(bind_ranks(BindTo::kCore, two_sockets(), q, {true, false}).ok());
  EXPECT_EQ(q[0].cpus, (std::vector<int>{0, 4}));
  EXPECT_TRUE(q[1].cpus.empty());
}

TEST(Binding, ParseNamesTheBadValueAndTheChoices) {
  EXPECT_EQ(*parse_bind_to("core"), BindTo::kCore);
  EXPECT_EQ(*parse_bind_to("socket"), BindTo::kSocket);
  EXPECT_EQ(*parse_bind_to("none"), BindTo::kNone);
  auto bad = parse_bind_to("cores");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'cores'"), std::string::npos);
  EXPECT_NE(bad.status().message().find("core, socket or none"), std::string::npos);
}

TEST(Binding, ThisMachinesTopologyCoversExactlyTheCpusThisProcessMayUse) {
  auto t = local_cpu_topology();
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_FALSE(t->cores.empty());
  ASSERT_FALSE(t->sockets.empty());
  std::vector<int> mine = own_cpus();
  std::set<int> in_cores, in_sockets;
  for (const auto& c : t->cores)
    for (int pu : c) EXPECT_TRUE(in_cores.insert(pu).second) << "PU " << pu << " in two cores";
  for (const auto& s : t->sockets) in_sockets.insert(s.begin(), s.end());
  EXPECT_EQ(std::vector<int>(in_cores.begin(), in_cores.end()), mine);
  EXPECT_EQ(std::vector<int>(in_sockets.begin(), in_sockets.end()), mine);
}

}  // namespace
}  // namespace lz::launcher
