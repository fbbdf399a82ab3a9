// MPI binding: the MPI-4.0 large-count datatype calls: the constructors
// (the datatype engine's 64-bit ones, which record their counts as large
// counts), sizes and extents, external32 packing and MPI_Op_create_c.
// MPI_Pack_c / _Unpack_c / _Pack_size_c are in mpi_datatype.cpp and the
// decoding calls in mpi_type_contents.cpp, with their int twins.
#include <string>
#include <vector>

#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"
#include "mpi.h"
#include "mpi/datatype/type_args.h"
#include "mpi/large_count.h"

namespace {

using lz::dt::Datatype;
using lz::rt::type_args::arg_error;
using lz::rt::type_args::check_type;
using lz::rt::type_args::finish_new;

int check_count(const char* fn, MPI_Count count) {
  if (count < 0) return lz::rt::mpi_error(MPI_COMM_NULL, fn, MPI_ERR_COUNT, "invalid count " + std::to_string(count));
  return MPI_SUCCESS;
}

// The common checks of the constructors over one old type.
int check_new(const char* fn, MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  if (int e = check_count(fn, count)) return e;
  if (int e = check_type(fn, oldtype)) return e;
  if (newtype == nullptr) return arg_error(fn, "newtype is NULL");
  return MPI_SUCCESS;
}

// MPI_Count arrays as the engine's int64_t (both 64-bit; distinct types).
const int64_t* i64(const MPI_Count* a) {
  static_assert(sizeof(MPI_Count) == sizeof(int64_t), "MPI_Count is 64-bit");
  return reinterpret_cast<const int64_t*>(a);
}

}  // namespace

extern "C" {

int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_contiguous_c";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_new(kFn, count, oldtype, newtype)) return e;
  return finish_new(kFn, Datatype::contiguous_c(count, *oldtype), newtype);
}

int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                      MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_vector_c";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_new(kFn, count, oldtype, newtype)) return e;
  return finish_new(kFn, Datatype::vector_c(count, blocklength, stride, *oldtype), newtype);
}

int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                              MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_create_hvector_c";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_new(kFn, count, oldtype, newtype)) return e;
  return finish_new(kFn, Datatype::hvector_c(count, blocklength, stride, *oldtype), newtype);
}

int MPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                       const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_indexed_c";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_new(kFn, count, oldtype, newtype)) return e;
  if (count > 0 && (array_of_blocklengths == nullptr || array_of_displacements == nullptr))
    return arg_error(kFn, "NULL block length or displacement array");
  return finish_new(kFn, Datatype::indexed_c(count, i64(array_of_blocklengths), i64(array_of_displacements), *oldtype),
                    newtype);
}

int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                               const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_create_hindexed_c";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_new(kFn, count, oldtype, newtype)) return e;
  if (count > 0 && (array_of_blocklengths == nullptr || array_of_displacements == nullptr))
    return arg_error(kFn, "NULL block length or displacement array");
  return finish_new(kFn, Datatype::hindexed_c(count, i64(array_of_blocklengths), i64(array_of_displacements), *oldtype),
                    newtype);
}

int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_create_indexed_block_c";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_new(kFn, count, oldtype, newtype)) return e;
  if (count > 0 && array_of_displacements == nullptr) return arg_error(kFn, "NULL displacement array");
  return finish_new(kFn, Datatype::indexed_block_c(count, blocklength, i64(array_of_displacements), *oldtype), newtype);
}

int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
                                     MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_create_hindexed_block_c";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_new(kFn, count, oldtype, newtype)) return e;
  if (count > 0 && array_of_displacements == nullptr) return arg_error(kFn, "NULL displacement array");
  return finish_new(kFn, Datatype::hindexed_block_c(count, blocklength, i64(array_of_displacements), *oldtype),
                    newtype);
}

int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                             const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[],
                             MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_create_struct_c";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_count(kFn, count)) return e;
  if (newtype == nullptr) return arg_error(kFn, "newtype is NULL");
  if (count > 0 && (array_of_blocklengths == nullptr || array_of_displacements == nullptr || array_of_types == nullptr))
    return arg_error(kFn, "NULL block length, displacement or type array");
  for (MPI_Count i = 0; i < count; ++i) {
    if (array_of_types[i] == MPI_DATATYPE_NULL)
      return lz::rt::mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_TYPE,
                               "array_of_types[" + std::to_string(i) + "] is MPI_DATATYPE_NULL");
  }
  return finish_new(
      kFn, Datatype::struct_c(count, i64(array_of_blocklengths), i64(array_of_displacements), array_of_types), newtype);
}

int MPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[],
                               const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                               MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_create_subarray_c";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_type(kFn, oldtype)) return e;
  if (ndims <= 0) return arg_error(kFn, "ndims " + std::to_string(ndims) + " is not positive");
  if (array_of_sizes == nullptr || array_of_subsizes == nullptr || array_of_starts == nullptr)
    return arg_error(kFn, "NULL sizes, subsizes or starts array");
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return arg_error(kFn, "invalid order " + std::to_string(order) + " (MPI_ORDER_C or MPI_ORDER_FORTRAN)");
  if (newtype == nullptr) return arg_error(kFn, "newtype is NULL");
  return finish_new(kFn,
                    Datatype::subarray_c(ndims, i64(array_of_sizes), i64(array_of_subsizes), i64(array_of_starts),
                                         order == MPI_ORDER_C, *oldtype),
                    newtype);
}

