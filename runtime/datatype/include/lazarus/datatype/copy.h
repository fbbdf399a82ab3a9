// Typed local copy: the part of a gather, scatter or alltoall that stays on
// this rank, and any copy between two datatypes with the same signature.
//
//   // my own block of an allgather, from the send type to the receive type
//   lz::dt::copy(sbuf, scount, sdt, rbuf_block, rcount, rdt);
#pragma once

#include "lazarus/datatype/datatype.h"

namespace lz::dt {

// Copies `scount` elements of `sdt` at `src` into `rcount` elements of `rdt`
// at `dst`. The type signatures must match; copies min(sizes) bytes of packed
// data (the shorter side decides, as a truncated receive would). `src` and
// `dst` may overlap only when both types are contiguous. Neither is
// MPI_IN_PLACE: callers resolve that first.
void copy(const void* src, int scount, const Datatype& sdt, void* dst, int rcount, const Datatype& rdt);

}  // namespace lz::dt
