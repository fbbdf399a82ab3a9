// The neighbours a neighbourhood collective exchanges with
// (Topology::neighbours_of, runtime/p2p/topology.h), per topology kind.
#include "p2p/topology.h"

#include <gtest/gtest.h>

#include <vector>

namespace lz::rt {
namespace {

Topology grid(std::vector<int> dims, std::vector<int> periods) {
  Topology t;
  t.kind = Topology::Kind::kCart;
  t.dims = std::move(dims);
  t.periods = std::move(periods);
  return t;
}

TEST(TopologyNeighbours, CartesianIsMinusThenPlusPerDimension) {
  // 3 x 4, row-major: rank 5 is (1, 1).
  Topology t = grid({3, 4}, {0, 0});
  std::vector<int> in, out;
  t.neighbours_of(5, &in, &out);
  EXPECT_EQ(in, std::vector<int>({1, 9, 4, 6}));
  EXPECT_EQ(out, in);
}

TEST(TopologyNeighbours, NonPeriodicEdgesAreProcNull) {
  Topology t = grid({3, 4}, {0, 0});
  std::vector<int> in, out;
  t.neighbours_of(0, &in, &out);  // (0, 0)
  EXPECT_EQ(in, std::vector<int>({MPI_PROC_NULL, 4, MPI_PROC_NULL, 1}));
  t.neighbours_of(11, &in, &out);  // (2, 3)
  EXPECT_EQ(in, std::vector<int>({7, MPI_PROC_NULL, 10, MPI_PROC_NULL}));
}

TEST(TopologyNeighbours, PeriodicDimensionsWrap) {
  Topology t = grid({3, 4}, {1, 0});
  std::vector<int> in, out;
  t.neighbours_of(0, &in, &out);
  EXPECT_EQ(in, std::vector<int>({8, 4, MPI_PROC_NULL, 1}));
}

TEST(TopologyNeighbours, PeriodicDimensionsOfOneOrTwoRepeatAProcess) {
  Topology t = grid({2, 1}, {1, 1});
  std::vector<int> in, out;
  t.neighbours_of(1, &in, &out);
  EXPECT_EQ(in, std::vector<int>({0, 0, 1, 1}));
}

TEST(TopologyNeighbours, GraphNeighboursBothWays) {
  Topology t;
  t.kind = Topology::Kind::kGraph;
  t.index = {2, 3, 5};
  t.edges = {1, 1, 0, 0, 2};
  std::vector<int> in, out;
  t.neighbours_of(0, &in, &out);
  EXPECT_EQ(in, std::vector<int>({1, 1}));
  EXPECT_EQ(out, in);
  t.neighbours_of(2, &in, &out);
  EXPECT_EQ(in, std::vector<int>({0, 2}));
}

TEST(TopologyNeighbours, DistributedGraphSourcesInDestinationsOut) {
  Topology t;
  t.kind = Topology::Kind::kDistGraph;
  t.sources = {3, 3, 0};
  t.destinations = {};
  std::vector<int> in = {9}, out = {9};
  t.neighbours_of(1, &in, &out);
  EXPECT_EQ(in, std::vector<int>({3, 3, 0}));
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace lz::rt
