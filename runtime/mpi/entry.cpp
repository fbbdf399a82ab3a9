#include "mpi/entry.h"

#include <cstdio>
#include <cstdlib>

#include "mpi/errors.h"

namespace lz::rt {

std::atomic<int> g_mpi_state{static_cast<int>(MpiState::kNotInitialized)};

void entry_outside_window(const char* function) {
  auto st = static_cast<MpiState>(g_mpi_state.load());
  const char* why = st == MpiState::kNotInitialized || st == MpiState::kInitializing
                        ? "called before MPI_Init"
                        : "called after MPI_Finalize";
  std::fprintf(stderr, "%s: %s\n", function, why);
  std::fflush(stderr);
  std::_Exit(MPI_ERR_OTHER);
}

}  // namespace lz::rt
