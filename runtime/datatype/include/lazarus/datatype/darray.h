// The index arithmetic of MPI_Type_create_darray, one dimension at a time:
// which global indices of a dimension of `gsize` elements a process at grid
// coordinate `coord` (of `psize` processes along that dimension) owns, as
// ascending runs. The local array keeps them in that order, so a darray type
// is these runs per dimension, nested (Datatype::darray).
//
//   auto runs = lz::dt::darray_runs(10, Datatype::kDistributeCyclic, 2, 3, 1);
//   // {2, 2}, {8, 2}: blocks of 2 dealt round 3 processes, the second one's
//
// Block: blocks of darg (default ceil(gsize / psize)) elements, one per
// process, darg * psize >= gsize. Cyclic: blocks of darg (default 1) dealt
// round the processes, the last block possibly short. None: psize 1, all.
// Errors (kInvalidArgument) name the bad value.
#pragma once

#include <vector>

#include "lazarus/status.h"

namespace lz::dt {

struct IndexRun {
  int start;
  int length;
};

StatusOr<std::vector<IndexRun>> darray_runs(int gsize, int distrib, int darg, int psize, int coord);

}  // namespace lz::dt
