/* Passive target progress: rank 0 exposes a window, then computes without
 * any MPI call, watching a flag in its window memory with volatile loads,
 * while every other rank locks it (shared and exclusive in turn), adds into
 * a counter with MPI_Accumulate, puts into a slot of its own, reads the slot
 * back, and unlocks. Once all origins are done the last one sets the flag by
 * an MPI_Put under an exclusive lock. The runtime must complete all of this
 * without rank 0 entering MPI (an asynchronous progress agent); rank 0 fails
 * the test if the flag is not set within 60 s. np 1 has no origin: rank 0
 * sets the flag itself. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "rma_test.h"

#define ITER 50
#define TIMEOUT_S 60.0

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* The origins among themselves. */
  MPI_Comm origins;
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, rank, &origins);
  /* Rank 0's window (ints): [0] the flag, [1] the counter, [2 + r] rank r's
   * slot. The others expose nothing. */
  const int FLAG = 0, COUNTER = 1, SLOT = 2;
  int* w = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(rank == 0 ? rma_size((2 + size) * sizeof(int)) : 0, sizeof(int), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &w, &win));
  if (rank == 0)
    for (int i = 0; i < 2 + size; ++i) w[i] = i < SLOT ? 0 : -1;
  MPI_Barrier(MPI_COMM_WORLD);

  if (rank == 0) {
    if (size == 1) {
      const int one = 1;
      CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      CHECK_MPI(MPI_Put(&one, 1, MPI_INT, 0, FLAG, 1, MPI_INT, win));
      CHECK_MPI(MPI_Win_unlock(0, win));
    }
    /* No MPI call from here until the flag is seen. */
    double x = 0.0;
    const double waited = rma_compute_until_set(&w[FLAG], TIMEOUT_S, &x);
    if (waited < 0) {
      fprintf(stderr,
              "rank 0: passive target: flag not set %.0f s after the origins started, while rank 0 made no MPI "
              "call (counter %d of %d expected; no asynchronous progress?)\n",
              TIMEOUT_S, ((volatile int*)w)[COUNTER], (size - 1) * ITER);
      fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK(w[FLAG] == 1, "flag: got %d, expected 1", w[FLAG]);
    CHECK(w[COUNTER] == (size - 1) * ITER,
          "counter after %d MPI_Accumulate(MPI_SUM, 1) by each of %d origins: got %d, expected %d", ITER, size - 1,
          w[COUNTER], (size - 1) * ITER);
    for (int r = 1; r < size; ++r)
      CHECK(w[SLOT + r] == 1000 * r + ITER - 1, "slot of rank %d after its last MPI_Put: got %d, expected %d", r,
            w[SLOT + r], 1000 * r + ITER - 1);
    CHECK_MPI(MPI_Win_unlock(0, win));
    printf("rank 0 computed %.1f s (x = %g) without MPI calls while %d origins worked\n", waited, x, size - 1);
  } else {
    const int one = 1;
    for (int it = 0; it < ITER; ++it) {
      const int lock = it % 2 ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, v = 1000 * rank + it;
      int back = -1;
      CHECK_MPI(MPI_Win_lock(lock, 0, 0, win));
      CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT, 0, COUNTER, 1, MPI_INT, MPI_SUM, win));
      CHECK_MPI(MPI_Put(&v, 1, MPI_INT, 0, SLOT + rank, 1, MPI_INT, win));
      CHECK_MPI(MPI_Win_flush(0, win));
      CHECK_MPI(MPI_Get(&back, 1, MPI_INT, 0, SLOT + rank, 1, MPI_INT, win));
      CHECK_MPI(MPI_Win_unlock(0, win));
      CHECK(back == v,
            "iteration %d: MPI_Get of my slot at rank 0 (which makes no MPI call) after MPI_Put: got %d, "
            "expected %d",
            it, back, v);
    }
    MPI_Barrier(origins);
    if (rank == size - 1) {
      CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      CHECK_MPI(MPI_Put(&one, 1, MPI_INT, 0, FLAG, 1, MPI_INT, win));
      CHECK_MPI(MPI_Win_unlock(0, win));
    }
    MPI_Comm_free(&origins);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_free(&win));
  RMA_OK(rank, "passive_progress: %d ranks", size);
  MPI_Finalize();
  return 0;
}
