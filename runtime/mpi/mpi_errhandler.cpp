// MPI binding: error classes, strings and communicator error handlers.
#include <cstdio>
#include <cstring>

#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "p2p/comm.h"

namespace {
const char* error_text(int code) {
  switch (code) {
    case MPI_SUCCESS: return "MPI_SUCCESS: no error";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER: invalid buffer pointer";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT: invalid count argument";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE: invalid datatype";
    case MPI_ERR_TAG: return "MPI_ERR_TAG: invalid tag";
    case MPI_ERR_COMM: return "MPI_ERR_COMM: invalid communicator";
    case MPI_ERR_RANK: return "MPI_ERR_RANK: invalid rank";
    case MPI_ERR_REQUEST: return "MPI_ERR_REQUEST: invalid request";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT: invalid root";
    case MPI_ERR_GROUP: return "MPI_ERR_GROUP: invalid group";
    case MPI_ERR_OP: return "MPI_ERR_OP: invalid reduce operation";
    case MPI_ERR_TOPOLOGY: return "MPI_ERR_TOPOLOGY: invalid communicator topology";
    case MPI_ERR_DIMS: return "MPI_ERR_DIMS: invalid dimension argument";
    case MPI_ERR_ARG: return "MPI_ERR_ARG: invalid argument of some other kind";
    case MPI_ERR_UNKNOWN: return "MPI_ERR_UNKNOWN: unknown error";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE: message truncated";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER: known error not in this list";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN: internal error";
    case MPI_ERR_IN_STATUS: return "MPI_ERR_IN_STATUS: error code is in status";
    case MPI_ERR_PENDING: return "MPI_ERR_PENDING: pending request";
    case MPI_ERR_PROC_FAILED: return "MPI_ERR_PROC_FAILED: a peer process failed";
    default: return nullptr;
  }
}
}  // namespace

extern "C" {

int MPI_Error_string(int errorcode, char* string, int* resultlen) {
  const char* t = error_text(errorcode);
  char buf[MPI_MAX_ERROR_STRING];
  if (t == nullptr) {
    std::snprintf(buf, sizeof buf, "unknown error code %d", errorcode);
    t = buf;
  }
  std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", t);
  *resultlen = static_cast<int>(std::strlen(string));
  return error_text(errorcode) ? MPI_SUCCESS : MPI_ERR_ARG;
}

int MPI_Error_class(int errorcode, int* errorclass) {
  if (errorcode < 0 || errorcode > MPI_ERR_LASTCODE) {
    *errorclass = MPI_ERR_UNKNOWN;
    return MPI_ERR_ARG;
  }
  *errorclass = error_text(errorcode) ? errorcode : MPI_ERR_UNKNOWN;
  return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  LZ_MPI_ENTRY("MPI_Comm_set_errhandler");
  if (comm == nullptr || !comm->valid())
    return lz::rt::mpi_error(MPI_COMM_WORLD, "MPI_Comm_set_errhandler", MPI_ERR_COMM, "invalid communicator");
  if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN)
    return lz::rt::mpi_error(comm, "MPI_Comm_set_errhandler", MPI_ERR_ARG, "invalid error handler");
  comm->errhandler = errhandler;
  return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  LZ_MPI_ENTRY("MPI_Comm_get_errhandler");
  if (comm == nullptr || !comm->valid())
    return lz::rt::mpi_error(MPI_COMM_WORLD, "MPI_Comm_get_errhandler", MPI_ERR_COMM, "invalid communicator");
  *errhandler = comm->errhandler ? comm->errhandler : MPI_ERRORS_ARE_FATAL;
  return MPI_SUCCESS;
}

}  // extern "C"
