// MPI binding: user-defined reduction operations.
#include <string>

#include "mpi.h"
#include "lazarus/datatype/op.h"
#include "mpi/entry.h"
#include "mpi/errors.h"

extern "C" {

int MPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  static constexpr const char* kFn = "MPI_Op_create";
  LZ_MPI_ENTRY(kFn);
  if (user_fn == nullptr) return lz::rt::mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG, "user function is NULL");
  if (op == nullptr) return lz::rt::mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG, "op is NULL");
  *op = lz_op_s::create_user(user_fn, commute != 0);
  return MPI_SUCCESS;
}

int MPI_Op_free(MPI_Op* op) {
  static constexpr const char* kFn = "MPI_Op_free";
  LZ_MPI_ENTRY(kFn);
  if (op == nullptr || *op == MPI_OP_NULL) return lz::rt::mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_OP, "invalid op");
  if ((*op)->is_predefined())
    return lz::rt::mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_OP, std::string("cannot free predefined op ") + (*op)->name());
  lz_op_s::release(*op);
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}

}  // extern "C"
