// Datatype attributes at a type's birth and end: MPI_Type_dup runs each
// attribute's copy callback, MPI_Type_free its delete callback
// (mpi_type_attr.cpp).
#pragma once

#include "mpi.h"

namespace lz::rt {

// Copies `from`'s attributes onto `to` as their keyvals' copy callbacks say.
// MPI_SUCCESS, or the first callback's error (reported).
int type_attributes_copy(const char* fn, MPI_Datatype from, MPI_Datatype to);
// Deletes every attribute of `type`, the last set first. MPI_SUCCESS, or the
// first delete callback's error (reported; that attribute stays).
int type_attributes_delete_all(const char* fn, MPI_Datatype type);

}  // namespace lz::rt
