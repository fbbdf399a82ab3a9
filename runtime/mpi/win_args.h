// Argument checks shared by the one-sided bindings (mpi_win.cpp,
// mpi_rma.cpp, mpi_win_sync.cpp).
#pragma once

#include <string>

#include "mpi.h"
#include "mpi/errors.h"
#include "osc/window.h"

namespace lz::rt::win_args {

inline int check_win(const char* fn, MPI_Win win) {
  if (win == MPI_WIN_NULL || !win->valid())
    return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_WIN, "invalid window (MPI_WIN_NULL or freed)");
  return MPI_SUCCESS;
}

// A target rank of `win` (MPI_PROC_NULL allowed when `proc_null`).
inline int check_rank(const char* fn, MPI_Win win, int rank, bool proc_null = true) {
  if ((proc_null && rank == MPI_PROC_NULL) || (rank >= 0 && rank < win->size())) return MPI_SUCCESS;
  return win_error(
      win, fn, MPI_ERR_RANK,
      "invalid target rank " + std::to_string(rank) + " (window of " + std::to_string(win->size()) + " ranks)");
}

inline int check_assert(const char* fn, MPI_Win win, int assert, int allowed) {
  if ((assert & ~allowed) == 0) return MPI_SUCCESS;
  return win_error(win, fn, MPI_ERR_ASSERT, "invalid assertion " + std::to_string(assert));
}

}  // namespace lz::rt::win_args
