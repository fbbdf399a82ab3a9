// Reduce-scatter as a reduction of the whole vector to rank 0 followed by a
// linear scatter (rank 0 sends block r to rank r): correct for any op,
// non-commutative ones included, whenever the reduction is; the algorithm of
// choice when a module has no order-preserving reduce-scatter of its own.
// The caller supplies its reduction to rank 0 (linear, binomial, ...).
//
//   return base::reduce_scatter_via_reduce(sbuf, rbuf, rcounts, dt, comm, kScatterTag,
//       [&](const void* in, void* out, int total) { return reduce(in, out, total, dt, op, 0, comm); });
#pragma once

#include <functional>

#include "lazarus/datatype/datatype.h"
#include "lazarus/frameworks/coll.h"
#include "lazarus/status.h"

namespace lz::coll::base {

// Reduces `total` elements of `in` (every rank's whole vector) into `out`,
// significant at rank 0 only (null elsewhere).
using ReduceToZero = std::function<Status(const void* in, void* out, int total)>;

// MPI_Reduce_scatter's arguments (sbuf may be MPI_IN_PLACE: rbuf then holds
// the whole input). The scatter uses `tag`. Errors: those of `reduce` and of
// the Comm calls.
Status reduce_scatter_via_reduce(const void* sbuf, void* rbuf, const int* rcounts, const dt::Datatype& dt,
                                 Comm& comm, int tag, const ReduceToZero& reduce);

}  // namespace lz::coll::base
