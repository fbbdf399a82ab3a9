// The calls of lazarus/checkpoint.h over a vendor MPI: argument checks (the
// same as Lazarus' own binding's, lazarus/frameworks/cr_app_args.h), the
// vendor datatype turned into the engine's (type_bridge.h), then the Session.
// Errors are printed with their reason (the vendor's error string knows only
// the class) and go through MPI_COMM_WORLD's error handler, as an MPI call's.
#include "lazarus/checkpoint.h"

#include <cstdio>
#include <string>

#include "ft_state.h"
#include "lazarus/frameworks/cr_app_args.h"
#include "type_bridge.h"

using namespace lz::ft;

namespace {

int error_class(const lz::Status& s) {
  switch (s.code()) {
    case lz::Code::kInvalidArgument:
    case lz::Code::kNotFound: return MPI_ERR_ARG;
    case lz::Code::kDataLoss:
    case lz::Code::kIo: return MPI_ERR_IO;
    case lz::Code::kUnimplemented: return MPI_ERR_TYPE;
    case lz::Code::kInternal: return MPI_ERR_INTERN;
    default: return MPI_ERR_OTHER;
  }
}

int fail(const char* fn, int cls, const std::string& why) {
  std::fprintf(stderr, "lazarus-ft: %s: %s\n", fn, why.c_str());
  PMPI_Comm_call_errhandler(MPI_COMM_WORLD, cls);
  return cls;
}

int fail(const char* fn, const lz::Status& s) { return fail(fn, error_class(s), s.message()); }

Session* session(const char* fn, int* rc) {
  Session* s = state().session.get();
  *rc = s != nullptr ? MPI_SUCCESS : fail(fn, MPI_ERR_OTHER, "called outside MPI_Init .. MPI_Finalize");
  return s;
}

int check_name(const char* fn, const char* name) {
  if (name == nullptr || *name == '\0') return fail(fn, MPI_ERR_ARG, "a variable needs a name (got an empty one)");
  return MPI_SUCCESS;
}

int add(const char* fn, Session* s, lz::cr::AppVariable v, MPI_Datatype type) {
  if (type == MPI_DATATYPE_NULL) return fail(fn, MPI_ERR_TYPE, "invalid datatype (MPI_DATATYPE_NULL)");
  auto t = engine_type(type);
  if (!t.ok()) return fail(fn, MPI_ERR_TYPE, "variable '" + v.name + "': " + t.status().message());
  v.type = *t;
  lz::Status st = s->add(std::move(v));
  return st.ok() ? MPI_SUCCESS : fail(fn, st);
}

}  // namespace

// The library is compiled with hidden visibility; these are its interface
// (ft.map lists the same names).
#pragma GCC visibility push(default)
extern "C" {

int LZ_Register(const char* name, void* addr, int count, MPI_Datatype type) {
  const char* fn = "LZ_Register";
  int rc;
  Session* s = session(fn, &rc);
  if (s == nullptr) return rc;
  if ((rc = check_name(fn, name)) != MPI_SUCCESS) return rc;
  if (count < 0) return fail(fn, MPI_ERR_COUNT, "variable '" + std::string(name) + "': invalid count " + std::to_string(count));
  if (addr == nullptr && count > 0) return fail(fn, MPI_ERR_BUFFER, "variable '" + std::string(name) + "': address is NULL");
  lz::cr::AppVariable v;
  v.name = name;
  v.addr = addr;
  v.count = count;
  return add(fn, s, std::move(v), type);
}

int LZ_Register_decomposed(const char* name, void* addr, MPI_Datatype type, int ndims, const int global_shape[],
                           const int owned_start[], const int owned_shape[], const int alloc_shape[],
                           const int alloc_offset[]) {
  const char* fn = "LZ_Register_decomposed";
  int rc;
  Session* s = session(fn, &rc);
  if (s == nullptr) return rc;
  if ((rc = check_name(fn, name)) != MPI_SUCCESS) return rc;
  lz::cr::AppVariable v;
  lz::cr::DecomposedError why = lz::cr::DecomposedError::kNone;
  lz::Status st = lz::cr::fill_decomposed(v, name, addr, ndims, global_shape, owned_start, owned_shape, alloc_shape,
                                          alloc_offset, &why);
  if (!st.ok())
    return fail(fn,
                why == lz::cr::DecomposedError::kDims    ? MPI_ERR_DIMS
                : why == lz::cr::DecomposedError::kCount ? MPI_ERR_COUNT
                                                         : MPI_ERR_ARG,
                st.message());
  return add(fn, s, std::move(v), type);
}

int LZ_Unregister(const char* name) {
  const char* fn = "LZ_Unregister";
  int rc;
  Session* s = session(fn, &rc);
  if (s == nullptr) return rc;
  if ((rc = check_name(fn, name)) != MPI_SUCCESS) return rc;
  lz::Status st = s->remove(name);
  return st.ok() ? MPI_SUCCESS : fail(fn, MPI_ERR_ARG, st.message());
}

int LZ_Restarting(int* flag) {
  int rc;
  Session* s = session("LZ_Restarting", &rc);
  if (s == nullptr) return rc;
  if (flag == nullptr) return fail("LZ_Restarting", MPI_ERR_ARG, "flag is NULL");
  *flag = s->restarting() ? 1 : 0;
  return MPI_SUCCESS;
}

int LZ_Restore(void) {
  int rc;
  Session* s = session("LZ_Restore", &rc);
  if (s == nullptr) return rc;
  lz::Status st = s->restore();
  return st.ok() ? MPI_SUCCESS : fail("LZ_Restore", st);
}

int LZ_Checkpoint(int* taken) {
  int rc;
  Session* s = session("LZ_Checkpoint", &rc);
  if (s == nullptr) return rc;
  auto t = s->safe_point(g_sent, g_received);
  if (!t.ok()) return fail("LZ_Checkpoint", t.status());
  if (taken != nullptr) *taken = *t ? 1 : 0;
  return MPI_SUCCESS;
}

}  // extern "C"
#pragma GCC visibility pop
