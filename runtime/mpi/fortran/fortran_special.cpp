// The Fortran entry points that the table of fortran.tbl cannot describe:
// MPI_Init without argc/argv, the functions (MPI_WTIME, MPI_AINT_ADD ...),
// user callbacks (reduction ops, error handlers, keyval copy/delete written
// in Fortran) and attributes, whose values Fortran holds as integers; of
// communicators, datatypes and windows alike.
#include <array>
#include <atomic>
#include <cstdarg>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "mpi.h"
#include "mpi/fortran/f08_sections.h"
#include "mpi/fortran/fortran_args.h"
#include "mpi/fortran/handle_table.h"
#include "mpi/keyval.h"

using namespace lz::fortran;

extern "C" {

void mpi_init_(MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  *ierror = MPI_Init(nullptr, nullptr);
}

void mpi_init_thread_(const MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  *ierror = MPI_Init_thread(nullptr, nullptr, *required, provided);
}

double mpi_wtime_() { return MPI_Wtime(); }
double mpi_wtick_() { return MPI_Wtick(); }
void mpi_pcontrol_(const MPI_Fint* level) { MPI_Pcontrol(*level); }

MPI_Aint mpi_aint_add_(const MPI_Aint* base, const MPI_Aint* disp) { return MPI_Aint_add(*base, *disp); }
MPI_Aint mpi_aint_diff_(const MPI_Aint* a, const MPI_Aint* b) { return MPI_Aint_diff(*a, *b); }

// The real address, MPI_BOTTOM's included: Fortran programs build absolute
// displacements with it and communicate from MPI_BOTTOM (which C sees as 0).
void mpi_get_address_(void* location, MPI_Aint* address, MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  *ierror = MPI_Get_address(location, address);
}

// MPI_COMM_IDUP: C writes the new communicator when the request completes,
// into storage of the binding's; the Fortran variable gets its value when a
// completion call (MPI_WAIT, MPI_TEST ...) sees the request complete
// (request_done). Until then it holds MPI_COMM_NULL.
void mpi_comm_idup_(const MPI_Fint* comm, MPI_Fint* newcomm, MPI_Fint* request, MPI_Fint* ierror);

// MPI_F_SYNC_REG (MPI-3.1 section 17.1.17): does nothing, but the compiler
// must assume it reads and writes `buf`, so a variable MPI writes behind the
// program's back (a non-blocking receive's buffer, an MPI_BOTTOM datatype's
// member) is not kept in a register across the calls that complete it.
void mpi_f_sync_reg_(void* buf) { (void)buf; }

void mpi_buffer_detach_(void*, MPI_Fint* size, MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  void* addr = nullptr;
  *ierror = MPI_Buffer_detach(&addr, size);
}

}  // extern "C"

namespace {

struct PendingIdup {
  MPI_Fint* f_newcomm;
  MPI_Comm* c_newcomm;
};

struct PendingIdups {
  std::mutex mu;
  std::unordered_map<MPI_Fint, PendingIdup> by_request;
};

PendingIdups& pending_idups() {
  static auto* p = new PendingIdups();
  return *p;
}

}  // namespace

void lz::fortran::request_done(MPI_Fint request) {
#ifdef LZ_F08_SECTIONS
  sections_done(request);  // mpi_f08's non-contiguous sections (f08_sections.h)
#endif
  PendingIdup done{};
  {
    auto& p = pending_idups();
    std::lock_guard<std::mutex> lock(p.mu);
    auto it = p.by_request.find(request);
    if (it == p.by_request.end()) return;
    done = it->second;
    p.by_request.erase(it);
  }
  *done.f_newcomm = MPI_Comm_c2f(*done.c_newcomm);
  delete done.c_newcomm;
}

extern "C" void mpi_comm_idup_(const MPI_Fint* comm, MPI_Fint* newcomm, MPI_Fint* request, MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  auto* c_newcomm = new MPI_Comm(MPI_COMM_NULL);
  MPI_Request c_request = MPI_REQUEST_NULL;
  *newcomm = 0;
  *ierror = MPI_Comm_idup(MPI_Comm_f2c(*comm), c_newcomm, &c_request);
  if (*ierror != MPI_SUCCESS || c_request == MPI_REQUEST_NULL) {
    *newcomm = MPI_Comm_c2f(*c_newcomm);
    *request = MPI_Request_c2f(c_request);
    delete c_newcomm;
    return;
  }
  *request = MPI_Request_c2f(c_request);
  auto& p = pending_idups();
  std::lock_guard<std::mutex> lock(p.mu);
  p.by_request[*request] = {newcomm, c_newcomm};
}

