// Error reporting of the MPI binding: applies a communicator's error handler.
//
//   if (dest >= comm->size())
//     return lz::rt::mpi_error(comm, "MPI_Send", MPI_ERR_RANK,
//                              "invalid destination rank 7 (communicator size 4)");
//
// MPI_ERRORS_ARE_FATAL (the default) prints
//   "MPI_Send: rank 3: invalid destination rank 7 (communicator size 4)"
// to stderr and aborts the whole job through the launcher (exit code: the
// error class); MPI_ERRORS_RETURN returns the class to the caller; a
// handler of MPI_Comm_create_errhandler is called with the communicator and
// the class, then the class is returned.
#pragma once

#include <string>

#include "lazarus/status.h"
#include "mpi.h"

struct lz_mpi_errhandler_s {
  enum Kind { kFatal = 0, kReturn = 1, kUser = 2 };
  int kind;
  MPI_Comm_errhandler_function* fn = nullptr;  // kUser
  MPI_Win_errhandler_function* win_fn = nullptr;  // kUser of MPI_Win_create_errhandler (fn null)
  MPI_File_errhandler_function* file_fn = nullptr;  // kUser of MPI_File_create_errhandler (fn null)
};

namespace lz::rt {

// `comm` may be MPI_COMM_NULL (then MPI_COMM_WORLD's handler applies, as MPI
// says for errors not tied to a communicator). Returns `mpi_error_class` when
// the handler returns.
int mpi_error(MPI_Comm comm, const char* function, int mpi_error_class, const std::string& message);
// MPI_ERR_IN_STATUS of an array call whose first failed request had
// `first_class`: the job's abort code under MPI_ERRORS_ARE_FATAL is that
// class (a peer's death aborts with MPI_ERR_PROC_FAILED, which the launcher
// knows for --recover), while a handler that returns sees MPI_ERR_IN_STATUS.
int mpi_error_in_status(MPI_Comm comm, const char* function, int first_class, const std::string& message);

// mpi_error() for an error of window `win` (runtime/osc): its error
// handler applies (MPI_ERRORS_ARE_FATAL unless MPI_Win_set_errhandler).
int win_error(MPI_Win win, const char* function, int mpi_error_class, const std::string& message);

// The MPI error class that best describes a runtime Status.
int mpi_class_of(const Status& s);
// mpi_error() with the class and message of a non-ok Status.
int mpi_error(MPI_Comm comm, const char* function, const Status& s);

// While one lives, errors reported on this thread name `function` instead
// of the call that found them: an MPI-4.0 large-count call (MPI_Send_c)
// runs its int twin (MPI_Send) and errors name the call the program made.
class ErrorName {
 public:
  explicit ErrorName(const char* function);
  ~ErrorName();
  ErrorName(const ErrorName&) = delete;
  ErrorName& operator=(const ErrorName&) = delete;

 private:
  const char* previous_;
};

// The largest error code MPI_Add_error_class/_code gave out (MPI_ERR_LASTCODE
// when none): the MPI_LASTUSEDCODE attribute.
int last_used_error_code();

// Prints "<function>: rank <r>: <message>" and aborts the job with `code`.
[[noreturn]] void fatal(const char* function, int code, const std::string& message);

}  // namespace lz::rt
