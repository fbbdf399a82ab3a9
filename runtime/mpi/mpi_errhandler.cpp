// MPI binding: error classes, strings and communicator error handlers,
// the user's own (MPI_Comm_create_errhandler) and the error classes, codes
// and strings a program adds (MPI_Add_error_class/_code/_string).
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "p2p/comm.h"

namespace {
const char* error_text(int code) {
  switch (code) {
    case MPI_SUCCESS: return "MPI_SUCCESS: no error";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER: invalid buffer pointer";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT: invalid count argument";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE: invalid datatype";
    case MPI_ERR_TAG: return "MPI_ERR_TAG: invalid tag";
    case MPI_ERR_COMM: return "MPI_ERR_COMM: invalid communicator";
    case MPI_ERR_RANK: return "MPI_ERR_RANK: invalid rank";
    case MPI_ERR_REQUEST: return "MPI_ERR_REQUEST: invalid request";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT: invalid root";
    case MPI_ERR_GROUP: return "MPI_ERR_GROUP: invalid group";
    case MPI_ERR_OP: return "MPI_ERR_OP: invalid reduce operation";
    case MPI_ERR_TOPOLOGY: return "MPI_ERR_TOPOLOGY: invalid communicator topology";
    case MPI_ERR_DIMS: return "MPI_ERR_DIMS: invalid dimension argument";
    case MPI_ERR_ARG: return "MPI_ERR_ARG: invalid argument of some other kind";
    case MPI_ERR_UNKNOWN: return "MPI_ERR_UNKNOWN: unknown error";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE: message truncated";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER: known error not in this list";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN: internal error";
    case MPI_ERR_IN_STATUS: return "MPI_ERR_IN_STATUS: error code is in status";
    case MPI_ERR_PENDING: return "MPI_ERR_PENDING: pending request";
    case MPI_ERR_PROC_FAILED: return "MPI_ERR_PROC_FAILED: a peer process failed";
    case MPI_ERR_KEYVAL: return "MPI_ERR_KEYVAL: invalid keyval";
    case MPI_ERR_INFO: return "MPI_ERR_INFO: invalid info object";
    case MPI_ERR_INFO_KEY: return "MPI_ERR_INFO_KEY: key longer than MPI_MAX_INFO_KEY";
    case MPI_ERR_INFO_VALUE: return "MPI_ERR_INFO_VALUE: value longer than MPI_MAX_INFO_VAL";
    case MPI_ERR_INFO_NOKEY: return "MPI_ERR_INFO_NOKEY: no such key in the info object";
    case MPI_ERR_NO_MEM:
      return "MPI_ERR_NO_MEM: out of memory (MPI_Alloc_mem)";
    case MPI_ERR_BASE:
      return "MPI_ERR_BASE: not a base address MPI_Alloc_mem returned";
    case MPI_ERR_UNSUPPORTED_DATAREP: return "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation";
    case MPI_ERR_DUP_DATAREP: return "MPI_ERR_DUP_DATAREP: data representation defined already";
    case MPI_ERR_SPAWN: return "MPI_ERR_SPAWN: spawning processes failed";
    case MPI_ERR_PORT: return "MPI_ERR_PORT: invalid port name";
    case MPI_ERR_NAME: return "MPI_ERR_NAME: service name not published";
    case MPI_ERR_SERVICE: return "MPI_ERR_SERVICE: service name could not be published or unpublished";
    case MPI_ERR_WIN: return "MPI_ERR_WIN: invalid window";
    case MPI_ERR_SIZE: return "MPI_ERR_SIZE: invalid size";
    case MPI_ERR_DISP: return "MPI_ERR_DISP: invalid displacement";
    case MPI_ERR_LOCKTYPE: return "MPI_ERR_LOCKTYPE: invalid lock type";
    case MPI_ERR_ASSERT: return "MPI_ERR_ASSERT: invalid assertion";
    case MPI_ERR_RMA_CONFLICT: return "MPI_ERR_RMA_CONFLICT: conflicting accesses to a window";
    case MPI_ERR_RMA_SYNC: return "MPI_ERR_RMA_SYNC: wrong synchronization of one-sided calls";
    case MPI_ERR_RMA_RANGE: return "MPI_ERR_RMA_RANGE: target memory is not part of the window";
    case MPI_ERR_RMA_ATTACH: return "MPI_ERR_RMA_ATTACH: memory cannot be attached";
    case MPI_ERR_RMA_SHARED: return "MPI_ERR_RMA_SHARED: memory cannot be shared";
    case MPI_ERR_RMA_FLAVOR: return "MPI_ERR_RMA_FLAVOR: passed window has the wrong flavor for the called function";
    case MPI_ERR_FILE:
      return "MPI_ERR_FILE: invalid file handle";
    case MPI_ERR_NOT_SAME:
      return "MPI_ERR_NOT_SAME: collective argument not identical on all processes";
    case MPI_ERR_AMODE:
      return "MPI_ERR_AMODE: invalid access mode";
    case MPI_ERR_UNSUPPORTED_OPERATION:
      return "MPI_ERR_UNSUPPORTED_OPERATION: unsupported operation";
    case MPI_ERR_NO_SUCH_FILE:
      return "MPI_ERR_NO_SUCH_FILE: file does not exist";
    case MPI_ERR_FILE_EXISTS:
      return "MPI_ERR_FILE_EXISTS: file exists";
    case MPI_ERR_BAD_FILE:
      return "MPI_ERR_BAD_FILE: invalid file name";
    case MPI_ERR_ACCESS:
      return "MPI_ERR_ACCESS: permission denied";
    case MPI_ERR_NO_SPACE:
      return "MPI_ERR_NO_SPACE: not enough space";
    case MPI_ERR_QUOTA:
      return "MPI_ERR_QUOTA: quota exceeded";
    case MPI_ERR_READ_ONLY:
      return "MPI_ERR_READ_ONLY: read-only file or file system";
    case MPI_ERR_FILE_IN_USE:
      return "MPI_ERR_FILE_IN_USE: file in use by some process";
    case MPI_ERR_CONVERSION:
      return "MPI_ERR_CONVERSION: a data representation's conversion function failed";
    case MPI_ERR_IO:
      return "MPI_ERR_IO: I/O error";
    case MPI_T_ERR_MEMORY: return "MPI_T_ERR_MEMORY: out of memory (tool interface)";
    case MPI_T_ERR_NOT_INITIALIZED: return "MPI_T_ERR_NOT_INITIALIZED: the tool interface is not initialized";
    case MPI_T_ERR_CANNOT_INIT: return "MPI_T_ERR_CANNOT_INIT: the tool interface cannot be initialized";
    case MPI_T_ERR_INVALID_INDEX: return "MPI_T_ERR_INVALID_INDEX: index of a variable or category out of range";
    case MPI_T_ERR_INVALID_ITEM: return "MPI_T_ERR_INVALID_ITEM: item index of an enumeration out of range";
    case MPI_T_ERR_INVALID_HANDLE: return "MPI_T_ERR_INVALID_HANDLE: invalid tool interface handle";
    case MPI_T_ERR_OUT_OF_HANDLES: return "MPI_T_ERR_OUT_OF_HANDLES: no more handles";
    case MPI_T_ERR_OUT_OF_SESSIONS: return "MPI_T_ERR_OUT_OF_SESSIONS: no more sessions";
    case MPI_T_ERR_INVALID_SESSION: return "MPI_T_ERR_INVALID_SESSION: invalid performance variable session";
    case MPI_T_ERR_CVAR_SET_NOT_NOW: return "MPI_T_ERR_CVAR_SET_NOT_NOW: the control variable cannot be set now";
    case MPI_T_ERR_CVAR_SET_NEVER: return "MPI_T_ERR_CVAR_SET_NEVER: the control variable can never be set";
    case MPI_T_ERR_PVAR_NO_STARTSTOP:
      return "MPI_T_ERR_PVAR_NO_STARTSTOP: the performance variable cannot be started or stopped";
    case MPI_T_ERR_PVAR_NO_WRITE: return "MPI_T_ERR_PVAR_NO_WRITE: the performance variable cannot be written or reset";
    case MPI_T_ERR_PVAR_NO_ATOMIC: return "MPI_T_ERR_PVAR_NO_ATOMIC: the performance variable cannot be read and reset atomically";
    case MPI_T_ERR_INVALID_NAME: return "MPI_T_ERR_INVALID_NAME: no variable or category of that name";
    case MPI_T_ERR_INVALID: return "MPI_T_ERR_INVALID: invalid use of the tool interface";
    default: return nullptr;
  }
}
// Classes and codes added by the program, numbered after MPI_ERR_LASTCODE:
// each code's class (a class is its own) and string.
struct Added {
  int error_class;
  std::string text;
};
std::map<int, Added>& added() {
  static std::map<int, Added> m;
  return m;
}
int g_last_code = MPI_ERR_LASTCODE;

bool is_class(int code) { return error_text(code) != nullptr || (added().count(code) && added()[code].error_class == code); }

}  // namespace

