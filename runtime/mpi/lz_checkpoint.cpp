// The application-level checkpoint calls of lazarus/checkpoint.h: argument
// checks, then the rank's AppService (runtime/cr/app_service.h). Each is an
// MPI entry (the checkpoint entry lock serialises it with the CR thread) and
// reports errors through MPI_COMM_WORLD's error handler.
#include "lazarus/checkpoint.h"

#include <string>

#include "cr/app_service.h"
#include "entry.h"
#include "errors.h"
#include "lazarus/datatype/datatype.h"

using lz::rt::mpi_error;

namespace {

int check_type(const char* fn, MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_TYPE, "invalid datatype (MPI_DATATYPE_NULL)");
  if (!type->is_committed())
    return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_TYPE, "datatype " + type->name() + " is not committed");
  return MPI_SUCCESS;
}

int check_name(const char* fn, const char* name) {
  if (name == nullptr || *name == '\0')
    return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG, "a variable needs a name (got an empty one)");
  return MPI_SUCCESS;
}

int add(const char* fn, lz::cr::AppVariable v, MPI_Datatype type) {
  v.type = type;
  type->retain();
  lz::Status s = lz::rt::app_service()->add(std::move(v));
  if (!s.ok()) {
    lz_datatype_s::release(type);
    return mpi_error(MPI_COMM_WORLD, fn, s);
  }
  return MPI_SUCCESS;
}

std::string dim(const char* what, int d) { return std::string(what) + "[" + std::to_string(d) + "]"; }

}  // namespace

extern "C" {

int LZ_Register(const char* name, void* addr, int count, MPI_Datatype type) {
  LZ_MPI_ENTRY("LZ_Register");
  if (int rc = check_name("LZ_Register", name); rc != MPI_SUCCESS) return rc;
  if (int rc = check_type("LZ_Register", type); rc != MPI_SUCCESS) return rc;
  if (count < 0)
    return mpi_error(MPI_COMM_WORLD, "LZ_Register", MPI_ERR_COUNT,
                     "variable '" + std::string(name) + "': invalid count " + std::to_string(count));
  if (addr == nullptr && count > 0)
    return mpi_error(MPI_COMM_WORLD, "LZ_Register", MPI_ERR_BUFFER, "variable '" + std::string(name) + "': address is NULL");
  lz::cr::AppVariable v;
  v.name = name;
  v.addr = addr;
  v.count = count;
  return add("LZ_Register", std::move(v), type);
}

int LZ_Register_decomposed(const char* name, void* addr, MPI_Datatype type, int ndims, const int global_shape[],
                           const int owned_start[], const int owned_shape[], const int alloc_shape[],
                           const int alloc_offset[]) {
  const char* fn = "LZ_Register_decomposed";
  LZ_MPI_ENTRY("LZ_Register_decomposed");
  if (int rc = check_name(fn, name); rc != MPI_SUCCESS) return rc;
  if (int rc = check_type(fn, type); rc != MPI_SUCCESS) return rc;
  const std::string var = "variable '" + std::string(name) + "': ";
  if (ndims < 1 || ndims > 32)
    return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_DIMS, var + "ndims must be 1..32, not " + std::to_string(ndims));
  if (addr == nullptr || global_shape == nullptr || owned_start == nullptr || owned_shape == nullptr)
    return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG,
                     var + "addr, global_shape, owned_start and owned_shape must not be NULL");
  lz::cr::AppVariable v;
  v.name = name;
  v.addr = addr;
  int64_t count = 1;
  for (int d = 0; d < ndims; ++d) {
    const int g = global_shape[d], s = owned_start[d], o = owned_shape[d];
    const int a = alloc_shape != nullptr ? alloc_shape[d] : o;
    const int off = alloc_offset != nullptr ? alloc_offset[d] : 0;
    std::string bad;
    if (g < 1) bad = dim("global_shape", d) + " = " + std::to_string(g) + " (must be >= 1)";
    else if (o < 0 || s < 0 || s + o > g)
      bad = "the owned block " + dim("owned_start", d) + " = " + std::to_string(s) + ", " + dim("owned_shape", d) +
            " = " + std::to_string(o) + " does not fit in " + dim("global_shape", d) + " = " + std::to_string(g);
    else if (off < 0 || a < off + o)
      bad = "the owned block (" + dim("alloc_offset", d) + " = " + std::to_string(off) + ", " +
            dim("owned_shape", d) + " = " + std::to_string(o) + ") does not fit in " + dim("alloc_shape", d) +
            " = " + std::to_string(a);
    if (!bad.empty()) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG, var + bad);
    v.global_shape.push_back(g);
    v.owned_start.push_back(s);
    v.owned_shape.push_back(o);
    v.alloc_shape.push_back(a);
    v.alloc_offset.push_back(off);
    count *= a;
  }
  if (count > INT32_MAX)
    return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_COUNT, var + "the allocation holds more than INT_MAX elements");
  v.count = count;
  return add(fn, std::move(v), type);
}

int LZ_Unregister(const char* name) {
  LZ_MPI_ENTRY("LZ_Unregister");
  if (int rc = check_name("LZ_Unregister", name); rc != MPI_SUCCESS) return rc;
  lz::Status s = lz::rt::app_service()->remove(name);
  if (s.ok()) return MPI_SUCCESS;
  // A name that is not registered is a bad argument, as a duplicate one is for LZ_Register.
  return mpi_error(MPI_COMM_WORLD, "LZ_Unregister", s.code() == lz::Code::kNotFound ? MPI_ERR_ARG : lz::rt::mpi_class_of(s),
                   s.message());
}

int LZ_Restarting(int* flag) {
  LZ_MPI_ENTRY("LZ_Restarting");
  if (flag == nullptr) return mpi_error(MPI_COMM_WORLD, "LZ_Restarting", MPI_ERR_ARG, "flag is NULL");
  *flag = lz::rt::app_service()->restarting() ? 1 : 0;
  return MPI_SUCCESS;
}

int LZ_Restore(void) {
  LZ_MPI_ENTRY("LZ_Restore");
  lz::Status s = lz::rt::app_service()->restore();
  return s.ok() ? MPI_SUCCESS : mpi_error(MPI_COMM_WORLD, "LZ_Restore", s);
}

int LZ_Checkpoint(int* taken) {
  LZ_MPI_ENTRY("LZ_Checkpoint");
  auto t = lz::rt::app_service()->safe_point();
  if (!t.ok()) return mpi_error(MPI_COMM_WORLD, "LZ_Checkpoint", t.status());
  if (taken != nullptr) *taken = *t ? 1 : 0;
  return MPI_SUCCESS;
}

}  // extern "C"
