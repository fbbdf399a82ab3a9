#include "mpi/errors.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "mpi/entry.h"
#include "osc/window.h"
#include "p2p/comm.h"
#include "p2p/runtime.h"

struct lz_mpi_errhandler_s lz_mpi_errors_are_fatal = {lz_mpi_errhandler_s::kFatal};
struct lz_mpi_errhandler_s lz_mpi_errors_return = {lz_mpi_errhandler_s::kReturn};

namespace lz::rt {

void fatal(const char* function, int code, const std::string& message) {
  Runtime* rt = runtime_if_any();
  std::string line = std::string(function) + ": ";
  if (rt != nullptr) line += "rank " + std::to_string(rt->rank()) + ": ";
  line += message;
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
  if (code == 0) code = 1;
  if (rt != nullptr) rt->bootstrap().abort(code, line).ignore();
  std::_Exit(code & 0xff ? code & 0xff : 1);
}

namespace {
thread_local const char* t_error_name = nullptr;
}  // namespace

ErrorName::ErrorName(const char* function) : previous_(t_error_name) {
  if (previous_ == nullptr) t_error_name = function;
}
ErrorName::~ErrorName() { t_error_name = previous_; }

namespace {
int handle_error(MPI_Comm comm, const char* function, int mpi_error_class, int fatal_code, const std::string& message) {
  if (t_error_name != nullptr) function = t_error_name;
  MPI_Comm c = (comm != nullptr && comm->valid()) ? comm : &lz_mpi_comm_world;
  if (c->errhandler == MPI_ERRORS_RETURN) return mpi_error_class;
  if (c->errhandler != nullptr && c->errhandler->kind == lz_mpi_errhandler_s::kUser) {
    int code = mpi_error_class;
    c->errhandler->fn(&c, &code);
    return mpi_error_class;
  }
  std::string m = message;
  if (comm != nullptr && comm->valid() && comm != &lz_mpi_comm_world && comm->rank() >= 0 &&
      runtime_if_any() != nullptr && comm->rank() != runtime().rank())
    m += " (rank " + std::to_string(comm->rank()) + " in the communicator)";
  fatal(function, fatal_code, m);
}
}  // namespace

int mpi_error(MPI_Comm comm, const char* function, int mpi_error_class, const std::string& message) {
  return handle_error(comm, function, mpi_error_class, mpi_error_class, message);
}

int win_error(MPI_Win win, const char* function, int mpi_error_class, const std::string& message) {
  if (t_error_name != nullptr) function = t_error_name;
  MPI_Errhandler h = win->errhandler;
  if (h == MPI_ERRORS_RETURN) return mpi_error_class;
  if (h != nullptr && h->kind == lz_mpi_errhandler_s::kUser) {
    int code = mpi_error_class;
    if (h->win_fn != nullptr)
      h->win_fn(&win, &code);
    else
      h->fn(reinterpret_cast<MPI_Comm*>(&win), &code);
    return mpi_error_class;
  }
  std::string m = message;
  if (!win->name.empty()) m += " (window " + win->name + ")";
  fatal(function, mpi_error_class, m);
}

int mpi_error_in_status(MPI_Comm comm, const char* function, int first_class, const std::string& message) {
  return handle_error(comm, function, MPI_ERR_IN_STATUS, first_class, message);
}

int mpi_class_of(const Status& s) {
  switch (s.code()) {
    case Code::kOk: return MPI_SUCCESS;
    case Code::kInvalidArgument: return MPI_ERR_ARG;
    case Code::kDataLoss: return MPI_ERR_TRUNCATE;
    case Code::kAborted: return MPI_ERR_PROC_FAILED;
    case Code::kInternal: return MPI_ERR_INTERN;
    default: return MPI_ERR_OTHER;
  }
}

int mpi_error(MPI_Comm comm, const char* function, const Status& s) {
  return mpi_error(comm, function, mpi_class_of(s), s.message());
}

}  // namespace lz::rt
