// MPI binding: the tool interface's performance variables, sessions and
// handles (MPI-3.1 section 14.3.7). The variables (pvars.cpp) are
// continuous: they count from the start of the process, and starting or
// stopping one is refused. A counter's or timer's handle reads what was
// counted since the handle was allocated or last reset or written (each
// handle keeps its own base); a level or high-water mark is the process's
// and read-only.
#include <algorithm>
#include <vector>

#include "mpi.h"
#include "mpi/tool/tool.h"

using lz::rt::tool::copy_out;
using lz::rt::tool::Pvar;
using lz::rt::tool::PvarValue;

struct lz_mpi_t_pvar_session_s {
  static constexpr uint32_t kMagic = 0x4c5a5453;  // "LZTS"
  uint32_t magic = kMagic;
  std::vector<lz_mpi_t_pvar_handle_s*> handles;
};

struct lz_mpi_t_pvar_handle_s {
  static constexpr uint32_t kMagic = 0x4c5a5450;  // "LZTP"
  uint32_t magic = kMagic;
  lz_mpi_t_pvar_session_s* session = nullptr;
  int index = 0;
  PvarValue base;  // counters and timers: the value that reads as 0
};

// MPI_T_PVAR_ALL_HANDLES: every handle of the session (start, stop, reset).
lz_mpi_t_pvar_handle_s lz_mpi_t_pvar_all_handles;

namespace {

bool session_ok(MPI_T_pvar_session s) {
  return s != MPI_T_PVAR_SESSION_NULL && s->magic == lz_mpi_t_pvar_session_s::kMagic;
}

bool handle_in(MPI_T_pvar_session s, MPI_T_pvar_handle h) {
  return h != MPI_T_PVAR_HANDLE_NULL && h != MPI_T_PVAR_ALL_HANDLES && h->magic == lz_mpi_t_pvar_handle_s::kMagic &&
         h->session == s;
}

const Pvar& pvar_of(const lz::rt::tool::Tool& tool, MPI_T_pvar_handle h) {
  return tool.pvars[static_cast<size_t>(h->index)];
}

// What handle `h` of `p` reads now.
PvarValue value_of(const Pvar& p, MPI_T_pvar_handle h) {
  PvarValue v = p.read(p.arg);
  if (!p.readonly) {
    v.u -= h->base.u;
    v.d -= h->base.d;
  }
  return v;
}

void store(const Pvar& p, const PvarValue& v, void* buf) {
  if (p.is_double)
    *static_cast<double*>(buf) = v.d;
  else
    *static_cast<unsigned long long*>(buf) = v.u;
}

// The handle reads as `v` from now on.
void rebase(const Pvar& p, MPI_T_pvar_handle h, const PvarValue& v) {
  const PvarValue now = p.read(p.arg);
  h->base.u = now.u - v.u;
  h->base.d = now.d - v.d;
}

// Session and handle checks shared by the calls taking one handle.
#define LZ_MPI_T_PVAR_HANDLE(session, handle)                 \
  if (!session_ok(session)) return MPI_T_ERR_INVALID_SESSION; \
  if (!handle_in(session, handle)) return MPI_T_ERR_INVALID_HANDLE

}  // namespace

extern "C" {

int MPI_T_pvar_get_num(int* num_pvar) {
  LZ_MPI_T_ENTRY();
  if (num_pvar == nullptr) return MPI_ERR_ARG;
  *num_pvar = static_cast<int>(tool.pvars.size());
  return MPI_SUCCESS;
}

int MPI_T_pvar_get_info(int pvar_index, char* name, int* name_len, int* verbosity, int* var_class,
                        MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len, int* binding,
                        int* readonly, int* continuous, int* atomic) {
  LZ_MPI_T_ENTRY();
  if (pvar_index < 0 || pvar_index >= static_cast<int>(tool.pvars.size())) return MPI_T_ERR_INVALID_INDEX;
  const Pvar& p = tool.pvars[static_cast<size_t>(pvar_index)];
  copy_out(p.name, name, name_len);
  copy_out(p.desc, desc, desc_len);
  if (verbosity != nullptr) *verbosity = p.verbosity;
  if (var_class != nullptr) *var_class = p.var_class;
  if (datatype != nullptr) *datatype = p.is_double ? MPI_DOUBLE : MPI_UNSIGNED_LONG_LONG;
  if (enumtype != nullptr) *enumtype = MPI_T_ENUM_NULL;
  if (binding != nullptr) *binding = MPI_T_BIND_NO_OBJECT;
  if (readonly != nullptr) *readonly = p.readonly ? 1 : 0;
  if (continuous != nullptr) *continuous = 1;
  if (atomic != nullptr) *atomic = 1;  // MPI_T_pvar_readreset reads the value once
  return MPI_SUCCESS;
}

int MPI_T_pvar_get_index(const char* name, int var_class, int* pvar_index) {
  LZ_MPI_T_ENTRY();
  if (name == nullptr || pvar_index == nullptr) return MPI_ERR_ARG;
  for (size_t i = 0; i < tool.pvars.size(); ++i)
    if (tool.pvars[i].var_class == var_class && tool.pvars[i].name == name) {
      *pvar_index = static_cast<int>(i);
      return MPI_SUCCESS;
    }
  return MPI_T_ERR_INVALID_NAME;
}

int MPI_T_pvar_session_create(MPI_T_pvar_session* session) {
  LZ_MPI_T_ENTRY();
  if (session == nullptr) return MPI_ERR_ARG;
  *session = new lz_mpi_t_pvar_session_s;
  return MPI_SUCCESS;
}

int MPI_T_pvar_session_free(MPI_T_pvar_session* session) {
  LZ_MPI_T_ENTRY();
  if (session == nullptr || !session_ok(*session)) return MPI_T_ERR_INVALID_SESSION;
  for (lz_mpi_t_pvar_handle_s* h : (*session)->handles) {
    h->magic = 0;
    delete h;
  }
  (*session)->magic = 0;
  delete *session;
  *session = MPI_T_PVAR_SESSION_NULL;
  return MPI_SUCCESS;
}

int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void* /*obj_handle: no binding*/,
                            MPI_T_pvar_handle* handle, int* count) {
  LZ_MPI_T_ENTRY();
  if (!session_ok(session)) return MPI_T_ERR_INVALID_SESSION;
  if (pvar_index < 0 || pvar_index >= static_cast<int>(tool.pvars.size())) return MPI_T_ERR_INVALID_INDEX;
  if (handle == nullptr || count == nullptr) return MPI_ERR_ARG;
  auto* h = new lz_mpi_t_pvar_handle_s;
  h->session = session;
  h->index = pvar_index;
  const Pvar& p = pvar_of(tool, h);
  h->base = p.read(p.arg);  // a counter starts at 0
  session->handles.push_back(h);
  *handle = h;
  *count = 1;
  return MPI_SUCCESS;
}