// ---- callbacks ---------------------------------------------------------------
// A C callback carries no pointer of the program's, so a Fortran procedure is
// reached through one of a fixed set of C trampolines, each bound to a slot
// holding the procedure. A slot is taken by MPI_OP_CREATE /
// MPI_COMM_CREATE_ERRHANDLER / MPI_WIN_CREATE_ERRHANDLER (the error
// handlers' slots are one pool: a Fortran handler is (INTEGER handle,
// INTEGER code) either way, and slot I has a trampoline of each kind);
// MPI_OP_FREE gives an op's back.
namespace {

using FortranOp = void(void* invec, void* inoutvec, MPI_Fint* len, MPI_Fint* datatype);
using FortranErrhandler = void(MPI_Fint* comm, MPI_Fint* error_code);

constexpr size_t kOpSlots = 128;
constexpr size_t kErrhandlerSlots = 64;

template <typename Fn, size_t N>
struct Slots {
  std::mutex mu;
  std::array<std::atomic<Fn*>, N> fn{};
  std::unordered_map<void*, size_t> slot_of;  // C handle -> slot

  // A free slot holding `f`, or N when all are taken.
  size_t take(Fn* f) {
    for (size_t i = 0; i < N; ++i) {
      Fn* expected = nullptr;
      if (fn[i].compare_exchange_strong(expected, f)) return i;
    }
    return N;
  }
  void bind(void* handle, size_t slot) {
    std::lock_guard<std::mutex> lock(mu);
    slot_of[handle] = slot;
  }
  void give_back(void* handle) {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = slot_of.find(handle); it != slot_of.end()) {
      fn[it->second].store(nullptr);
      slot_of.erase(it);
    }
  }
};

Slots<FortranOp, kOpSlots>& op_slots() {
  static auto* s = new Slots<FortranOp, kOpSlots>();
  return *s;
}
Slots<FortranErrhandler, kErrhandlerSlots>& errhandler_slots() {
  static auto* s = new Slots<FortranErrhandler, kErrhandlerSlots>();
  return *s;
}

template <size_t I>
void op_trampoline(void* in, void* inout, int* len, MPI_Datatype* datatype) {
  MPI_Fint f_type = MPI_Type_c2f(*datatype);
  op_slots().fn[I].load()(in, inout, len, &f_type);
}

template <size_t I>
void errhandler_trampoline(MPI_Comm* comm, int* code, ...) {
  MPI_Fint f_comm = MPI_Comm_c2f(*comm);
  errhandler_slots().fn[I].load()(&f_comm, code);
}

template <size_t I>
void win_errhandler_trampoline(MPI_Win* win, int* code, ...) {
  MPI_Fint f_win = MPI_Win_c2f(*win);
  errhandler_slots().fn[I].load()(&f_win, code);
}

template <size_t... I>
constexpr std::array<MPI_User_function*, sizeof...(I)> op_trampolines(std::index_sequence<I...>) {
  return {&op_trampoline<I>...};
}
template <size_t... I>
constexpr std::array<MPI_Comm_errhandler_function*, sizeof...(I)> errhandler_trampolines(std::index_sequence<I...>) {
  return {&errhandler_trampoline<I>...};
}
template <size_t... I>
constexpr std::array<MPI_Win_errhandler_function*, sizeof...(I)> win_errhandler_trampolines(std::index_sequence<I...>) {
  return {&win_errhandler_trampoline<I>...};
}
constexpr auto kOpTrampolines = op_trampolines(std::make_index_sequence<kOpSlots>());
constexpr auto kErrhandlerTrampolines = errhandler_trampolines(std::make_index_sequence<kErrhandlerSlots>());
constexpr auto kWinErrhandlerTrampolines = win_errhandler_trampolines(std::make_index_sequence<kErrhandlerSlots>());

// ---- keyvals (communicators, datatypes, windows): the Fortran procedures and
// extra state ride in the C keyval's extra_state (never freed: a keyval's callbacks may run until
// MPI_Finalize, after MPI_COMM_FREE_KEYVAL).
using FortranCopy = void(MPI_Fint* old, MPI_Fint* keyval, MPI_Aint* extra_state, MPI_Aint* value_in,
                         MPI_Aint* value_out, MPI_Fint* flag, MPI_Fint* ierror);
