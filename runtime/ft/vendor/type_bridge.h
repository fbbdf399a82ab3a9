// The datatype engine's equal of a vendor MPI datatype, so that cr/app's
// own code (signature, packing, block copies of decomposed arrays) saves and
// loads variables registered with the vendor's types: predefined types map to
// the engine's basic types, derived ones are rebuilt constructor by
// constructor from MPI_Type_get_envelope/get_contents.
//
//   LZ_ASSIGN_OR_RETURN(lz_datatype_s* t, lz::ft::engine_type(MPI_DOUBLE));   // one reference, committed
//   ... lz_datatype_s::release(t);
//
// Errors: kInvalidArgument naming the type for a predefined type the engine
// has no equal of, kUnimplemented for a constructor not rebuilt (darray,
// the Fortran 90 parameterised types): register such data as MPI_BYTE.
#pragma once

#include <mpi.h>

#include "lazarus/datatype/datatype.h"
#include "lazarus/status.h"

namespace lz::ft {

StatusOr<lz_datatype_s*> engine_type(MPI_Datatype type);

}  // namespace lz::ft
