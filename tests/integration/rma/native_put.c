/* One-sided operations that never involve the target: run with
 * `--mca osc_progress_interval 0` (no progress thread), so that nothing
 * but the transport itself can move data into rank 0's window while rank 0
 * makes no MPI call. Rank 0 exposes a window; in a fence epoch every origin
 * puts its rank into a slot (the runtime may use this epoch to learn how to
 * reach rank 0's memory). Then rank 0 computes without any MPI call,
 * watching a flag in its window with volatile loads, while every origin,
 * under MPI_Win_lock_all(MPI_MODE_NOCHECK), puts a 64 KiB block of its own
 * values and a slot value, flushes, reads the block back with MPI_Get and
 * checks it; the last origin then puts the flag. Rank 0 fails if the flag is
 * not set within argv[1] seconds (default 60), then checks every value.
 * With the transport's own puts and gets (osc_native_rma, over shm by
 * process_vm_writev) this passes; with every operation a message to rank
 * 0's agent it cannot (the negative control runs it with
 * osc_native_rma off and expects the timeout message). Over ucx and ofi
 * it runs with the progress thread on (CMakeLists.txt says why). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdlib.h>

#include "rma_test.h"

#define ITER 20
#define BLOCK (64 * 1024 / (int)sizeof(int))

static int value(int r, int it, int i) { return r * 1000003 + it * 7919 + i; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const double timeout_s = argc > 1 ? atof(argv[1]) : 60.0;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs at least 2 ranks, got %d", size);
  MPI_Comm origins;
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, rank, &origins);
  /* Rank 0's window (ints): [0] the flag, [1 + r] rank r's slot, then one
   * BLOCK per origin. */
  const int FLAG = 0, SLOT = 1, BLOCKS = 1 + size;
  const MPI_Aint n = BLOCKS + (MPI_Aint)size * BLOCK;
  int* w = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(rank == 0 ? rma_size(n * (MPI_Aint)sizeof(int)) : 0, sizeof(int), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &w, &win));
  if (rank == 0)
    for (MPI_Aint i = 0; i < n; ++i) w[i] = i < SLOT + size ? 0 : -1;

  /* A fence epoch, with rank 0 inside MPI. */
  CHECK_MPI(MPI_Win_fence(0, win));
  if (rank != 0) CHECK_MPI(MPI_Put(&rank, 1, MPI_INT, 0, SLOT + rank, 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  if (rank == 0)
    for (int r = 1; r < size; ++r) CHECK(w[SLOT + r] == r, "slot of rank %d after the fence: got %d", r, w[SLOT + r]);
  MPI_Barrier(MPI_COMM_WORLD);

  if (rank == 0) {
    /* No MPI call from here until the flag is seen. */
    double x = 0.0;
    const double waited = rma_compute_until_set(&w[FLAG], timeout_s, &x);
    if (waited < 0) {
      fprintf(stderr,
              "rank 0: native put did not land: flag not set %.0f s after the origins started, while rank 0 made "
              "no MPI call and had no progress thread\n",
              timeout_s);
      fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int r = 1; r < size; ++r) {
      CHECK(w[SLOT + r] == value(r, ITER - 1, -1), "slot of rank %d: got %d, expected %d", r, w[SLOT + r],
            value(r, ITER - 1, -1));
      const int* b = w + BLOCKS + (MPI_Aint)r * BLOCK;
      for (int i = 0; i < BLOCK; ++i)
        CHECK(b[i] == value(r, ITER - 1, i), "block of rank %d, int %d: got %d, expected %d", r, i, b[i],
              value(r, ITER - 1, i));
    }
    printf("rank 0 computed %.3f s (x = %g) without MPI calls while %d origins put and got\n", waited, x,
           size - 1);
  } else {
    int* mine = malloc(BLOCK * sizeof(int));
    int* back = malloc(BLOCK * sizeof(int));
    CHECK(mine != NULL && back != NULL, "out of memory");
    CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    for (int it = 0; it < ITER; ++it) {
      for (int i = 0; i < BLOCK; ++i) mine[i] = value(rank, it, i);
      const int slot = value(rank, it, -1);
      const MPI_Aint at = BLOCKS + (MPI_Aint)rank * BLOCK;
      CHECK_MPI(MPI_Put(mine, BLOCK, MPI_INT, 0, at, BLOCK, MPI_INT, win));
      CHECK_MPI(MPI_Put(&slot, 1, MPI_INT, 0, SLOT + rank, 1, MPI_INT, win));
      CHECK_MPI(MPI_Win_flush(0, win));
      CHECK_MPI(MPI_Get(back, BLOCK, MPI_INT, 0, at, BLOCK, MPI_INT, win));
      CHECK_MPI(MPI_Win_flush(0, win));
      for (int i = 0; i < BLOCK; ++i)
        CHECK(back[i] == mine[i], "iteration %d: int %d read back: got %d, expected %d", it, i, back[i], mine[i]);
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
    MPI_Barrier(origins);
    if (rank == size - 1) {
      const int one = 1;
      CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
      CHECK_MPI(MPI_Put(&one, 1, MPI_INT, 0, FLAG, 1, MPI_INT, win));
      CHECK_MPI(MPI_Win_unlock_all(win));
    }
    free(mine);
    free(back);
    MPI_Comm_free(&origins);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_free(&win));
  RMA_OK(rank, "native puts and gets to a target outside MPI, %d origins", size - 1);
  MPI_Finalize();
  return 0;
}