using FortranDelete = void(MPI_Fint* object, MPI_Fint* keyval, MPI_Aint* value, MPI_Aint* extra_state, MPI_Fint* ierror);
// MPI-1 (MPI_KEYVAL_CREATE): INTEGER extra state and values.
using FortranCopy1 = void(MPI_Fint* oldcomm, MPI_Fint* keyval, MPI_Fint* extra_state, MPI_Fint* value_in,
                          MPI_Fint* value_out, MPI_Fint* flag, MPI_Fint* ierror);
using FortranDelete1 = void(MPI_Fint* comm, MPI_Fint* keyval, MPI_Fint* value, MPI_Fint* extra_state, MPI_Fint* ierror);

struct FortranKeyval {
  void* copy;
  void* del;
  MPI_Aint extra;
  bool mpi1;
};

// The Fortran value of the object a keyval callback is called for.
MPI_Fint f_handle(MPI_Comm comm) { return MPI_Comm_c2f(comm); }
MPI_Fint f_handle(MPI_Datatype type) { return MPI_Type_c2f(type); }
MPI_Fint f_handle(MPI_Win win) { return MPI_Win_c2f(win); }

// One copy / delete pair for communicator, datatype and window keyvals (the
// Fortran callbacks take the object's INTEGER handle either way).
template <typename Handle>
int keyval_copy(Handle old, int keyval, void* extra_state, void* value_in, void* value_out, int* flag) {
  auto* k = static_cast<FortranKeyval*>(extra_state);
  MPI_Fint f_old = f_handle(old), f_keyval = keyval, f_flag = 0, ierror = MPI_SUCCESS;
  if (k->mpi1) {
    MPI_Fint extra = static_cast<MPI_Fint>(k->extra), in = static_cast<MPI_Fint>(reinterpret_cast<MPI_Aint>(value_in)),
             out = 0;
    reinterpret_cast<FortranCopy1*>(k->copy)(&f_old, &f_keyval, &extra, &in, &out, &f_flag, &ierror);
    if (f_flag) *static_cast<void**>(value_out) = reinterpret_cast<void*>(static_cast<MPI_Aint>(out));
  } else {
    MPI_Aint in = reinterpret_cast<MPI_Aint>(value_in), out = 0;
    reinterpret_cast<FortranCopy*>(k->copy)(&f_old, &f_keyval, &k->extra, &in, &out, &f_flag, &ierror);
    if (f_flag) *static_cast<void**>(value_out) = reinterpret_cast<void*>(out);
  }
  *flag = f_flag != 0;
  return ierror;
}

template <typename Handle>
int keyval_delete(Handle object, int keyval, void* value, void* extra_state) {
  auto* k = static_cast<FortranKeyval*>(extra_state);
  MPI_Fint f_object = f_handle(object), f_keyval = keyval, ierror = MPI_SUCCESS;
  if (k->mpi1) {
    MPI_Fint extra = static_cast<MPI_Fint>(k->extra), v = static_cast<MPI_Fint>(reinterpret_cast<MPI_Aint>(value));
    reinterpret_cast<FortranDelete1*>(k->del)(&f_object, &f_keyval, &v, &extra, &ierror);
  } else {
    MPI_Aint v = reinterpret_cast<MPI_Aint>(value);
    reinterpret_cast<FortranDelete*>(k->del)(&f_object, &f_keyval, &v, &k->extra, &ierror);
  }
  return ierror;
}

// A Fortran attribute value as C stores it, and back: the C attribute's
// pointer is the value; the predefined (communicator) attributes are C ints
// behind a pointer, and Fortran gets the int.
void* c_attr(MPI_Aint value) { return reinterpret_cast<void*>(value); }
MPI_Aint f_attr(int keyval, void* value) {
  return lz::rt::is_predefined_keyval(keyval) ? *static_cast<int*>(value) : reinterpret_cast<MPI_Aint>(value);
}

// A window attribute's Fortran value (MPI-3.1 section 11.2.6): C gives the
// base itself, and pointers to the size (MPI_Aint) and to the displacement
// unit, flavor and memory model (ints); a keyval of the program's, its value.
MPI_Aint f_win_attr(int keyval, void* value) {
  switch (keyval) {
    case MPI_WIN_BASE:
      return reinterpret_cast<MPI_Aint>(value);
    case MPI_WIN_SIZE:
      return *static_cast<MPI_Aint*>(value);
    case MPI_WIN_DISP_UNIT:
    case MPI_WIN_CREATE_FLAVOR:
    case MPI_WIN_MODEL:
      return *static_cast<int*>(value);
    default:
      return reinterpret_cast<MPI_Aint>(value);
  }
}

