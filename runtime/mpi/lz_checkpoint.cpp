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
#include "lazarus/frameworks/cr_app_args.h"
#include "mpi/io/file_record.h"
#include "p2p/runtime.h"

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
  type->retain();  // the service's list holds it (and releases it on error)
  lz::Status s = lz::rt::app_service()->add(std::move(v));
  return s.ok() ? MPI_SUCCESS : mpi_error(MPI_COMM_WORLD, fn, s);
}

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
  lz::cr::AppVariable v;
  lz::cr::DecomposedError why = lz::cr::DecomposedError::kNone;
  lz::Status s = lz::cr::fill_decomposed(v, name, addr, ndims, global_shape, owned_start, owned_shape, alloc_shape,
                                         alloc_offset, &why);
  if (!s.ok())
    return mpi_error(MPI_COMM_WORLD, fn,
                     why == lz::cr::DecomposedError::kDims    ? MPI_ERR_DIMS
                     : why == lz::cr::DecomposedError::kCount ? MPI_ERR_COUNT
                                                              : MPI_ERR_ARG,
                     s.message());
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
  lz::rt::AppService* app = lz::rt::app_service();
  lz::Status s = app->restore();
  // The first call reads the open MPI files' records, for the files the
  // program opens again (or has open already).
  static bool files_loaded = false;
  if (s.ok() && !files_loaded && app->active()) {
    lz::rt::Runtime& r = lz::rt::runtime();
    s = lz::rt::io::load_file_records(app->restart_dir(), app->restart_nranks(), r.rank(), r.size());
    files_loaded = s.ok();
  }
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
