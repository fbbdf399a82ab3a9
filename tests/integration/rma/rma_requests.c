/* Request-based RMA under MPI_Win_lock_all: MPI_Rput (completed by
 * MPI_Waitall: the origin buffer is reusable, which the test does before the
 * flush), MPI_Raccumulate (MPI_Wait each), MPI_Rget (MPI_Test until done),
 * MPI_Rget_accumulate with MPI_NO_OP (MPI_Waitall), MPI_SUM (each fetched
 * value distinct) and MPI_REPLACE (MPI_Testall until done). Any np >= 1. */
#include <stdlib.h>

#include "rma_test.h"

#define K 8
#define ITER 20

static int rank, size;

static int val(int src, int i) { return src * 1000 + i; }

static int cmp_int(const void* a, const void* b) {
  int x = *(const int*)a, y = *(const int*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  /* Window (ints): [0, K) put by the left neighbour, [K] accumulated by
   * all, [K + 1] fetched-and-added by all (on rank 0), [K + 2] swapped by
   * the left neighbour. */
  const int PUT = 0, ACC = K, FETCH = K + 1, SWAP = K + 2;
  int* w = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(rma_size((K + 3) * sizeof(int)), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
  for (int i = 0; i < K + 3; ++i) w[i] = -1;
  w[ACC] = w[FETCH] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_lock_all(0, win));

  /* MPI_Rput, one request per element; the buffer is overwritten as soon as
   * MPI_Waitall returns, before the flush that completes the puts remotely. */
  int src[K];
  MPI_Request req[K];
  for (int i = 0; i < K; ++i) src[i] = val(rank, i);
  for (int i = 0; i < K; ++i) CHECK_MPI(MPI_Rput(&src[i], 1, MPI_INT, right, PUT + i, 1, MPI_INT, win, &req[i]));
  CHECK_MPI(MPI_Waitall(K, req, MPI_STATUSES_IGNORE));
  for (int i = 0; i < K; ++i) {
    CHECK(req[i] == MPI_REQUEST_NULL, "MPI_Waitall did not free MPI_Rput request %d", i);
    src[i] = -12345;
  }
  CHECK_MPI(MPI_Win_flush(right, win));

  /* MPI_Raccumulate into every rank's counter. */
  int add = rank + 1;
  for (int k = 0; k < size; ++k) {
    MPI_Request r;
    CHECK_MPI(MPI_Raccumulate(&add, 1, MPI_INT, (rank + k) % size, ACC, 1, MPI_INT, MPI_SUM, win, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(r == MPI_REQUEST_NULL, "MPI_Wait did not free the MPI_Raccumulate request");
  }
  CHECK_MPI(MPI_Win_flush_all(win));
  MPI_Barrier(MPI_COMM_WORLD);

  /* MPI_Rget of what the left neighbour's left neighbour put there. */
  int got[K];
  for (int i = 0; i < K; ++i) got[i] = -2;
  MPI_Request r;
  CHECK_MPI(MPI_Rget(got, K, MPI_INT, left, PUT, K, MPI_INT, win, &r));
  int flag = 0;
  while (!flag) CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
  CHECK(r == MPI_REQUEST_NULL, "MPI_Test did not free the completed MPI_Rget request");
  const int ll = (left - 1 + size) % size;
  for (int i = 0; i < K; ++i)
    CHECK(got[i] == val(ll, i), "MPI_Rget from rank %d of rank %d's MPI_Rput, element %d: got %d, expected %d", left,
          ll, i, got[i], val(ll, i));
  RMA_OK(rank, "MPI_Rput, MPI_Raccumulate, MPI_Rget");

  /* MPI_Rget_accumulate(MPI_NO_OP): every rank's counter. */
  int* counters = malloc(size * sizeof(int));
  MPI_Request* reqs = malloc(size * sizeof(MPI_Request));
  for (int t = 0; t < size; ++t)
    CHECK_MPI(
        MPI_Rget_accumulate(NULL, 0, MPI_INT, &counters[t], 1, MPI_INT, t, ACC, 1, MPI_INT, MPI_NO_OP, win, &reqs[t]));
  CHECK_MPI(MPI_Waitall(size, reqs, MPI_STATUSES_IGNORE));
  for (int t = 0; t < size; ++t)
    CHECK(counters[t] == size * (size + 1) / 2,
          "MPI_Rget_accumulate(MPI_NO_OP) of rank %d's counter after MPI_Raccumulate by all: got %d, expected %d", t,
          counters[t], size * (size + 1) / 2);

  /* MPI_Rget_accumulate(MPI_SUM) on one counter by all. */
  int fetched[ITER], one = 1;
  for (int it = 0; it < ITER; ++it) {
    CHECK_MPI(MPI_Rget_accumulate(&one, 1, MPI_INT, &fetched[it], 1, MPI_INT, 0, FETCH, 1, MPI_INT, MPI_SUM, win, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  }

  /* MPI_Rget_accumulate(MPI_REPLACE): the right neighbour's swap word. */
  int mine = rank, old = -7;
  CHECK_MPI(MPI_Rget_accumulate(&mine, 1, MPI_INT, &old, 1, MPI_INT, right, SWAP, 1, MPI_INT, MPI_REPLACE, win, &r));
  flag = 0;
  while (!flag) CHECK_MPI(MPI_Testall(1, &r, &flag, MPI_STATUSES_IGNORE));
  CHECK(old == -1, "MPI_Rget_accumulate(MPI_REPLACE) at rank %d: old value %d, expected -1", right, old);
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);

  int* all = rank == 0 ? malloc((size_t)size * ITER * sizeof(int)) : NULL;
  MPI_Gather(fetched, ITER, MPI_INT, all, ITER, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
  CHECK(w[SWAP] == left, "swap word after MPI_Rget_accumulate(MPI_REPLACE) by rank %d: %d, expected %d", left, w[SWAP],
        left);
  if (rank == 0) {
    CHECK(w[FETCH] == size * ITER, "counter after %d MPI_Rget_accumulate(MPI_SUM) by each of %d ranks: %d, expected %d",
          ITER, size, w[FETCH], size * ITER);
    qsort(all, (size_t)size * ITER, sizeof(int), cmp_int);
    for (int i = 0; i < size * ITER; ++i)
      CHECK(all[i] == i, "MPI_Rget_accumulate(MPI_SUM) fetched values, sorted, position %d: %d, expected %d", i, all[i],
            i);
  }
  CHECK_MPI(MPI_Win_unlock(rank, win));
  RMA_OK(rank, "MPI_Rget_accumulate MPI_NO_OP, MPI_SUM, MPI_REPLACE");

  free(all);
  free(counters);
  free(reqs);
  CHECK_MPI(MPI_Win_free(&win));
  RMA_OK(rank, "rma_requests: %d ranks", size);
  MPI_Finalize();
  return 0;
}