// MPI_COMM_GET_ATTR, MPI_TYPE_GET_ATTR, MPI_WIN_GET_ATTR: `get` is the C
// call, `to_f` the value's conversion.
template <typename Handle>
int get_attr(int (*get)(Handle, int, void*, int*), Handle object, int keyval, MPI_Aint* value, MPI_Fint* flag,
             MPI_Aint (*to_f)(int, void*) = f_attr) {
  void* v = nullptr;
  int c_flag = 0;
  const int rc = get(object, keyval, &v, &c_flag);
  *flag = c_flag != 0;
  if (rc == MPI_SUCCESS && c_flag) *value = to_f(keyval, v);
  return rc;
}

}  // namespace

extern "C" {

void mpi_op_create_(FortranOp* user_fn, const MPI_Fint* commute, MPI_Fint* op, MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  size_t slot = op_slots().take(user_fn);
  if (slot == kOpSlots) {
    *ierror = MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_INTERN);  // every slot in use
    if (*ierror == MPI_SUCCESS) *ierror = MPI_ERR_INTERN;
    return;
  }
  MPI_Op c_op = MPI_OP_NULL;
  *ierror = MPI_Op_create(kOpTrampolines[slot], *commute != 0, &c_op);
  if (*ierror != MPI_SUCCESS) {
    op_slots().fn[slot].store(nullptr);
    return;
  }
  op_slots().bind(c_op, slot);
  *op = MPI_Op_c2f(c_op);
}

void mpi_op_free_(MPI_Fint* op, MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  const MPI_Fint old = *op;
  MPI_Op c_op = MPI_Op_f2c(old);
  void* handle = c_op;
  *ierror = MPI_Op_free(&c_op);
  if (*ierror == MPI_SUCCESS) op_slots().give_back(handle);
  *op = lz_f_update(Kind::kOp, old, c_op);
}

void mpi_comm_create_errhandler_(FortranErrhandler* fn, MPI_Fint* errhandler, MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  size_t slot = errhandler_slots().take(fn);
  if (slot == kErrhandlerSlots) {
    *ierror = MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_INTERN);
    if (*ierror == MPI_SUCCESS) *ierror = MPI_ERR_INTERN;
    return;
  }
  MPI_Errhandler c_eh = MPI_ERRHANDLER_NULL;
  *ierror = MPI_Comm_create_errhandler(kErrhandlerTrampolines[slot], &c_eh);
  if (*ierror != MPI_SUCCESS) {
    errhandler_slots().fn[slot].store(nullptr);
    return;
  }
  errhandler_slots().bind(c_eh, slot);
  *errhandler = MPI_Errhandler_c2f(c_eh);
}

void mpi_win_create_errhandler_(FortranErrhandler* fn, MPI_Fint* errhandler, MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  size_t slot = errhandler_slots().take(fn);
  if (slot == kErrhandlerSlots) {
    *ierror = MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_INTERN);
    if (*ierror == MPI_SUCCESS) *ierror = MPI_ERR_INTERN;
    return;
  }
  MPI_Errhandler c_eh = MPI_ERRHANDLER_NULL;
  *ierror = MPI_Win_create_errhandler(kWinErrhandlerTrampolines[slot], &c_eh);
  if (*ierror != MPI_SUCCESS) {
    errhandler_slots().fn[slot].store(nullptr);
    return;
  }
  errhandler_slots().bind(c_eh, slot);
  *errhandler = MPI_Errhandler_c2f(c_eh);
}

// The handler's slot is not given back: MPI lets a freed handler live on in
// the communicators (windows) it is set on, and nothing tells this binding when the
// last of them lets it go. 64 Fortran handlers per process, then
// MPI_ERR_INTERN.
void mpi_errhandler_free_(MPI_Fint* errhandler, MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  const MPI_Fint old = *errhandler;
  MPI_Errhandler c_eh = MPI_Errhandler_f2c(old);
  *ierror = MPI_Errhandler_free(&c_eh);
  *errhandler = lz_f_update(Kind::kErrhandler, old, c_eh);
}

void mpi_comm_create_keyval_(void* copy_fn, void* delete_fn, MPI_Fint* keyval, const MPI_Aint* extra_state,
                             MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  auto* k = new FortranKeyval{copy_fn, delete_fn, *extra_state, false};
  *ierror = MPI_Comm_create_keyval(keyval_copy<MPI_Comm>, keyval_delete<MPI_Comm>, keyval, k);
}

