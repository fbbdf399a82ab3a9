// MPI_Type_create_darray's index arithmetic (lazarus/datatype/darray.h) and
// the type built from it: runs per dimension against hand-worked cases, and
// every (gsizes, grid, distribution, order) of a small sweep against an index
// map computed element by element (ownership by division, not by runs).
#include "lazarus/datatype/darray.h"

#include <gtest/gtest.h>

#include <vector>

#include "lazarus/datatype/datatype.h"

namespace lz::dt {
namespace {

using D = Datatype;
constexpr int kBlock = D::kDistributeBlock, kCyclic = D::kDistributeCyclic, kNone = D::kDistributeNone,
              kDflt = D::kDistributeDfltDarg;

std::vector<std::pair<int, int>> runs(int gsize, int distrib, int darg, int psize, int coord) {
  auto r = darray_runs(gsize, distrib, darg, psize, coord);
  EXPECT_TRUE(r.ok()) << r.status().message();
  std::vector<std::pair<int, int>> out;
  if (r.ok())
    for (auto& x : *r) out.emplace_back(x.start, x.length);
  return out;
}

using Runs = std::vector<std::pair<int, int>>;

TEST(DarrayRuns, BlockDefaultSplitsCeiling) {
  EXPECT_EQ(runs(10, kBlock, kDflt, 3, 0), (Runs{{0, 4}}));
  EXPECT_EQ(runs(10, kBlock, kDflt, 3, 1), (Runs{{4, 4}}));
  EXPECT_EQ(runs(10, kBlock, kDflt, 3, 2), (Runs{{8, 2}}));
  // ceil(5 / 4) = 2: the last process owns nothing.
  EXPECT_EQ(runs(5, kBlock, kDflt, 4, 3), Runs{});
}

TEST(DarrayRuns, BlockWithDarg) {
  EXPECT_EQ(runs(10, kBlock, 6, 2, 1), (Runs{{6, 4}}));
  auto bad = darray_runs(10, kBlock, 4, 2, 0);  // 4 * 2 < 10
  EXPECT_FALSE(bad.ok());
}

TEST(DarrayRuns, CyclicDefaultAndBlockCyclic) {
  EXPECT_EQ(runs(7, kCyclic, kDflt, 3, 1), (Runs{{1, 1}, {4, 1}}));
  EXPECT_EQ(runs(10, kCyclic, 2, 3, 1), (Runs{{2, 2}, {8, 2}}));
  EXPECT_EQ(runs(11, kCyclic, 2, 3, 2), (Runs{{4, 2}, {10, 1}}));  // the last block is short
}

TEST(DarrayRuns, NoneNeedsOneProcess) {
  EXPECT_EQ(runs(6, kNone, kDflt, 1, 0), (Runs{{0, 6}}));
  EXPECT_FALSE(darray_runs(6, kNone, kDflt, 2, 0).ok());
}

TEST(DarrayRuns, RejectsBadArguments) {
  EXPECT_FALSE(darray_runs(0, kBlock, kDflt, 1, 0).ok());
  EXPECT_FALSE(darray_runs(4, kBlock, kDflt, 2, 2).ok());
  EXPECT_FALSE(darray_runs(4, kCyclic, 0, 2, 0).ok());
  EXPECT_FALSE(darray_runs(4, 7, kDflt, 2, 0).ok());
}

// Whether global index g of a dimension belongs to grid coordinate c.
bool owns(int g, int gsize, int distrib, int darg, int p, int c) {
  if (distrib == kNone) return true;
  if (distrib == kBlock) return g / (darg == kDflt ? (gsize + p - 1) / p : darg) == c;
  return (g / (darg == kDflt ? 1 : darg)) % p == c;
}

// The int offsets (in elements) a darray of ints covers, in type-map order,
// from the type's blocks.
std::vector<long> covered(const Datatype& t) {
  std::vector<long> out;
  for (const auto& b : t.blocks())
    for (size_t i = 0; i < b.length / sizeof(int); ++i)
      out.push_back(b.offset / static_cast<long>(sizeof(int)) + static_cast<long>(i));
  return out;
}

TEST(Darray, EveryRankMatchesTheElementwiseMap) {
  const Datatype& INT = internal_type(Basic::kInt);
  const int gs[3] = {7, 5, 4};
  struct Dist {
    int d[3];
    int a[3];
  };
  const Dist dists[] = {{{kBlock, kBlock, kBlock}, {kDflt, kDflt, kDflt}},
                        {{kCyclic, kCyclic, kCyclic}, {kDflt, 2, kDflt}},
                        {{kBlock, kCyclic, kNone}, {7, 2, kDflt}},
                        {{kCyclic, kBlock, kNone}, {3, 5, kDflt}}};
  const int grids[][3] = {{1, 1, 1}, {2, 2, 1}, {2, 1, 1}, {1, 2, 1}};
  for (const auto& dist : dists)
    for (const auto& ps : grids)
      for (int order : {D::kOrderC, D::kOrderFortran}) {
        const int size = ps[0] * ps[1] * ps[2];
        size_t total = 0;
        for (int rank = 0; rank < size; ++rank) {
          const int coords[3] = {rank / (ps[1] * ps[2]), (rank / ps[2]) % ps[1], rank % ps[2]};
          std::vector<int> own[3];
          for (int d = 0; d < 3; ++d)
            for (int g = 0; g < gs[d]; ++g)
              if (owns(g, gs[d], dist.d[d], dist.a[d], ps[d], coords[d])) own[d].push_back(g);
          // The local array in `order`, each element's global offset.
          std::vector<long> expect;
          const auto global = [&](int i, int j, int k) {
            return order == D::kOrderC ? (static_cast<long>(i) * gs[1] + j) * gs[2] + k
                                       : (static_cast<long>(k) * gs[1] + j) * gs[0] + i;
          };
          if (order == D::kOrderC) {
            for (int i : own[0])
              for (int j : own[1])
                for (int k : own[2]) expect.push_back(global(i, j, k));
          } else {
            for (int k : own[2])
              for (int j : own[1])
                for (int i : own[0]) expect.push_back(global(i, j, k));
          }
          auto t = D::darray(size, rank, 3, gs, dist.d, dist.a, ps, order, INT);
          ASSERT_TRUE(t.ok()) << t.status().message();
          EXPECT_EQ(covered(**t), expect)
              << "rank " << rank << " of grid " << ps[0] << "x" << ps[1] << "x" << ps[2] << " order " << order;
          EXPECT_EQ((*t)->lb(), 0);
          EXPECT_EQ((*t)->extent(), static_cast<ptrdiff_t>(7 * 5 * 4 * sizeof(int)));
          EXPECT_EQ((*t)->size(), expect.size() * sizeof(int));
          EXPECT_EQ((*t)->combiner(), D::Combiner::kDarray);
          total += expect.size();
          D::release(*t);
        }
        EXPECT_EQ(total, 7u * 5u * 4u);  // every element owned once
      }
}

TEST(Darray, RejectsAGridOfTheWrongSize) {
  const int gs[2] = {4, 4}, d[2] = {kBlock, kBlock}, a[2] = {kDflt, kDflt}, ps[2] = {2, 2};
  EXPECT_FALSE(D::darray(3, 0, 2, gs, d, a, ps, D::kOrderC, internal_type(Basic::kInt)).ok());
  EXPECT_FALSE(D::darray(4, 4, 2, gs, d, a, ps, D::kOrderC, internal_type(Basic::kInt)).ok());
}

TEST(Contents, RecordsTheConstructorAndHoldsItsTypes) {
  auto v = D::vector(3, 2, 4, internal_type(Basic::kInt));
  ASSERT_TRUE(v.ok());
  auto c = D::contiguous(2, **v);
  ASSERT_TRUE(c.ok());
  D::release(*v);  // the contiguous type keeps the vector alive
  EXPECT_EQ((*c)->combiner(), D::Combiner::kContiguous);
  ASSERT_EQ((*c)->contents().types.size(), 1u);
  const Datatype* inner = (*c)->contents().types[0];
  EXPECT_EQ(inner->combiner(), D::Combiner::kVector);
  EXPECT_EQ(inner->contents().ints, (std::vector<int>{3, 2, 4}));
  EXPECT_EQ((*c)->contents().ints, (std::vector<int>{2}));
  D::release(*c);
}

}  // namespace
}  // namespace lz::dt
