/* Passive target: MPI_Win_lock exclusive and shared, MPI_Win_unlock,
 * MPI_Win_lock_all / unlock_all, MPI_Win_flush, flush_all, flush_local,
 * flush_local_all. A counter incremented by get, add, put under an exclusive
 * lock by every rank checks mutual exclusion (the final value must be exactly
 * np * iterations, for a counter on rank 0 and for one on every rank); a get
 * after a flush sees the put before it; an origin buffer is reused after
 * flush_local; several shared locks held at once; a lock on oneself, then
 * loads and stores. Any np >= 1. */
#include <stdlib.h>

#include "rma_test.h"

#define K 4
#define ITER 40

static int rank, size;

/* Window layout (ints). */
static int HOT, RR, SLOT, LOCAL1, LOCAL2, STABLE, SELF, TOTAL;

/* counter += 1 at rank t by get, flush, add, put under an exclusive lock. */
static void increment(MPI_Win win, int t, int disp) {
  int v = -1;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
  CHECK_MPI(MPI_Get(&v, 1, MPI_INT, t, disp, 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_flush(t, win));
  CHECK(v >= 0 && v < size * ITER, "MPI_Get of the counter at rank %d under an exclusive lock: %d, expected 0..%d", t,
        v, size * ITER - 1);
  ++v;
  CHECK_MPI(MPI_Put(&v, 1, MPI_INT, t, disp, 1, MPI_INT, win));
  CHECK_MPI(MPI_Win_unlock(t, win));
}

/* The value at disp of my own window, read under a shared lock on myself. */
static int read_own(MPI_Win win, const int* w, int disp) {
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
  int v = w[disp];
  CHECK_MPI(MPI_Win_unlock(rank, win));
  return v;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  HOT = 0, RR = 1, SLOT = 2, LOCAL1 = SLOT + size * K, LOCAL2 = LOCAL1 + size * K, STABLE = LOCAL2 + size * K;
  SELF = STABLE + K, TOTAL = SELF + 1;
  int* w = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(rma_size(TOTAL * sizeof(int)), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
  for (int i = 0; i < TOTAL; ++i) w[i] = 0;
  for (int i = 0; i < K; ++i) w[STABLE + i] = rank * 1000 + i;
  CHECK_MPI(MPI_Win_unlock(rank, win));
  MPI_Barrier(MPI_COMM_WORLD);

  /* Mutual exclusion: a counter on rank 0 every rank hits, then one counter
   * per rank, visited round-robin from different starting points. */
  for (int it = 0; it < ITER; ++it) increment(win, 0, HOT);
  for (int it = 0; it < ITER; ++it) increment(win, (rank + it) % size, RR);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    const int hot = read_own(win, w, HOT);
    CHECK(hot == size * ITER, "counter on rank 0 after %d exclusive get-add-put by each of %d ranks: %d, expected %d",
          ITER, size, hot, size * ITER);
  }
  /* Over all ranks, the round-robin counters sum to size * ITER. */
  int rr = read_own(win, w, RR), rr_sum = 0;
  MPI_Allreduce(&rr, &rr_sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(rr_sum == size * ITER, "round-robin counters: sum %d, expected %d (mine %d)", rr_sum, size * ITER, rr);
  RMA_OK(rank, "exclusive lock: counters of %d increments", size * ITER);

  /* Shared locks on every rank at once, gets of their stable data. */
  int* got = malloc(size * K * sizeof(int));
  for (int i = 0; i < size * K; ++i) got[i] = -1;
  for (int k = 0; k < size; ++k) CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, (rank + k) % size, 0, win));
  for (int t = 0; t < size; ++t) CHECK_MPI(MPI_Get(got + t * K, K, MPI_INT, t, STABLE, K, MPI_INT, win));
  for (int k = 0; k < size; ++k) CHECK_MPI(MPI_Win_unlock((rank + size - k) % size, win));
  for (int t = 0; t < size; ++t)
    for (int i = 0; i < K; ++i)
      CHECK(got[t * K + i] == t * 1000 + i, "MPI_Get from rank %d under a shared lock, element %d: got %d, expected %d",
            t, i, got[t * K + i], t * 1000 + i);
  RMA_OK(rank, "shared locks on every rank at once");

  /* lock_all: puts into my slot everywhere, flushed, read back. */
  int mine[K], back[K], buf[K];
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int t = 0; t < size; ++t) {
    for (int i = 0; i < K; ++i) mine[i] = rank * 100 + t * 10 + i;
    CHECK_MPI(MPI_Put(mine, K, MPI_INT, t, SLOT + rank * K, K, MPI_INT, win));
    if (t % 2)
      CHECK_MPI(MPI_Win_flush(t, win));
    else
      CHECK_MPI(MPI_Win_flush_all(win));
    for (int i = 0; i < K; ++i) back[i] = -1;
    CHECK_MPI(MPI_Get(back, K, MPI_INT, t, SLOT + rank * K, K, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush(t, win));
    for (int i = 0; i < K; ++i)
      CHECK(back[i] == rank * 100 + t * 10 + i,
            "MPI_Get from rank %d after MPI_Put and %s, element %d: got %d, expected %d", t,
            t % 2 ? "MPI_Win_flush" : "MPI_Win_flush_all", i, back[i], rank * 100 + t * 10 + i);
  }
  /* The origin buffer is free after flush_local / flush_local_all. */
  for (int t = 0; t < size; ++t) {
    for (int i = 0; i < K; ++i) buf[i] = 1 + t + i;
    CHECK_MPI(MPI_Put(buf, K, MPI_INT, t, LOCAL1 + rank * K, K, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush_local(t, win));
    for (int i = 0; i < K; ++i) buf[i] = -(1 + t + i);
    CHECK_MPI(MPI_Put(buf, K, MPI_INT, t, LOCAL2 + rank * K, K, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush_local_all(win));
    for (int i = 0; i < K; ++i) buf[i] = 9999;
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
  for (int s = 0; s < size; ++s)
    for (int i = 0; i < K; ++i) {
      CHECK(w[SLOT + s * K + i] == s * 100 + rank * 10 + i,
            "slot of rank %d after MPI_Win_unlock_all, element %d: got %d, expected %d", s, i, w[SLOT + s * K + i],
            s * 100 + rank * 10 + i);
      CHECK(w[LOCAL1 + s * K + i] == 1 + rank + i,
            "MPI_Put from rank %d before its MPI_Win_flush_local, element %d: got %d, expected %d", s, i,
            w[LOCAL1 + s * K + i], 1 + rank + i);
      CHECK(w[LOCAL2 + s * K + i] == -(1 + rank + i),
            "MPI_Put from rank %d before its MPI_Win_flush_local_all, element %d: got %d, expected %d", s, i,
            w[LOCAL2 + s * K + i], -(1 + rank + i));
    }
  CHECK_MPI(MPI_Win_unlock(rank, win));
  RMA_OK(rank, "lock_all, flush, flush_all, flush_local, flush_local_all");

  /* A lock on oneself, then loads and stores; the others read the stores. */
  for (int it = 0; it < 3; ++it) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    const int before = w[SELF];
    CHECK(before == (it == 0 ? 0 : rank * 7 + it - 1), "load under a lock on myself, iteration %d: got %d, expected %d",
          it, before, it == 0 ? 0 : rank * 7 + it - 1);
    w[SELF] = rank * 7 + it;
    CHECK_MPI(MPI_Win_unlock(rank, win));
    MPI_Barrier(MPI_COMM_WORLD);
    const int left = (rank - 1 + size) % size;
    int v = -1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win));
    CHECK_MPI(MPI_Get(&v, 1, MPI_INT, left, SELF, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(left, win));
    CHECK(v == left * 7 + it, "MPI_Get of rank %d's store under its lock on itself, iteration %d: got %d, expected %d",
          left, it, v, left * 7 + it);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  RMA_OK(rank, "lock on self, load and store");

  free(got);
  CHECK_MPI(MPI_Win_free(&win));
  RMA_OK(rank, "lock: %d ranks", size);
  MPI_Finalize();
  return 0;
}
