// MPI binding: user-defined reduction operations, MPI_Op_commutative and
// MPI_Reduce_local (errors not tied to a communicator: MPI_COMM_WORLD's handler).
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

int MPI_Op_commutative(MPI_Op op, int* commute) {
  static constexpr const char* kFn = "MPI_Op_commutative";
  LZ_MPI_ENTRY(kFn);
  if (op == MPI_OP_NULL) return lz::rt::mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_OP, "invalid op (MPI_OP_NULL)");
  if (commute == nullptr) return lz::rt::mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG, "commute is NULL");
  *commute = op->commutative() ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op) {
  static constexpr const char* kFn = "MPI_Reduce_local";
  LZ_MPI_ENTRY(kFn);
  using lz::rt::mpi_error;
  if (count < 0) return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_COUNT, "invalid count " + std::to_string(count));
  if (datatype == MPI_DATATYPE_NULL)
    return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_TYPE, "invalid datatype (MPI_DATATYPE_NULL)");
  if (!datatype->is_committed())
    return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_TYPE, "datatype " + datatype->name() + " is not committed");
  if (op == MPI_OP_NULL) return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_OP, "invalid op (MPI_OP_NULL)");
  if (lz::Status s = op->check(*datatype); !s.ok()) return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_OP, s.message());
  if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
    return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed in MPI_Reduce_local");
  if (count == 0) return MPI_SUCCESS;
  op->apply(inbuf, inoutbuf, count, *datatype);  // inoutbuf = inbuf op inoutbuf
  return MPI_SUCCESS;
}

}  // extern "C"
