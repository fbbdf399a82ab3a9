// MPI_Dist_graph_create's edge distribution (runtime/p2p/dist_graph_edges.h):
// every process's edges routed, the exchange done by hand (process p
// receives what each q routed to p, q in rank order, as an alltoallv
// gives), each process's adjacency assembled, then checked against the
// edges given.
#include "p2p/dist_graph_edges.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

namespace lz::rt {
namespace {

// What one process passes to MPI_Dist_graph_create.
struct Given {
  std::vector<int> sources, degrees, destinations, weights;
};

std::vector<DistGraphAdjacency> run(const std::vector<Given>& given, bool weighted) {
  const int n = static_cast<int>(given.size());
  std::vector<EdgeRoutes> routes;
  for (const Given& g : given)
    routes.push_back(route_edges(n, static_cast<int>(g.sources.size()), g.sources.data(), g.degrees.data(),
                                 g.destinations.data(), weighted ? g.weights.data() : nullptr));
  std::vector<DistGraphAdjacency> out;
  for (int p = 0; p < n; ++p) {
    std::vector<int> received;
    for (int q = 0; q < n; ++q) {
      const EdgeRoutes& r = routes[static_cast<size_t>(q)];
      const auto from = r.data.begin() + r.displs[static_cast<size_t>(p)];
      received.insert(received.end(), from, from + r.counts[static_cast<size_t>(p)]);
    }
    out.push_back(assemble_edges(received.data(), received.size()));
  }
  return out;
}

TEST(DistGraphEdges, EachEndLearnsTheEdgeAndItsWeight) {
  // Process 0 names 0 -> 1 (weight 5) and 2 -> 0 (weight 7); process 1 names nothing;
  // process 2 names 1 -> 2 (weight 9).
  std::vector<Given> g(3);
  g[0] = {{0, 2}, {1, 1}, {1, 0}, {5, 7}};
  g[2] = {{1}, {1}, {2}, {9}};
  auto a = run(g, true);
  EXPECT_EQ(a[0].destinations, std::vector<int>({1}));
  EXPECT_EQ(a[0].destweights, std::vector<int>({5}));
  EXPECT_EQ(a[0].sources, std::vector<int>({2}));
  EXPECT_EQ(a[0].sourceweights, std::vector<int>({7}));
  EXPECT_EQ(a[1].sources, std::vector<int>({0}));
  EXPECT_EQ(a[1].destinations, std::vector<int>({2}));
  EXPECT_EQ(a[1].destweights, std::vector<int>({9}));
  EXPECT_EQ(a[2].sources, std::vector<int>({1}));
  EXPECT_EQ(a[2].destinations, std::vector<int>({0}));
}

TEST(DistGraphEdges, ListsAreSortedByNeighbourThenByNamingRankAndPosition) {
  // 1 -> 0 named by process 2 (weight 20) and then by process 0 twice (weights 1, 2),
  // 3 -> 0 by process 1 (weight 30): process 0's sources are 1, 1, 1, 3 with
  // the weights in the order (naming rank, position): 1, 2, 20, then 30.
  std::vector<Given> g(4);
  g[0] = {{1}, {2}, {0, 0}, {1, 2}};
  g[1] = {{3}, {1}, {0}, {30}};
  g[2] = {{1}, {1}, {0}, {20}};
  auto a = run(g, true);
  EXPECT_EQ(a[0].sources, std::vector<int>({1, 1, 1, 3}));
  EXPECT_EQ(a[0].sourceweights, std::vector<int>({1, 2, 20, 30}));
  EXPECT_EQ(a[1].destinations, std::vector<int>({0, 0, 0}));
  EXPECT_EQ(a[1].destweights, std::vector<int>({1, 2, 20}));
  EXPECT_TRUE(a[2].sources.empty() && a[2].destinations.empty());
  EXPECT_EQ(a[3].destinations, std::vector<int>({0}));
}

TEST(DistGraphEdges, ASelfLoopIsBothASourceAndADestination) {
  std::vector<Given> g(2);
  g[1] = {{1}, {2}, {1, 0}, {4, 6}};
  auto a = run(g, true);
  EXPECT_EQ(a[1].sources, std::vector<int>({1}));
  EXPECT_EQ(a[1].destinations, std::vector<int>({0, 1}));
  EXPECT_EQ(a[1].destweights, std::vector<int>({6, 4}));
  EXPECT_EQ(a[0].sources, std::vector<int>({1}));
}

TEST(DistGraphEdges, UnweightedEdgesCarryWeightOne) {
  std::vector<Given> g(2);
  g[0] = {{0}, {1}, {1}, {}};
  auto a = run(g, false);
  EXPECT_EQ(a[1].sources, std::vector<int>({0}));
  EXPECT_EQ(a[1].sourceweights, std::vector<int>({1}));
}

// Random multigraphs: every edge appears once at each end, and between any
// two processes both ends list the edges' weights in the same order (what
// lets the k-th message along them pair up with the k-th receive).
TEST(DistGraphEdges, RandomMultigraphsAgreeAtBothEnds) {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 50; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 9);
    std::vector<Given> g(static_cast<size_t>(n));
    std::map<std::pair<int, int>, std::vector<int>> edges;  // (s, d) -> weights, in (namer, position) order
    int next_weight = 0;
    for (int p = 0; p < n; ++p) {
      Given& mine = g[static_cast<size_t>(p)];
      const int nsrc = static_cast<int>(rng() % 4);
      for (int i = 0; i < nsrc; ++i) {
        const int s = static_cast<int>(rng() % static_cast<unsigned>(n));
        const int deg = static_cast<int>(rng() % 4);
        mine.sources.push_back(s);
        mine.degrees.push_back(deg);
        for (int k = 0; k < deg; ++k) {
          const int d = static_cast<int>(rng() % static_cast<unsigned>(n));
          mine.destinations.push_back(d);
          mine.weights.push_back(next_weight);
          edges[{s, d}].push_back(next_weight++);
        }
      }
    }
    auto a = run(g, true);
    size_t in_total = 0, out_total = 0;
    for (int p = 0; p < n; ++p) {
      const DistGraphAdjacency& x = a[static_cast<size_t>(p)];
      ASSERT_TRUE(std::is_sorted(x.sources.begin(), x.sources.end()));
      ASSERT_TRUE(std::is_sorted(x.destinations.begin(), x.destinations.end()));
      in_total += x.sources.size();
      out_total += x.destinations.size();
      for (int q = 0; q < n; ++q) {
        std::vector<int> in_w, out_w;
        for (size_t i = 0; i < x.sources.size(); ++i)
          if (x.sources[i] == q) in_w.push_back(x.sourceweights[i]);
        for (size_t i = 0; i < x.destinations.size(); ++i)
          if (x.destinations[i] == q) out_w.push_back(x.destweights[i]);
        EXPECT_EQ(in_w, (edges[{q, p}])) << "trial " << trial << ": edges " << q << " -> " << p << " at " << p;
        EXPECT_EQ(out_w, (edges[{p, q}])) << "trial " << trial << ": edges " << p << " -> " << q << " at " << p;
      }
    }
    size_t total = 0;
    for (const auto& [k, w] : edges) total += w.size();
    EXPECT_EQ(in_total, total);
    EXPECT_EQ(out_total, total);
  }
}

}  // namespace
}  // namespace lz::rt