void mpi_type_create_keyval_(void* copy_fn, void* delete_fn, MPI_Fint* keyval, const MPI_Aint* extra_state,
                             MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  auto* k = new FortranKeyval{copy_fn, delete_fn, *extra_state, false};
  *ierror = MPI_Type_create_keyval(keyval_copy<MPI_Datatype>, keyval_delete<MPI_Datatype>, keyval, k);
}

void mpi_win_create_keyval_(void* copy_fn, void* delete_fn, MPI_Fint* keyval, const MPI_Aint* extra_state,
                            MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  auto* k = new FortranKeyval{copy_fn, delete_fn, *extra_state, false};
  *ierror = MPI_Win_create_keyval(keyval_copy<MPI_Win>, keyval_delete<MPI_Win>, keyval, k);
}

void mpi_keyval_create_(void* copy_fn, void* delete_fn, MPI_Fint* keyval, const MPI_Fint* extra_state,
                        MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  auto* k = new FortranKeyval{copy_fn, delete_fn, *extra_state, true};
  *ierror = MPI_Comm_create_keyval(keyval_copy<MPI_Comm>, keyval_delete<MPI_Comm>, keyval, k);
}

// The predefined callbacks, callable from Fortran (mpif.h: EXTERNAL).
void mpi_comm_null_copy_fn_(MPI_Fint*, MPI_Fint*, MPI_Aint*, MPI_Aint*, MPI_Aint*, MPI_Fint* flag, MPI_Fint* ierror) {
  *flag = 0;
  *ierror = MPI_SUCCESS;
}
void mpi_comm_dup_fn_(MPI_Fint*, MPI_Fint*, MPI_Aint*, MPI_Aint* in, MPI_Aint* out, MPI_Fint* flag, MPI_Fint* ierror) {
  *out = *in;
  *flag = 1;
  *ierror = MPI_SUCCESS;
}
void mpi_comm_null_delete_fn_(MPI_Fint*, MPI_Fint*, MPI_Aint*, MPI_Aint*, MPI_Fint* ierror) { *ierror = MPI_SUCCESS; }
void mpi_null_copy_fn_(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint* flag, MPI_Fint* ierror) {
  *flag = 0;
  *ierror = MPI_SUCCESS;
}
void mpi_dup_fn_(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint* in, MPI_Fint* out, MPI_Fint* flag, MPI_Fint* ierror) {
  *out = *in;
  *flag = 1;
  *ierror = MPI_SUCCESS;
}
void mpi_null_delete_fn_(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint* ierror) { *ierror = MPI_SUCCESS; }
void mpi_type_null_copy_fn_(MPI_Fint* a, MPI_Fint* b, MPI_Aint* c, MPI_Aint* d, MPI_Aint* e, MPI_Fint* flag,
                            MPI_Fint* ierror) {
  mpi_comm_null_copy_fn_(a, b, c, d, e, flag, ierror);
}
void mpi_type_dup_fn_(MPI_Fint* a, MPI_Fint* b, MPI_Aint* c, MPI_Aint* in, MPI_Aint* out, MPI_Fint* flag,
                      MPI_Fint* ierror) {
  mpi_comm_dup_fn_(a, b, c, in, out, flag, ierror);
}
void mpi_type_null_delete_fn_(MPI_Fint*, MPI_Fint*, MPI_Aint*, MPI_Aint*, MPI_Fint* ierror) { *ierror = MPI_SUCCESS; }
void mpi_win_null_copy_fn_(MPI_Fint* a, MPI_Fint* b, MPI_Aint* c, MPI_Aint* d, MPI_Aint* e, MPI_Fint* flag,
                           MPI_Fint* ierror) {
  mpi_comm_null_copy_fn_(a, b, c, d, e, flag, ierror);
}
void mpi_win_dup_fn_(MPI_Fint* a, MPI_Fint* b, MPI_Aint* c, MPI_Aint* in, MPI_Aint* out, MPI_Fint* flag,
                     MPI_Fint* ierror) {
  mpi_comm_dup_fn_(a, b, c, in, out, flag, ierror);
}
void mpi_win_null_delete_fn_(MPI_Fint*, MPI_Fint*, MPI_Aint*, MPI_Aint*, MPI_Fint* ierror) { *ierror = MPI_SUCCESS; }