int lz::rt::last_used_error_code() { return g_last_code; }

extern "C" {

int MPI_Error_string(int errorcode, char* string, int* resultlen) {
  if (auto it = added().find(errorcode); it != added().end()) {
    std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", it->second.text.c_str());
    *resultlen = static_cast<int>(std::strlen(string));
    return MPI_SUCCESS;
  }
  const char* t = error_text(errorcode);
  char buf[MPI_MAX_ERROR_STRING];
  if (t == nullptr) {
    std::snprintf(buf, sizeof buf, "unknown error code %d", errorcode);
    t = buf;
  }
  std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", t);
  *resultlen = static_cast<int>(std::strlen(string));
  return error_text(errorcode) ? MPI_SUCCESS : MPI_ERR_ARG;
}

int MPI_Error_class(int errorcode, int* errorclass) {
  if (auto it = added().find(errorcode); it != added().end()) {
    *errorclass = it->second.error_class;
    return MPI_SUCCESS;
  }
  if (errorcode < 0 || errorcode > MPI_ERR_LASTCODE) {
    *errorclass = MPI_ERR_UNKNOWN;
    return MPI_ERR_ARG;
  }
  *errorclass = error_text(errorcode) ? errorcode : MPI_ERR_UNKNOWN;
  return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  LZ_MPI_ENTRY("MPI_Comm_set_errhandler");
  if (comm == nullptr || !comm->valid())
    return lz::rt::mpi_error(MPI_COMM_WORLD, "MPI_Comm_set_errhandler", MPI_ERR_COMM, "invalid communicator");
  if (errhandler == MPI_ERRHANDLER_NULL)
    return lz::rt::mpi_error(comm, "MPI_Comm_set_errhandler", MPI_ERR_ARG, "invalid error handler (MPI_ERRHANDLER_NULL)");
  comm->errhandler = errhandler;
  return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  LZ_MPI_ENTRY("MPI_Comm_get_errhandler");
  if (comm == nullptr || !comm->valid())
    return lz::rt::mpi_error(MPI_COMM_WORLD, "MPI_Comm_get_errhandler", MPI_ERR_COMM, "invalid communicator");
  *errhandler = comm->errhandler ? comm->errhandler : MPI_ERRORS_ARE_FATAL;
  return MPI_SUCCESS;
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function* function, MPI_Errhandler* errhandler) {
  static constexpr const char* kFn = "MPI_Comm_create_errhandler";
  LZ_MPI_ENTRY(kFn);
  if (function == nullptr || errhandler == nullptr)
    return lz::rt::mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "function or errhandler is NULL");
  *errhandler = new lz_mpi_errhandler_s{lz_mpi_errhandler_s::kUser, function};
  return MPI_SUCCESS;
}

