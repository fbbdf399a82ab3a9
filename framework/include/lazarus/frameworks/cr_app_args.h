// The checks of LZ_Register_decomposed's arguments (lazarus/checkpoint.h),
// shared by every binding of that API: Lazarus' own libmpi and liblazarus-ft
// over a vendor MPI (runtime/ft), so that both refuse the same calls with the
// same words.
//
//   lz::cr::AppVariable v;
//   lz::cr::DecomposedError why = lz::cr::DecomposedError::kNone;
//   lz::Status s = lz::cr::fill_decomposed(v, name, addr, ndims, global, start, owned, alloc, offset, &why);
//   if (!s.ok()) return mpi_error(..., why == kDims ? MPI_ERR_DIMS : ..., s.message());
#pragma once

#include "lazarus/frameworks/cr.h"
#include "lazarus/status.h"

namespace lz::cr {

// Which MPI error class a refusal belongs to (each binding maps it to its own
// constants, which differ between MPI implementations).
enum class DecomposedError { kNone, kDims, kArg, kCount };

// Fills v (name, addr, shapes, count = elements of the allocation) from the
// C arguments of LZ_Register_decomposed; alloc_shape and alloc_offset may be
// null (owned_shape, zeros). Does not set v.type. On a refusal returns
// kInvalidArgument whose message names the variable and the bad argument, and
// sets *why.
Status fill_decomposed(AppVariable& v, const char* name, void* addr, int ndims, const int global_shape[],
                       const int owned_start[], const int owned_shape[], const int alloc_shape[],
                       const int alloc_offset[], DecomposedError* why);

}  // namespace lz::cr
