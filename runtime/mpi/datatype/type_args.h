// The argument checks shared by the MPI-2/3 datatype calls
// (mpi_type_create.cpp, mpi_type_contents.cpp). Errors are not tied to a
// communicator: MPI_COMM_WORLD's handler applies.
#pragma once

#include <string>

#include "lazarus/datatype/datatype.h"
#include "mpi.h"
#include "mpi/errors.h"

namespace lz::rt::type_args {

inline int arg_error(const char* fn, const std::string& msg) { return mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, msg); }

inline int check_type(const char* fn, MPI_Datatype t) {
  if (t == MPI_DATATYPE_NULL) return mpi_error(MPI_COMM_NULL, fn, MPI_ERR_TYPE, "invalid datatype (MPI_DATATYPE_NULL)");
  return MPI_SUCCESS;
}

inline int check_count(const char* fn, int count) {
  if (count < 0) return mpi_error(MPI_COMM_NULL, fn, MPI_ERR_COUNT, "invalid count " + std::to_string(count));
  return MPI_SUCCESS;
}

inline int finish_new(const char* fn, lz::StatusOr<lz::dt::Datatype*> t, MPI_Datatype* newtype) {
  if (!t.ok()) return arg_error(fn, t.status().message());
  *newtype = *t;
  return MPI_SUCCESS;
}

}  // namespace lz::rt::type_args
