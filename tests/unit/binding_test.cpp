// How `lazarus run --bind-to` and `--map-by` place ranks on hosts and on a
// host's cores and sockets (runtime/launcher/binding.h, host_list.h), on
// made-up topologies and on this machine's.
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
  ASSERT_TRUE(bind_ranks(BindTo::kCore, MapBy::kDefault, two_sockets(), p, {true, true, true}).ok());
  EXPECT_EQ(p[0].cpus, (std::vector<int>{0, 4}));
  EXPECT_EQ(p[1].cpus, (std::vector<int>{1, 5}));
  EXPECT_EQ(p[2].cpus, (std::vector<int>{2, 6}));
}

TEST(Binding, SocketGoesRoundRobinOverSockets) {
  auto p = on_this_host(3);
  ASSERT_TRUE(bind_ranks(BindTo::kSocket, MapBy::kDefault, two_sockets(), p, {true, true, true}).ok());
  EXPECT_EQ(p[0].cpus, (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(p[1].cpus, (std::vector<int>{2, 3, 6, 7}));
  EXPECT_EQ(p[2].cpus, (std::vector<int>{0, 1, 4, 5}));
}

TEST(Binding, DefaultBindsToCoresUntilTheRanksOutnumberThem) {
  auto four = on_this_host(4);
  ASSERT_TRUE(bind_ranks(BindTo::kDefault, MapBy::kDefault, two_sockets(), four, std::vector<bool>(4, true)).ok());
  for (size_t i = 0; i < four.size(); ++i) EXPECT_EQ(four[i].cpus, two_sockets().cores[i]) << i;
  auto five = on_this_host(5);
  ASSERT_TRUE(bind_ranks(BindTo::kDefault, MapBy::kDefault, two_sockets(), five, std::vector<bool>(5, true)).ok());
  for (const auto& pl : five) EXPECT_TRUE(pl.cpus.empty()) << format_cpu_list(pl.cpus);
}

TEST(Binding, CoreWithMoreRanksThanCoresIsRefusedNamingBothCounts) {
  auto p = on_this_host(5);
  Status s = bind_ranks(BindTo::kCore, MapBy::kDefault, two_sockets(), p, std::vector<bool>(5, true));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("5 ranks on this host but only 4 cores"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("--bind-to none"), std::string::npos) << s.message();
}

TEST(Binding, NoneAndRanksOfOtherHostsStayUnbound) {
  auto p = on_this_host(2);
  p[0].cpus = {3};  // a stale value is cleared
  ASSERT_TRUE(bind_ranks(BindTo::kNone, MapBy::kDefault, two_sockets(), p, {true, true}).ok());
  EXPECT_TRUE(p[0].cpus.empty());
  EXPECT_TRUE(p[1].cpus.empty());
  auto q = on_this_host(2);
  q[1].host = "elsewhere";
  q[1].local_rank = 0;
  ASSERT_TRUE(bind_ranks(BindTo::kCore, MapBy::kDefault, two_sockets(), q, {true, false}).ok());
  EXPECT_EQ(q[0].cpus, (std::vector<int>{0, 4}));
  EXPECT_TRUE(q[1].cpus.empty());
}

TEST(Binding, MapBySocketTakesTheSocketsInTurnForCoreBinding) {
  auto p = on_this_host(4);
  ASSERT_TRUE(bind_ranks(BindTo::kCore, MapBy::kSocket, two_sockets(), p, std::vector<bool>(4, true)).ok());
  EXPECT_EQ(p[0].cpus, (std::vector<int>{0, 4}));  // socket 0, its first core
  EXPECT_EQ(p[1].cpus, (std::vector<int>{2, 6}));  // socket 1, its first core
  EXPECT_EQ(p[2].cpus, (std::vector<int>{1, 5}));
  EXPECT_EQ(p[3].cpus, (std::vector<int>{3, 7}));
}

TEST(Binding, MapByCoreWithSocketBindingFillsOneSocketBeforeTheNext) {
  auto p = on_this_host(5);
  ASSERT_TRUE(bind_ranks(BindTo::kSocket, MapBy::kCore, two_sockets(), p, std::vector<bool>(5, true)).ok());
  const std::vector<int> s0{0, 1, 4, 5}, s1{2, 3, 6, 7};
  EXPECT_EQ(p[0].cpus, s0);
  EXPECT_EQ(p[1].cpus, s0);
  EXPECT_EQ(p[2].cpus, s1);
  EXPECT_EQ(p[3].cpus, s1);
  EXPECT_EQ(p[4].cpus, s0) << "mapped past the last core, a rank starts over from the first";
}

TEST(Binding, MapBySocketWithUnevenSocketsStillUsesEveryCoreOnce) {
  CpuTopology t;
  t.cores = {{0}, {1}, {2}};
  t.sockets = {{0, 1}, {2}};
  auto p = on_this_host(3);
  ASSERT_TRUE(bind_ranks(BindTo::kCore, MapBy::kSocket, t, p, std::vector<bool>(3, true)).ok());
  EXPECT_EQ(p[0].cpus, (std::vector<int>{0}));
  EXPECT_EQ(p[1].cpus, (std::vector<int>{2}));
  EXPECT_EQ(p[2].cpus, (std::vector<int>{1}));
}

TEST(Placement, MapByNodeGivesTheHostsOneRankEachInTurn) {
  std::vector<HostEntry> hosts{{"a", 2}, {"b", 3}};
  auto p = place_ranks(hosts, 4, false, MapBy::kNode);
  ASSERT_TRUE(p.ok()) << p.status().message();
  std::vector<std::string> got;
  for (const auto& pl : *p) got.push_back(pl.host);
  EXPECT_EQ(got, (std::vector<std::string>{"a", "b", "a", "b"}));
  EXPECT_EQ((*p)[2].local_rank, 1);
  EXPECT_EQ((*p)[3].local_rank, 1);
  // a is full: the fifth rank goes to b's last slot, then oversubscription goes round.
  auto q = place_ranks(hosts, 7, true, MapBy::kNode);
  ASSERT_TRUE(q.ok());
  got.clear();
  for (const auto& pl : *q) got.push_back(pl.host);
  EXPECT_EQ(got, (std::vector<std::string>{"a", "b", "a", "b", "b", "a", "b"}));
}

TEST(Placement, MapBySlotFillsEachHostFirst) {
  std::vector<HostEntry> hosts{{"a", 2}, {"b", 3}};
  for (MapBy m : {MapBy::kDefault, MapBy::kSlot, MapBy::kCore, MapBy::kSocket}) {
    auto p = place_ranks(hosts, 4, false, m);
    ASSERT_TRUE(p.ok());
    std::vector<std::string> got;
    for (const auto& pl : *p) got.push_back(pl.host);
    EXPECT_EQ(got, (std::vector<std::string>{"a", "a", "b", "b"}));
  }
  auto full = place_ranks(hosts, 6, false, MapBy::kNode);
  ASSERT_FALSE(full.ok());
  EXPECT_NE(full.status().message().find("5 slots"), std::string::npos) << full.status().message();
}

TEST(Placement, ParseMapByNamesTheBadValueAndTheChoices) {
  EXPECT_EQ(*parse_map_by("slot"), MapBy::kSlot);
  EXPECT_EQ(*parse_map_by("node"), MapBy::kNode);
  EXPECT_EQ(*parse_map_by("core"), MapBy::kCore);
  EXPECT_EQ(*parse_map_by("socket"), MapBy::kSocket);
  EXPECT_EQ(*parse_map_by("package"), MapBy::kSocket);
  EXPECT_EQ(*parse_map_by("hwthread"), MapBy::kHwthread);
  EXPECT_EQ(*parse_map_by("numa"), MapBy::kNuma);
  EXPECT_EQ(*parse_map_by("l3cache"), MapBy::kL3cache);
  auto bad = parse_map_by("board");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'board'"), std::string::npos);
  EXPECT_NE(bad.status().message().find("slot, node, core, socket, hwthread, numa, l3cache"), std::string::npos);
}

// 2 sockets x 2 cores x 2 threads, one NUMA node per socket, one L3 for all.
CpuTopology two_numas() {
  CpuTopology t = two_sockets();
  t.numas = t.sockets;
  t.l3s = {{0, 1, 2, 3, 4, 5, 6, 7}};
  return t;
}

TEST(Binding, HwthreadBindsOneThreadMappedByCoreOrByThread) {
  auto p = on_this_host(2);
  ASSERT_TRUE(bind_ranks(BindTo::kHwthread, MapBy::kDefault, two_numas(), p, {true, true}).ok());
  EXPECT_EQ(p[0].cpus, (std::vector<int>{0}));  // the first thread of core 0
  EXPECT_EQ(p[1].cpus, (std::vector<int>{1}));  // of core 1
  auto q = on_this_host(3);
  ASSERT_TRUE(bind_ranks(BindTo::kHwthread, MapBy::kHwthread, two_numas(), q, {true, true, true}).ok());
  EXPECT_EQ(q[0].cpus, (std::vector<int>{0}));
  EXPECT_EQ(q[1].cpus, (std::vector<int>{4}));  // core 0's second thread
  EXPECT_EQ(q[2].cpus, (std::vector<int>{1}));
}

TEST(Binding, NumaAndL3BindToTheGroupHoldingTheMappedCore) {
  auto p = on_this_host(2);
  ASSERT_TRUE(bind_ranks(BindTo::kNuma, MapBy::kDefault, two_numas(), p, {true, true}).ok());
  EXPECT_EQ(p[0].cpus, (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(p[1].cpus, (std::vector<int>{2, 3, 6, 7})) << "the default map deals NUMA nodes out in turn";
  auto q = on_this_host(1);
  ASSERT_TRUE(bind_ranks(BindTo::kL3cache, MapBy::kDefault, two_numas(), q, {true}).ok());
  EXPECT_EQ(q[0].cpus, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(Binding, PeGivesEachRankSeveralCoresInARow) {
  auto p = on_this_host(2);
  ASSERT_TRUE(bind_ranks(BindTo::kCore, MapBy::kCore, two_numas(), p, {true, true}, 2).ok());
  EXPECT_EQ(p[0].cpus, (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(p[1].cpus, (std::vector<int>{2, 3, 6, 7}));
  auto q = on_this_host(3);
  Status s = bind_ranks(BindTo::kCore, MapBy::kCore, two_numas(), q, {true, true, true}, 2);
  ASSERT_FALSE(s.ok()) << "3 ranks x 2 cores on 4 cores";
  EXPECT_NE(s.message().find("2 cores each (PE)"), std::string::npos) << s.message();
}

TEST(Binding, ParseNamesTheBadValueAndTheChoices) {
  EXPECT_EQ(*parse_bind_to("core"), BindTo::kCore);
  EXPECT_EQ(*parse_bind_to("socket"), BindTo::kSocket);
  EXPECT_EQ(*parse_bind_to("none"), BindTo::kNone);
  EXPECT_EQ(*parse_bind_to("hwthread"), BindTo::kHwthread);
  EXPECT_EQ(*parse_bind_to("numa"), BindTo::kNuma);
  EXPECT_EQ(*parse_bind_to("l3cache"), BindTo::kL3cache);
  auto bad = parse_bind_to("cores");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'cores'"), std::string::npos);
  EXPECT_NE(bad.status().message().find("core, socket, hwthread, numa, l3cache or none"), std::string::npos);
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