// Attributes: Fortran stores and reads integer values (c_attr, f_attr).
void mpi_comm_set_attr_(const MPI_Fint* comm, const MPI_Fint* keyval, const MPI_Aint* value, MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  *ierror = MPI_Comm_set_attr(MPI_Comm_f2c(*comm), *keyval, c_attr(*value));
}

void mpi_comm_get_attr_(const MPI_Fint* comm, const MPI_Fint* keyval, MPI_Aint* value, MPI_Fint* flag,
                        MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  *ierror = get_attr(MPI_Comm_get_attr, MPI_Comm_f2c(*comm), *keyval, value, flag);
}

void mpi_type_set_attr_(const MPI_Fint* type, const MPI_Fint* keyval, const MPI_Aint* value, MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  *ierror = MPI_Type_set_attr(MPI_Type_f2c(*type), *keyval, c_attr(*value));
}

void mpi_type_get_attr_(const MPI_Fint* type, const MPI_Fint* keyval, MPI_Aint* value, MPI_Fint* flag,
                        MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  *ierror = get_attr(MPI_Type_get_attr, MPI_Type_f2c(*type), *keyval, value, flag);
}

void mpi_win_set_attr_(const MPI_Fint* win, const MPI_Fint* keyval, const MPI_Aint* value, MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  *ierror = MPI_Win_set_attr(MPI_Win_f2c(*win), *keyval, c_attr(*value));
}

void mpi_win_get_attr_(const MPI_Fint* win, const MPI_Fint* keyval, MPI_Aint* value, MPI_Fint* flag, MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  *ierror = get_attr(MPI_Win_get_attr, MPI_Win_f2c(*win), *keyval, value, flag, f_win_attr);
}

void mpi_attr_put_(const MPI_Fint* comm, const MPI_Fint* keyval, const MPI_Fint* value, MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  *ierror = MPI_Comm_set_attr(MPI_Comm_f2c(*comm), *keyval, c_attr(*value));
}

void mpi_attr_get_(const MPI_Fint* comm, const MPI_Fint* keyval, MPI_Fint* value, MPI_Fint* flag, MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  MPI_Aint v = 0;
  mpi_comm_get_attr_(comm, keyval, &v, flag, ierror);
  if (*ierror == MPI_SUCCESS && *flag) *value = static_cast<MPI_Fint>(v);
}

// MPI-4.0's MPI_INFO_CREATE_ENV(INFO, IERROR): Fortran passes no argv.
void mpi_info_create_env_(MPI_Fint* info, MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  MPI_Info c_info = MPI_INFO_NULL;
  *ierror = MPI_Info_create_env(0, nullptr, &c_info);
  *info = MPI_Info_c2f(c_info);
}

}  // extern "C"

// Profiling names (fortran_args.h).
LZ_F_PMPI(mpi_init_);
LZ_F_PMPI(mpi_init_thread_);
LZ_F_PMPI(mpi_wtime_);
LZ_F_PMPI(mpi_wtick_);
LZ_F_PMPI(mpi_pcontrol_);
LZ_F_PMPI(mpi_aint_add_);
LZ_F_PMPI(mpi_aint_diff_);
LZ_F_PMPI(mpi_get_address_);
LZ_F_PMPI(mpi_comm_idup_);
LZ_F_PMPI(mpi_f_sync_reg_);
LZ_F_PMPI(mpi_buffer_detach_);
LZ_F_PMPI(mpi_op_create_);
LZ_F_PMPI(mpi_op_free_);
LZ_F_PMPI(mpi_comm_create_errhandler_);
LZ_F_PMPI(mpi_errhandler_free_);
LZ_F_PMPI(mpi_comm_create_keyval_);
LZ_F_PMPI(mpi_type_create_keyval_);
LZ_F_PMPI(mpi_keyval_create_);
LZ_F_PMPI(mpi_comm_set_attr_);
LZ_F_PMPI(mpi_comm_get_attr_);
LZ_F_PMPI(mpi_type_set_attr_);
LZ_F_PMPI(mpi_type_get_attr_);
LZ_F_PMPI(mpi_attr_put_);
LZ_F_PMPI(mpi_attr_get_);
LZ_F_PMPI(mpi_info_create_env_);
LZ_F_PMPI(mpi_win_create_errhandler_);
LZ_F_PMPI(mpi_win_create_keyval_);
LZ_F_PMPI(mpi_win_set_attr_);
LZ_F_PMPI(mpi_win_get_attr_);
