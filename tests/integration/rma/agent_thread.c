/* The one-sided progress thread exists only while a window has a peer that
 * reaches it by messages (runtime/osc/progress_thread.h). Lazarus-specific,
 * unlike the other programs here: it counts this process's threads in
 * /proc/self/task.
 *
 *   MPI_Win_allocate_shared (every rank on this host loads and stores): no
 *   thread; MPI_Win_create beside it (memory reached by messages): one more
 *   thread; that window freed: none again. Over every transport, since a
 *   shared window never travels by message. Each window is also used
 *   (a put and a check) so the count is taken on a working window. */
#define _DEFAULT_SOURCE
#include <dirent.h>

#include "rma_test.h"

static int threads(void) {
  DIR* d = opendir("/proc/self/task");
  CHECK(d != NULL, "cannot open /proc/self/task");
  int n = 0;
  for (struct dirent* e; (e = readdir(d)) != NULL;)
    if (e->d_name[0] != '.') ++n;
  closedir(d);
  return n;
}

/* Rank r puts its rank into slot r of rank 0's window; rank 0 checks. */
static void use(MPI_Win win, int* base, int rank, int size) {
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put(&rank, 1, MPI_INT, 0, rank, 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  if (rank == 0)
    for (int r = 0; r < size; ++r) CHECK(base[r] == r, "slot %d holds %d", r, base[r]);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int before = threads();

  int* shared = NULL;
  MPI_Win sw;
  CHECK_MPI(MPI_Win_allocate_shared(size * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                    &shared, &sw));
  int* shared0 = NULL;
  MPI_Aint bytes;
  int unit;
  CHECK_MPI(MPI_Win_shared_query(sw, 0, &bytes, &unit, &shared0));
  use(sw, shared0, rank, size);
  CHECK(threads() == before, "%d threads with a shared window, %d before it: no progress thread is needed",
        threads(), before);

  int* mem = calloc((size_t)size, sizeof(int));
  MPI_Win cw;
  CHECK_MPI(MPI_Win_create(mem, size * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &cw));
  use(cw, mem, rank, size);
  CHECK(threads() == before + 1, "%d threads with an MPI_Win_create window, %d before: want one more", threads(),
        before);
  CHECK_MPI(MPI_Win_free(&cw));
  free(mem);
  CHECK(threads() == before, "%d threads after freeing the MPI_Win_create window, %d before: the thread must end",
        threads(), before);

  CHECK_MPI(MPI_Win_free(&sw));
  RMA_OK(rank, "progress thread only for windows reached by messages (np %d)", size);
  MPI_Finalize();
  return 0;
}
