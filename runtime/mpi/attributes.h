// Communicator attributes at a communicator's birth and end: MPI_Comm_dup
// runs each attribute's copy callback, MPI_Comm_free and MPI_Finalize (for
// MPI_COMM_SELF) its delete callback (mpi_attr.cpp).
#pragma once

#include "mpi.h"

namespace lz::rt {

// Copies `from`'s attributes onto `to` as their keyvals' copy callbacks say.
// MPI_SUCCESS, or the first callback's error (reported on `from`).
int attributes_copy(const char* fn, MPI_Comm from, MPI_Comm to);
// Deletes every attribute of `comm`, the last set first. MPI_SUCCESS, or the
// first delete callback's error (reported on `comm`; that attribute stays).
int attributes_delete_all(const char* fn, MPI_Comm comm);

}  // namespace lz::rt
