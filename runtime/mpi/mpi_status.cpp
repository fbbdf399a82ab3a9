// MPI binding: MPI_Status_set_elements(_x) and MPI_Status_set_cancelled
// (MPI-3.1 section 12.3), with which a generalized request's query function
// or a layered library fills a status that MPI_Get_count, MPI_Get_elements
// and MPI_Test_cancelled then read. A status keeps its received bytes
// (lz_bytes); `count` basic elements of `datatype` are the packed bytes of
// the first `count` elements of its signature (Datatype::bytes_of_elements).
#include <string>

#include "lazarus/datatype/datatype.h"
#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/errors.h"

namespace {

using lz::rt::mpi_error;

int set_elements(const char* fn, MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  if (status == nullptr)  // MPI_STATUS_IGNORE too
    return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE");
  if (datatype == MPI_DATATYPE_NULL)
    return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_TYPE, "invalid datatype (MPI_DATATYPE_NULL)");
  if (count < 0) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_COUNT, "invalid count " + std::to_string(count));
  status->lz_bytes = static_cast<MPI_Count>(datatype->bytes_of_elements(static_cast<size_t>(count)));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  static constexpr const char* kFn = "MPI_Status_set_elements";
  LZ_MPI_ENTRY(kFn);
  return set_elements(kFn, status, datatype, count);
}

int MPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  static constexpr const char* kFn = "MPI_Status_set_elements_x";
  LZ_MPI_ENTRY(kFn);
  return set_elements(kFn, status, datatype, count);
}

int MPI_Status_set_elements_c(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  static constexpr const char* kFn = "MPI_Status_set_elements_c";
  LZ_MPI_ENTRY(kFn);
  return set_elements(kFn, status, datatype, count);
}

int MPI_Status_set_cancelled(MPI_Status* status, int flag) {
  static constexpr const char* kFn = "MPI_Status_set_cancelled";
  LZ_MPI_ENTRY(kFn);
  if (status == nullptr)  // MPI_STATUS_IGNORE too
    return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE");
  status->lz_cancelled = flag != 0;
  return MPI_SUCCESS;
}

}  // extern "C"