int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  LZ_MPI_T_ENTRY();
  if (!session_ok(session)) return MPI_T_ERR_INVALID_SESSION;
  if (handle == nullptr || !handle_in(session, *handle)) return MPI_T_ERR_INVALID_HANDLE;
  auto& hs = session->handles;
  hs.erase(std::find(hs.begin(), hs.end(), *handle));
  (*handle)->magic = 0;
  delete *handle;
  *handle = MPI_T_PVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}

// Every variable is continuous: a start or stop of one is refused; of all
// the session's handles it has nothing to do.
int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  LZ_MPI_T_ENTRY();
  if (!session_ok(session)) return MPI_T_ERR_INVALID_SESSION;
  if (handle == MPI_T_PVAR_ALL_HANDLES) return MPI_SUCCESS;
  if (!handle_in(session, handle)) return MPI_T_ERR_INVALID_HANDLE;
  return MPI_T_ERR_PVAR_NO_STARTSTOP;
}

int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) { return MPI_T_pvar_start(session, handle); }

int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  LZ_MPI_T_ENTRY();
  LZ_MPI_T_PVAR_HANDLE(session, handle);
  if (buf == nullptr) return MPI_ERR_ARG;
  const Pvar& p = pvar_of(tool, handle);
  store(p, value_of(p, handle), buf);
  return MPI_SUCCESS;
}

int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void* buf) {
  LZ_MPI_T_ENTRY();
  LZ_MPI_T_PVAR_HANDLE(session, handle);
  if (buf == nullptr) return MPI_ERR_ARG;
  const Pvar& p = pvar_of(tool, handle);
  if (p.readonly) return MPI_T_ERR_PVAR_NO_WRITE;
  PvarValue v;
  if (p.is_double)
    v.d = *static_cast<const double*>(buf);
  else
    v.u = *static_cast<const unsigned long long*>(buf);
  rebase(p, handle, v);
  return MPI_SUCCESS;
}

int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  LZ_MPI_T_ENTRY();
  if (!session_ok(session)) return MPI_T_ERR_INVALID_SESSION;
  if (handle == MPI_T_PVAR_ALL_HANDLES) {
    for (lz_mpi_t_pvar_handle_s* h : session->handles)
      if (const Pvar& p = pvar_of(tool, h); !p.readonly) rebase(p, h, PvarValue{});
    return MPI_SUCCESS;
  }
  if (!handle_in(session, handle)) return MPI_T_ERR_INVALID_HANDLE;
  const Pvar& p = pvar_of(tool, handle);
  if (p.readonly) return MPI_T_ERR_PVAR_NO_WRITE;
  rebase(p, handle, PvarValue{});
  return MPI_SUCCESS;
}

int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  LZ_MPI_T_ENTRY();
  LZ_MPI_T_PVAR_HANDLE(session, handle);
  if (buf == nullptr) return MPI_ERR_ARG;
  const Pvar& p = pvar_of(tool, handle);
  if (p.readonly) return MPI_T_ERR_PVAR_NO_WRITE;
  const PvarValue now = p.read(p.arg);
  PvarValue v{now.u - handle->base.u, now.d - handle->base.d};
  store(p, v, buf);
  handle->base = now;
  return MPI_SUCCESS;
}

}  // extern "C"
