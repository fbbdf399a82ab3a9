// MPI binding: the MPI-2/3 datatype constructors (hindexed, indexed_block,
// hindexed_block, resized, dup, subarray, darray), true extent, datatype names and
// address arithmetic. Errors are not tied to a communicator (MPI_COMM_WORLD's
// handler applies), as in mpi_datatype.cpp.
#include <algorithm>
#include <cstring>
#include <string>

#include "lazarus/datatype/datatype.h"
#include "mpi.h"
#include "mpi/datatype/type_args.h"
#include "mpi/datatype/type_attributes.h"
#include "mpi/entry.h"
#include "mpi/errors.h"

namespace {

using lz::dt::Datatype;
using lz::rt::mpi_error;

using lz::rt::type_args::arg_error;
using lz::rt::type_args::check_count;
using lz::rt::type_args::check_type;
using lz::rt::type_args::finish_new;

// The arguments of the (h)indexed_block constructors: equal blocks at
// displacements counted in elements or in bytes.
template <typename Displacement>
int check_blocks(const char* fn, int count, int blocklength, const Displacement* displacements, MPI_Datatype oldtype,
                 MPI_Datatype* newtype) {
  if (int e = check_count(fn, count)) return e;
  if (int e = check_type(fn, oldtype)) return e;
  if (blocklength < 0) return arg_error(fn, "negative block length " + std::to_string(blocklength));
  if (count > 0 && displacements == nullptr) return arg_error(fn, "NULL displacement array");
  if (newtype == nullptr) return arg_error(fn, "newtype is NULL");
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Get_address(const void* location, MPI_Aint* address) {
  static constexpr const char* kFn = "MPI_Get_address";
  LZ_MPI_ENTRY(kFn);
  if (address == nullptr) return arg_error(kFn, "address is NULL");
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}

MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  LZ_MPI_ENTRY("MPI_Aint_add");
  // Unsigned arithmetic: addresses may wrap in the signed type without UB.
  return static_cast<MPI_Aint>(static_cast<size_t>(base) + static_cast<size_t>(disp));
}

MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  LZ_MPI_ENTRY("MPI_Aint_diff");
  return static_cast<MPI_Aint>(static_cast<size_t>(addr1) - static_cast<size_t>(addr2));
}

int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                             MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_create_hindexed";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_count(kFn, count)) return e;
  if (int e = check_type(kFn, oldtype)) return e;
  if (count > 0 && (array_of_blocklengths == nullptr || array_of_displacements == nullptr))
    return arg_error(kFn, "NULL block length or displacement array");
  if (newtype == nullptr) return arg_error(kFn, "newtype is NULL");
  return finish_new(kFn, Datatype::hindexed(count, array_of_blocklengths, array_of_displacements, *oldtype), newtype);
}

int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype,
                                  MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_create_indexed_block";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_blocks(kFn, count, blocklength, array_of_displacements, oldtype, newtype)) return e;
  return finish_new(kFn, Datatype::indexed_block(count, blocklength, array_of_displacements, *oldtype), newtype);
}

int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_create_hindexed_block";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_blocks(kFn, count, blocklength, array_of_displacements, oldtype, newtype)) return e;
  return finish_new(kFn, Datatype::hindexed_block(count, blocklength, array_of_displacements, *oldtype), newtype);
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_create_resized";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_type(kFn, oldtype)) return e;
  if (newtype == nullptr) return arg_error(kFn, "newtype is NULL");
  return finish_new(kFn, Datatype::resized(*oldtype, lb, extent), newtype);
}

int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_dup";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_type(kFn, oldtype)) return e;
  if (newtype == nullptr) return arg_error(kFn, "newtype is NULL");
  if (int e = finish_new(kFn, Datatype::dup(*oldtype), newtype)) return e;
  if (int e = lz::rt::type_attributes_copy(kFn, oldtype, *newtype)) {
    lz::rt::type_attributes_delete_all(kFn, *newtype);
    Datatype::release(*newtype);
    *newtype = MPI_DATATYPE_NULL;
    return e;
  }
  return MPI_SUCCESS;
}

int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_create_subarray";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_type(kFn, oldtype)) return e;
  if (ndims <= 0) return arg_error(kFn, "ndims " + std::to_string(ndims) + " is not positive");
  if (array_of_sizes == nullptr || array_of_subsizes == nullptr || array_of_starts == nullptr)
    return arg_error(kFn, "NULL sizes, subsizes or starts array");
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return arg_error(kFn, "invalid order " + std::to_string(order) + " (MPI_ORDER_C or MPI_ORDER_FORTRAN)");
  if (newtype == nullptr) return arg_error(kFn, "newtype is NULL");
  return finish_new(
      kFn,
      Datatype::subarray(ndims, array_of_sizes, array_of_subsizes, array_of_starts, order == MPI_ORDER_C, *oldtype),
      newtype);
}

int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[],
                           const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_create_darray";
  LZ_MPI_ENTRY(kFn);
  static_assert(
      MPI_ORDER_C == Datatype::kOrderC && MPI_ORDER_FORTRAN == Datatype::kOrderFortran &&
          MPI_DISTRIBUTE_BLOCK == Datatype::kDistributeBlock && MPI_DISTRIBUTE_CYCLIC == Datatype::kDistributeCyclic &&
          MPI_DISTRIBUTE_NONE == Datatype::kDistributeNone && MPI_DISTRIBUTE_DFLT_DARG == Datatype::kDistributeDfltDarg,
      "the datatype engine records mpi.h's values");
  if (int e = check_type(kFn, oldtype)) return e;
  if (ndims <= 0) return arg_error(kFn, "ndims " + std::to_string(ndims) + " is not positive");
  if (array_of_gsizes == nullptr || array_of_distribs == nullptr || array_of_dargs == nullptr ||
      array_of_psizes == nullptr)
    return arg_error(kFn, "NULL gsizes, distribs, dargs or psizes array");
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return arg_error(kFn, "invalid order " + std::to_string(order) + " (MPI_ORDER_C or MPI_ORDER_FORTRAN)");
  if (newtype == nullptr) return arg_error(kFn, "newtype is NULL");
  return finish_new(kFn,
                    Datatype::darray(size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                                     array_of_psizes, order, *oldtype),
                    newtype);
}

int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  static constexpr const char* kFn = "MPI_Type_get_true_extent";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_type(kFn, datatype)) return e;
  if (true_lb == nullptr || true_extent == nullptr) return arg_error(kFn, "NULL output argument");
  *true_lb = datatype->true_lb();
  *true_extent = datatype->true_extent();
  return MPI_SUCCESS;
}

int MPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  static constexpr const char* kFn = "MPI_Type_set_name";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_type(kFn, datatype)) return e;
  if (type_name == nullptr) return arg_error(kFn, "type_name is NULL");
  // Longer names are truncated (MPI-3.1 section 6.8).
  datatype->set_label(std::string(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1)));
  return MPI_SUCCESS;
}

int MPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  static constexpr const char* kFn = "MPI_Type_get_name";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_type(kFn, datatype)) return e;
  if (type_name == nullptr || resultlen == nullptr) return arg_error(kFn, "NULL output argument");
  const std::string name = datatype->label();
  const size_t n = std::min(name.size(), static_cast<size_t>(MPI_MAX_OBJECT_NAME - 1));
  std::memcpy(type_name, name.data(), n);
  type_name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}

}  // extern "C"