// The darray's process grid and blocks are ints; its global sizes are
// counts, which must fit in an int (the engine's darray runs are ints).
int MPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                             const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[],
                             int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_create_darray_c";
  LZ_LARGE_ENTRY(kFn);
  if (newtype == nullptr) return arg_error(kFn, "newtype is NULL");
  std::vector<int> gsizes;
  if (array_of_gsizes != nullptr && ndims > 0) {
    for (int d = 0; d < ndims; ++d) {
      if (!lz::rt::large::fits_int(array_of_gsizes[d]))
        return lz::rt::large::beyond_int(kFn, MPI_COMM_NULL, ("array_of_gsizes[" + std::to_string(d) + "]").c_str(),
                                         array_of_gsizes[d]);
      gsizes.push_back(static_cast<int>(array_of_gsizes[d]));
    }
  }
  int e = MPI_Type_create_darray(size, rank, ndims, array_of_gsizes != nullptr ? gsizes.data() : nullptr,
                                 array_of_distribs, array_of_dargs, array_of_psizes, order, oldtype, newtype);
  if (e != MPI_SUCCESS) return e;
  // MPI-4.0's layout of a darray_c: the ints but gsizes, then gsizes as large counts.
  std::vector<int> ints{size, rank, ndims};
  for (const int* a : {array_of_distribs, array_of_dargs, array_of_psizes}) ints.insert(ints.end(), a, a + ndims);
  ints.push_back(order);
  (*newtype)->record_large(std::move(ints), std::vector<int64_t>(array_of_gsizes, array_of_gsizes + ndims));
  return MPI_SUCCESS;
}

int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_create_resized_c";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_type(kFn, oldtype)) return e;
  if (newtype == nullptr) return arg_error(kFn, "newtype is NULL");
  return finish_new(kFn, Datatype::resized_c(*oldtype, lb, extent), newtype);
}

// Sizes and extents: the _x calls' answers (64-bit already).
int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) {
  LZ_LARGE_ENTRY("MPI_Type_size_c");
  return MPI_Type_size_x(datatype, size);
}

int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  LZ_LARGE_ENTRY("MPI_Type_get_extent_c");
  return MPI_Type_get_extent_x(datatype, lb, extent);
}

int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  LZ_LARGE_ENTRY("MPI_Type_get_true_extent_c");
  return MPI_Type_get_true_extent_x(datatype, true_lb, true_extent);
}

// external32: positions and sizes are MPI_Aint in the int calls (64-bit).
int MPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype, MPI_Count* size) {
  static constexpr const char* kFn = "MPI_Pack_external_size_c";
  LZ_LARGE_ENTRY(kFn);
  if (size == nullptr) return arg_error(kFn, "size is NULL");
  lz::rt::large::Count c(incount, datatype);
  if (int e = c.check(kFn, MPI_COMM_NULL, "incount")) return e;
  MPI_Aint n = 0;
  int e = MPI_Pack_external_size(datarep, c.count(), c.type(), &n);
  if (e == MPI_SUCCESS) *size = n;
  return e;
}

int MPI_Pack_external_c(const char datarep[], const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
                        MPI_Count outsize, MPI_Count* position) {
  static constexpr const char* kFn = "MPI_Pack_external_c";
  LZ_LARGE_ENTRY(kFn);
  if (position == nullptr) return arg_error(kFn, "invalid position");
  lz::rt::large::Count c(incount, datatype);
  if (int e = c.check(kFn, MPI_COMM_NULL, "incount")) return e;
  MPI_Aint at = static_cast<MPI_Aint>(*position);
  int e = MPI_Pack_external(datarep, inbuf, c.count(), c.type(), outbuf, static_cast<MPI_Aint>(outsize), &at);
  if (e == MPI_SUCCESS) *position = at;
  return e;
}

int MPI_Unpack_external_c(const char datarep[], const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
                          MPI_Count outcount, MPI_Datatype datatype) {
  static constexpr const char* kFn = "MPI_Unpack_external_c";
  LZ_LARGE_ENTRY(kFn);
  if (position == nullptr) return arg_error(kFn, "invalid position");
  lz::rt::large::Count c(outcount, datatype);
  if (int e = c.check(kFn, MPI_COMM_NULL, "outcount")) return e;
  MPI_Aint at = static_cast<MPI_Aint>(*position);
  int e = MPI_Unpack_external(datarep, inbuf, static_cast<MPI_Aint>(insize), &at, outbuf, c.count(), c.type());
  if (e == MPI_SUCCESS) *position = at;
  return e;
}

int MPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
  static constexpr const char* kFn = "MPI_Op_create_c";
  LZ_MPI_ENTRY(kFn);
  if (user_fn == nullptr) return lz::rt::mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG, "user function is NULL");
  if (op == nullptr) return lz::rt::mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG, "op is NULL");
  *op = lz_op_s::create_user_c(user_fn, commute != 0);
  return MPI_SUCCESS;
}

}  // extern "C"
