// MPI binding: group constructors by rank ranges, set operations and
// comparison (MPI-3.1 section 6.3). The basic group calls are in mpi_comm.cpp.
// Groups are not tied to a communicator: errors go to MPI_COMM_WORLD's handler.
#include <string>
#include <unordered_set>
#include <vector>

#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "p2p/group.h"
#include "p2p/runtime.h"

using lz::rt::mpi_error;

namespace {

inline bool group_ok(MPI_Group g) { return g != nullptr && g->valid(); }

int group_error(const char* fn) { return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_GROUP, "invalid group"); }

// A new group of `world` ranks (MPI_GROUP_EMPTY when there are none).
MPI_Group new_group(std::vector<int> world) {
  if (world.empty()) return MPI_GROUP_EMPTY;
  return lz_mpi_group_s::make(std::move(world), lz::rt::runtime().rank());
}

// The group ranks named by `n` (first, last, stride) triplets, in order, each
// valid and all distinct (MPI-3.1 section 6.3.2, MPI_GROUP_RANGE_INCL).
// Returns MPI_SUCCESS or the reported error class.
int expand_ranges(const char* fn, MPI_Group group, int n, const int ranges[][3], std::vector<int>* out) {
  if (n < 0) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG, "invalid count " + std::to_string(n));
  if (n > 0 && ranges == nullptr) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG, "ranges is NULL");
  const int size = group->size();
  std::vector<bool> seen(static_cast<size_t>(size), false);
  for (int i = 0; i < n; ++i) {
    const long long first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    const std::string triplet = "range " + std::to_string(i) + " (" + std::to_string(first) + ", " +
                                std::to_string(last) + ", " + std::to_string(stride) + ")";
    if (stride == 0) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG, triplet + ": stride is 0");
    for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (r < 0 || r >= size) {
        return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_RANK,
                         triplet + ": rank " + std::to_string(r) + " is invalid (group size " +
                             std::to_string(size) + ")");
      }
      if (seen[static_cast<size_t>(r)]) {
        return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_RANK, triplet + ": rank " + std::to_string(r) + " is repeated");
      }
      seen[static_cast<size_t>(r)] = true;
      out->push_back(static_cast<int>(r));
    }
  }
  return MPI_SUCCESS;
}

enum class SetOp { kUnion, kIntersection, kDifference };

int set_op(const char* fn, SetOp op, MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  if (!group_ok(group1) || !group_ok(group2)) return group_error(fn);
  if (newgroup == nullptr) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG, "newgroup is NULL");
  const std::unordered_set<int> in2(group2->world_ranks.begin(), group2->world_ranks.end());
  std::vector<int> world;
  // Every result is ordered as in group1, then (union) as in group2.
  for (int w : group1->world_ranks) {
    const bool both = in2.count(w) != 0;
    if (op == SetOp::kUnion || (op == SetOp::kIntersection) == both) world.push_back(w);
  }
  if (op == SetOp::kUnion) {
    const std::unordered_set<int> in1(group1->world_ranks.begin(), group1->world_ranks.end());
    for (int w : group2->world_ranks)
      if (in1.count(w) == 0) world.push_back(w);
  }
  *newgroup = new_group(std::move(world));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  static constexpr const char* kFn = "MPI_Group_range_incl";
  LZ_MPI_ENTRY(kFn);
  if (!group_ok(group)) return group_error(kFn);
  if (newgroup == nullptr) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "newgroup is NULL");
  std::vector<int> ranks;
  if (int e = expand_ranges(kFn, group, n, ranges, &ranks)) return e;
  std::vector<int> world;
  world.reserve(ranks.size());
  for (int r : ranks) world.push_back(group->world_ranks[static_cast<size_t>(r)]);
  *newgroup = new_group(std::move(world));
  return MPI_SUCCESS;
}

int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  static constexpr const char* kFn = "MPI_Group_range_excl";
  LZ_MPI_ENTRY(kFn);
  if (!group_ok(group)) return group_error(kFn);
  if (newgroup == nullptr) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "newgroup is NULL");
  std::vector<int> ranks;
  if (int e = expand_ranges(kFn, group, n, ranges, &ranks)) return e;
  std::vector<bool> drop(static_cast<size_t>(group->size()), false);
  for (int r : ranks) drop[static_cast<size_t>(r)] = true;
  std::vector<int> world;
  for (int r = 0; r < group->size(); ++r)
    if (!drop[static_cast<size_t>(r)]) world.push_back(group->world_ranks[static_cast<size_t>(r)]);
  *newgroup = new_group(std::move(world));
  return MPI_SUCCESS;
}

int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  LZ_MPI_ENTRY("MPI_Group_union");
  return set_op("MPI_Group_union", SetOp::kUnion, group1, group2, newgroup);
}

int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  LZ_MPI_ENTRY("MPI_Group_intersection");
  return set_op("MPI_Group_intersection", SetOp::kIntersection, group1, group2, newgroup);
}

int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  LZ_MPI_ENTRY("MPI_Group_difference");
  return set_op("MPI_Group_difference", SetOp::kDifference, group1, group2, newgroup);
}

int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  static constexpr const char* kFn = "MPI_Group_compare";
  LZ_MPI_ENTRY(kFn);
  if (!group_ok(group1) || !group_ok(group2)) return group_error(kFn);
  if (result == nullptr) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "result is NULL");
  const auto& a = group1->world_ranks;
  const auto& b = group2->world_ranks;
  if (a == b) {
    *result = MPI_IDENT;
  } else if (a.size() == b.size() &&
             std::unordered_set<int>(a.begin(), a.end()) == std::unordered_set<int>(b.begin(), b.end())) {
    *result = MPI_SIMILAR;  // groups have no repeated members: equal sets of equal size
  } else {
    *result = MPI_UNEQUAL;
  }
  return MPI_SUCCESS;
}

}  // extern "C"