// The handler stays valid for the communicators that still use it (MPI:
// freed once none does): a user handler is never deleted, only the
// caller's handle is reset.
int MPI_Errhandler_free(MPI_Errhandler* errhandler) {
  static constexpr const char* kFn = "MPI_Errhandler_free";
  LZ_MPI_ENTRY(kFn);
  if (errhandler == nullptr || *errhandler == MPI_ERRHANDLER_NULL)
    return lz::rt::mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "invalid error handler (NULL or MPI_ERRHANDLER_NULL)");
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  static constexpr const char* kFn = "MPI_Comm_call_errhandler";
  LZ_MPI_ENTRY(kFn);
  if (comm == nullptr || !comm->valid())
    return lz::rt::mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_COMM, "invalid communicator");
  std::string text = "error code " + std::to_string(errorcode);
  if (auto it = added().find(errorcode); it != added().end() && !it->second.text.empty()) text += ": " + it->second.text;
  else if (const char* t = error_text(errorcode)) text = t;
  lz::rt::mpi_error(comm, kFn, errorcode, text + " (raised by the program)");
  return MPI_SUCCESS;  // MPI: the call succeeds when the handler returns
}

int MPI_Add_error_class(int* errorclass) {
  static constexpr const char* kFn = "MPI_Add_error_class";
  LZ_MPI_ENTRY(kFn);
  if (errorclass == nullptr) return lz::rt::mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "errorclass is NULL");
  *errorclass = ++g_last_code;
  added()[*errorclass] = {*errorclass, ""};
  return MPI_SUCCESS;
}

int MPI_Add_error_code(int errorclass, int* errorcode) {
  static constexpr const char* kFn = "MPI_Add_error_code";
  LZ_MPI_ENTRY(kFn);
  if (errorcode == nullptr) return lz::rt::mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "errorcode is NULL");
  if (!is_class(errorclass))
    return lz::rt::mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG,
                             "error class " + std::to_string(errorclass) + " is neither predefined nor added");
  *errorcode = ++g_last_code;
  added()[*errorcode] = {errorclass, ""};
  return MPI_SUCCESS;
}

int MPI_Add_error_string(int errorcode, const char* string) {
  static constexpr const char* kFn = "MPI_Add_error_string";
  LZ_MPI_ENTRY(kFn);
  auto it = added().find(errorcode);
  if (it == added().end())
    return lz::rt::mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG,
                             "error code " + std::to_string(errorcode) +
                                 " was not added by MPI_Add_error_class/_code (predefined strings cannot change)");
  if (string == nullptr) return lz::rt::mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "string is NULL");
  if (std::strlen(string) >= MPI_MAX_ERROR_STRING)
    return lz::rt::mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG,
                             "string of " + std::to_string(std::strlen(string)) + " characters; at most " +
                                 std::to_string(MPI_MAX_ERROR_STRING - 1));
  it->second.text = string;
  return MPI_SUCCESS;
}

}  // extern "C"
