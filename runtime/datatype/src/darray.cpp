// MPI_Type_create_darray: the per-dimension index runs (darray.h) and the
// type built from them.
#include "lazarus/datatype/darray.h"

#include <climits>
#include <string>

#include "lazarus/datatype/datatype.h"

namespace lz::dt {

StatusOr<std::vector<IndexRun>> darray_runs(int gsize, int distrib, int darg, int psize, int coord) {
  using D = Datatype;
  if (gsize <= 0) return InvalidArgument("global size " + std::to_string(gsize) + " is not positive");
  if (psize <= 0) return InvalidArgument("process grid size " + std::to_string(psize) + " is not positive");
  if (coord < 0 || coord >= psize)
    return InvalidArgument("grid coordinate " + std::to_string(coord) + " is not in [0, " + std::to_string(psize) +
                           ")");
  if (darg != D::kDistributeDfltDarg && darg <= 0)
    return InvalidArgument("distribution argument " + std::to_string(darg) + " is not positive");
  std::vector<IndexRun> runs;
  switch (distrib) {
    case D::kDistributeNone:
      if (psize != 1)
        return InvalidArgument("MPI_DISTRIBUTE_NONE over " + std::to_string(psize) + " processes (must be 1)");
      runs.push_back({0, gsize});
      return runs;
    case D::kDistributeBlock: {
      const int b = darg == D::kDistributeDfltDarg ? (gsize + psize - 1) / psize : darg;
      if (static_cast<long long>(b) * psize < gsize)
        return InvalidArgument("block size " + std::to_string(b) + " times " + std::to_string(psize) +
                               " processes does not cover " + std::to_string(gsize) + " elements");
      const long long start = static_cast<long long>(coord) * b;
      if (start < gsize)
        runs.push_back({static_cast<int>(start), static_cast<int>(std::min<long long>(b, gsize - start))});
      return runs;
    }
    case D::kDistributeCyclic: {
      const int b = darg == D::kDistributeDfltDarg ? 1 : darg;
      const long long step = static_cast<long long>(b) * psize;
      for (long long start = static_cast<long long>(coord) * b; start < gsize; start += step)
        runs.push_back({static_cast<int>(start), static_cast<int>(std::min<long long>(b, gsize - start))});
      return runs;
    }
    default:
      return InvalidArgument("invalid distribution " + std::to_string(distrib));
  }
}

}  // namespace lz::dt

lz::StatusOr<lz_datatype_s*> lz_datatype_s::darray(int size, int rank, int ndims, const int* gsizes,
                                                   const int* distribs, const int* dargs, const int* psizes, int order,
                                                   const lz_datatype_s& old) {
  static const std::string kFn = "MPI_Type_create_darray: ";
  if (size <= 0) return lz::InvalidArgument(kFn + "size " + std::to_string(size) + " is not positive");
  if (rank < 0 || rank >= size)
    return lz::InvalidArgument(kFn + "rank " + std::to_string(rank) + " is not in [0, " + std::to_string(size) + ")");
  if (ndims <= 0) return lz::InvalidArgument(kFn + "ndims " + std::to_string(ndims) + " is not positive");
  if (order != kOrderC && order != kOrderFortran)
    return lz::InvalidArgument(kFn + "invalid order " + std::to_string(order));
  long long grid = 1;
  for (int d = 0; d < ndims; ++d) {
    if (psizes[d] <= 0)
      return lz::InvalidArgument(kFn + "psize " + std::to_string(psizes[d]) + " of dimension " + std::to_string(d) +
                                 " is not positive");
    grid *= psizes[d];
    if (grid > INT_MAX) return lz::InvalidArgument(kFn + "the process grid's size overflows");
  }
  if (grid != size)
    return lz::InvalidArgument(kFn + "the process grid has " + std::to_string(grid) + " processes, not size " +
                               std::to_string(size));
  // The grid is row-major: the last dimension's coordinate varies fastest.
  std::vector<int> coords(static_cast<size_t>(ndims));
  for (int d = ndims - 1, r = rank; d >= 0; --d) {
    coords[static_cast<size_t>(d)] = r % psizes[d];
    r /= psizes[d];
  }
  const bool c_order = order == kOrderC;
  const ptrdiff_t ext = old.extent();
  ptrdiff_t row = ext;  // bytes of one element of the dimensions built so far
  lz_datatype_s* t = nullptr;
  const lz_datatype_s* inner = &old;
  for (int k = 0; k < ndims; ++k) {
    const int d = c_order ? ndims - 1 - k : k;  // fastest-varying dimension first
    auto runs = lz::dt::darray_runs(gsizes[d], distribs[d], dargs[d], psizes[d], coords[static_cast<size_t>(d)]);
    if (!runs.ok()) {
      release(t);
      return lz::InvalidArgument(kFn + "dimension " + std::to_string(d) + ": " + runs.status().message());
    }
    if (row > PTRDIFF_MAX / 2 / gsizes[d]) {
      release(t);
      return lz::InvalidArgument(kFn + "the array's size overflows");
    }
    // One element of this dimension spans a whole row of the lower ones.
    const lz_datatype_s* unit = inner;
    lz_datatype_s* resized_inner = nullptr;
    if (k > 0) {
      auto r = resized(*inner, 0, row);
      release(t);
      t = nullptr;
      if (!r.ok()) return r;
      resized_inner = *r;
      unit = resized_inner;
    }
    std::vector<int> lengths;
    std::vector<ptrdiff_t> displs;
    for (const auto& run : *runs) {
      lengths.push_back(run.length);
      displs.push_back(static_cast<ptrdiff_t>(run.start) * row);
    }
    auto next = hindexed(static_cast<int>(lengths.size()), lengths.data(), displs.data(), *unit);
    release(resized_inner);
    if (!next.ok()) return next;
    t = *next;
    inner = t;
    row *= gsizes[d];
  }
  auto placed = resized(*t, 0, row);
  release(t);
  if (!placed.ok()) return placed;
  lz_datatype_s* n = *placed;
  n->name_basic_ = old.name_basic_;
  std::vector<int> ints{size, rank, ndims};
  for (const int* a : {gsizes, distribs, dargs, psizes}) ints.insert(ints.end(), a, a + ndims);
  ints.push_back(order);
  n->record(Combiner::kDarray, std::move(ints), {}, {&old});
  return n;
}
