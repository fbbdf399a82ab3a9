// MPI binding: datatype constructors, queries, MPI_Pack / MPI_Unpack.
// Errors are not tied to a communicator (MPI_COMM_WORLD's handler applies),
// except MPI_Pack/Unpack, which name theirs.
#include <climits>
#include <string>
#include <vector>

#include "lazarus/datatype/datatype.h"
#include "mpi.h"
#include "mpi/datatype/type_attributes.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "mpi/large_count.h"
#include "p2p/comm.h"

namespace {

using lz::dt::Datatype;
using lz::rt::mpi_error;

int type_error(const char* fn, const std::string& msg) { return mpi_error(MPI_COMM_NULL, fn, MPI_ERR_TYPE, msg); }

int check_old(const char* fn, MPI_Datatype t) {
  if (t == MPI_DATATYPE_NULL) return type_error(fn, "invalid datatype (MPI_DATATYPE_NULL)");
  return MPI_SUCCESS;
}

int finish_new(const char* fn, lz::StatusOr<Datatype*> t, MPI_Datatype* newtype) {
  if (newtype == nullptr) {
    if (t.ok()) Datatype::release(*t);
    return mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "newtype is NULL");
  }
  if (!t.ok()) return mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, t.status().message());
  *newtype = *t;
  return MPI_SUCCESS;
}

// A byte count as an int, or -1 when it does not fit.
int as_int(size_t v) { return v > static_cast<size_t>(INT_MAX) ? -1 : static_cast<int>(v); }

}  // namespace

namespace lz::rt::large {

namespace {

// The checks MPI_Pack, MPI_Unpack and MPI_Pack_size share: communicator,
// count, datatype.
int check_pack_args(const char* kFn, MPI_Count count, MPI_Datatype datatype, MPI_Comm comm) {
  if (comm == MPI_COMM_NULL || !comm->valid())
    return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_COMM, "invalid communicator");
  if (count < 0) return mpi_error(comm, kFn, MPI_ERR_COUNT, "invalid count " + std::to_string(count));
  if (datatype == MPI_DATATYPE_NULL) return mpi_error(comm, kFn, MPI_ERR_TYPE, "invalid datatype (MPI_DATATYPE_NULL)");
  return MPI_SUCCESS;
}

// And those MPI_Pack and MPI_Unpack add: a committed type, a valid position.
int check_position(const char* kFn, MPI_Datatype datatype, const MPI_Count* position, MPI_Comm comm) {
  if (!datatype->is_committed())
    return mpi_error(comm, kFn, MPI_ERR_TYPE, "datatype " + datatype->name() + " is not committed");
  if (position == nullptr || *position < 0) return mpi_error(comm, kFn, MPI_ERR_ARG, "invalid position");
  return MPI_SUCCESS;
}

}  // namespace

int pack(const char* kFn, const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
         MPI_Count outsize, MPI_Count* position, MPI_Comm comm) {
  if (int e = check_pack_args(kFn, incount, datatype, comm)) return e;
  if (int e = check_position(kFn, datatype, position, comm)) return e;
  const size_t need = datatype->size() * static_cast<size_t>(incount);
  if (static_cast<size_t>(*position) + need > static_cast<size_t>(outsize < 0 ? 0 : outsize))
    return mpi_error(comm, kFn, MPI_ERR_TRUNCATE,
                     "output buffer of " + std::to_string(outsize) + " bytes is too small: position " +
                         std::to_string(*position) + " + " + std::to_string(need) + " bytes");
  Count c(incount, datatype);
  if (int e = c.check(kFn, comm, "incount")) return e;
  c.type()->pack(inbuf, c.count(), static_cast<char*>(outbuf) + *position);
  *position += static_cast<MPI_Count>(need);
  return MPI_SUCCESS;
}

int pack_size(const char* kFn, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
  if (int e = check_pack_args(kFn, incount, datatype, comm)) return e;
  *size = static_cast<MPI_Count>(datatype->size() * static_cast<size_t>(incount));
  return MPI_SUCCESS;
}

int unpack(const char* kFn, const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
           MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
  if (int e = check_pack_args(kFn, outcount, datatype, comm)) return e;
  if (int e = check_position(kFn, datatype, position, comm)) return e;
  const size_t need = datatype->size() * static_cast<size_t>(outcount);
  if (static_cast<size_t>(*position) + need > static_cast<size_t>(insize < 0 ? 0 : insize))
    return mpi_error(comm, kFn, MPI_ERR_TRUNCATE,
                     "input buffer of " + std::to_string(insize) + " bytes holds less than position " +
                         std::to_string(*position) + " + " + std::to_string(need) + " bytes");
  Count c(outcount, datatype);
  if (int e = c.check(kFn, comm, "outcount")) return e;
  c.type()->unpack(static_cast<const char*>(inbuf) + *position, need, c.count(), outbuf);
  *position += static_cast<MPI_Count>(need);
  return MPI_SUCCESS;
}

}  // namespace lz::rt::large

extern "C" {

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_contiguous";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_old(kFn, oldtype)) return e;
  return finish_new(kFn, Datatype::contiguous(count, *oldtype), newtype);
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_vector";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_old(kFn, oldtype)) return e;
  return finish_new(kFn, Datatype::vector(count, blocklength, stride, *oldtype), newtype);
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_create_hvector";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_old(kFn, oldtype)) return e;
  return finish_new(kFn, Datatype::hvector(count, blocklength, stride, *oldtype), newtype);
}

int MPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[],
                     MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_indexed";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_old(kFn, oldtype)) return e;
  if (count > 0 && (array_of_blocklengths == nullptr || array_of_displacements == nullptr))
    return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG, "NULL block length or displacement array");
  return finish_new(kFn, Datatype::indexed(count, array_of_blocklengths, array_of_displacements, *oldtype), newtype);
}

int MPI_Type_create_struct(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_create_struct";
  LZ_MPI_ENTRY(kFn);
  if (count > 0 && (array_of_blocklengths == nullptr || array_of_displacements == nullptr || array_of_types == nullptr))
    return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG, "NULL block length, displacement or type array");
  for (int i = 0; i < count; ++i) {
    if (array_of_types[i] == MPI_DATATYPE_NULL)
      return type_error(kFn, "array_of_types[" + std::to_string(i) + "] is MPI_DATATYPE_NULL");
  }
  return finish_new(kFn, Datatype::create_struct(count, array_of_blocklengths, array_of_displacements, array_of_types),
                    newtype);
}

int MPI_Type_commit(MPI_Datatype* datatype) {
  static constexpr const char* kFn = "MPI_Type_commit";
  LZ_MPI_ENTRY(kFn);
  if (datatype == nullptr || *datatype == MPI_DATATYPE_NULL) return type_error(kFn, "invalid datatype");
  (*datatype)->commit();
  return MPI_SUCCESS;
}

int MPI_Type_free(MPI_Datatype* datatype) {
  static constexpr const char* kFn = "MPI_Type_free";
  LZ_MPI_ENTRY(kFn);
  if (datatype == nullptr || *datatype == MPI_DATATYPE_NULL) return type_error(kFn, "invalid datatype");
  if ((*datatype)->is_predefined()) return type_error(kFn, "cannot free predefined datatype " + (*datatype)->name());
  if (int e = lz::rt::type_attributes_delete_all(kFn, *datatype)) return e;
  // Pending requests hold their own references: the type lives until they complete.
  Datatype::release(*datatype);
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

int MPI_Type_size(MPI_Datatype datatype, int* size) {
  static constexpr const char* kFn = "MPI_Type_size";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_old(kFn, datatype)) return e;
  if (size == nullptr) return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG, "size is NULL");
  *size = as_int(datatype->size());
  if (*size < 0) *size = MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  static constexpr const char* kFn = "MPI_Type_get_extent";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_old(kFn, datatype)) return e;
  if (lb == nullptr || extent == nullptr) return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG, "NULL output argument");
  *lb = datatype->lb();
  *extent = datatype->extent();
  return MPI_SUCCESS;
}

int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  static constexpr const char* kFn = "MPI_Type_size_x";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_old(kFn, datatype)) return e;
  if (size == nullptr) return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG, "size is NULL");
  *size = static_cast<MPI_Count>(datatype->size());
  return MPI_SUCCESS;
}

int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  static constexpr const char* kFn = "MPI_Type_get_extent_x";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_old(kFn, datatype)) return e;
  if (lb == nullptr || extent == nullptr) return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG, "NULL output argument");
  *lb = datatype->lb();
  *extent = datatype->extent();
  return MPI_SUCCESS;
}

int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  static constexpr const char* kFn = "MPI_Type_get_true_extent_x";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_old(kFn, datatype)) return e;
  if (true_lb == nullptr || true_extent == nullptr)
    return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG, "NULL output argument");
  *true_lb = datatype->true_lb();
  *true_extent = datatype->true_extent();
  return MPI_SUCCESS;
}

int MPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize, int* position,
             MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Pack";
  LZ_MPI_ENTRY(kFn);
  MPI_Count at = position != nullptr ? *position : -1;
  int e = lz::rt::large::pack(kFn, inbuf, incount, datatype, outbuf, outsize, position != nullptr ? &at : nullptr,
                              comm);
  if (e == MPI_SUCCESS) *position = static_cast<int>(at);  // at most outsize
  return e;
}

int MPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount, MPI_Datatype datatype,
               MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Unpack";
  LZ_MPI_ENTRY(kFn);
  MPI_Count at = position != nullptr ? *position : -1;
  int e = lz::rt::large::unpack(kFn, inbuf, insize, position != nullptr ? &at : nullptr, outbuf, outcount, datatype,
                                comm);
  if (e == MPI_SUCCESS) *position = static_cast<int>(at);  // at most insize
  return e;
}

int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  static constexpr const char* kFn = "MPI_Pack_size";
  LZ_MPI_ENTRY(kFn);
  if (size == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "size is NULL");
  MPI_Count bytes = 0;
  if (int e = lz::rt::large::pack_size(kFn, incount, datatype, comm, &bytes)) return e;
  if (bytes > INT_MAX)
    return mpi_error(comm, kFn, MPI_ERR_COUNT,
                     "packed size " + std::to_string(bytes) + " does not fit in an int (MPI_Pack_size_c tells it)");
  *size = static_cast<int>(bytes);
  return MPI_SUCCESS;
}

int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
  static constexpr const char* kFn = "MPI_Pack_size_c";
  LZ_MPI_ENTRY(kFn);
  if (size == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "size is NULL");
  return lz::rt::large::pack_size(kFn, incount, datatype, comm, size);
}

int MPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf, MPI_Count outsize,
               MPI_Count* position, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Pack_c";
  LZ_MPI_ENTRY(kFn);
  return lz::rt::large::pack(kFn, inbuf, incount, datatype, outbuf, outsize, position, comm);
}

int MPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf, MPI_Count outcount,
                 MPI_Datatype datatype, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Unpack_c";
  LZ_MPI_ENTRY(kFn);
  return lz::rt::large::unpack(kFn, inbuf, insize, position, outbuf, outcount, datatype, comm);
}

}  // extern "C"
