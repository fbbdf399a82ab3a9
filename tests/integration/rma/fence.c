/* Active target with MPI_Win_fence: several rounds of epochs in a row, each
 * round a put epoch (ring neighbours and all-to-all), a get epoch (all-to-all,
 * reading what a third rank put) and an accumulate epoch (every rank into
 * every rank), opened and closed with the assertions a correct program may
 * give: MPI_MODE_NOPRECEDE, NOSTORE, NOPUT, NOSUCCEED. Every value is checked
 * after its closing fence. Any np >= 1. */
#include <stdlib.h>

#include "rma_test.h"

#define K 4 /* ints per block */
#define ROUNDS 5

static int rank, size;

static int val(int src, int dst, int round, int i) { return src * 1000000 + dst * 10000 + round * 100 + i; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;

  /* Window layout (ints): [0, 2K) ring blocks (from the left, from the
   * right), [RING, RING + size*K) one block per origin, then K accumulated. */
  const int RING = 0, A2A = 2 * K, ACC = A2A + size * K, TOTAL = ACC + K;
  int* w = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(rma_size(TOTAL * sizeof(int)), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
  int *src = malloc((2 * K + size * K) * sizeof(int)), *got = malloc(size * K * sizeof(int));

  for (int round = 0; round < ROUNDS; ++round) {
    for (int i = 0; i < TOTAL; ++i) w[i] = -1;
    /* Put epoch. The first fence completes nothing (NOPRECEDE); the stores
     * above forbid NOSTORE. */
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    for (int i = 0; i < K; ++i) {
      src[i] = val(rank, right, round, i);
      src[K + i] = val(rank, left, round, i) + 50;
    }
    CHECK_MPI(MPI_Put(src, K, MPI_INT, right, RING, K, MPI_INT, win));
    CHECK_MPI(MPI_Put(src + K, K, MPI_INT, left, RING + K, K, MPI_INT, win));
    for (int t = 0; t < size; ++t) {
      int* s = src + 2 * K + t * K;
      for (int i = 0; i < K; ++i) s[i] = val(rank, t, round, i) + 70;
      CHECK_MPI(MPI_Put(s, K, MPI_INT, t, A2A + rank * K, K, MPI_INT, win));
    }
    /* No local stores during the epoch; the next epoch only reads. */
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win));
    for (int i = 0; i < K; ++i) {
      CHECK(w[RING + i] == val(left, rank, round, i),
            "round %d: MPI_Put from left rank %d, element %d: got %d, expected %d", round, left, i, w[RING + i],
            val(left, rank, round, i));
      CHECK(w[RING + K + i] == val(right, rank, round, i) + 50,
            "round %d: MPI_Put from right rank %d, element %d: got %d, expected %d", round, right, i, w[RING + K + i],
            val(right, rank, round, i) + 50);
    }
    for (int s = 0; s < size; ++s)
      for (int i = 0; i < K; ++i)
        CHECK(w[A2A + s * K + i] == val(s, rank, round, i) + 70,
              "round %d: all-to-all MPI_Put from rank %d, element %d: got %d, expected %d", round, s, i,
              w[A2A + s * K + i], val(s, rank, round, i) + 70);

    /* Get epoch: from every rank t, the block the next rank put there. */
    for (int i = 0; i < size * K; ++i) got[i] = -2;
    const int third = (rank + 1) % size;
    for (int t = 0; t < size; ++t) CHECK_MPI(MPI_Get(got + t * K, K, MPI_INT, t, A2A + third * K, K, MPI_INT, win));
    /* The accumulate region is reset by its owner meanwhile (no RMA touches
     * it in this epoch), so the closing fence may not assert NOSTORE. */
    for (int i = 0; i < K; ++i) w[ACC + i] = 1000 * round;
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int t = 0; t < size; ++t)
      for (int i = 0; i < K; ++i)
        CHECK(got[t * K + i] == val(third, t, round, i) + 70,
              "round %d: MPI_Get from rank %d of rank %d's block, element %d: got %d, expected %d", round, t, third, i,
              got[t * K + i], val(third, t, round, i) + 70);

    /* Accumulate epoch: every rank adds into every rank, twice. */
    int add[K];
    for (int i = 0; i < K; ++i) add[i] = (rank + 1) * (i + 1 + round);
    for (int rep = 0; rep < 2; ++rep)
      for (int t = 0; t < size; ++t)
        CHECK_MPI(MPI_Accumulate(add, K, MPI_INT, (t + rank) % size, ACC, K, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win));
    for (int i = 0; i < K; ++i) {
      const int want = 1000 * round + 2 * (i + 1 + round) * size * (size + 1) / 2;
      CHECK(w[ACC + i] == want,
            "round %d: MPI_Accumulate(MPI_SUM) from all %d ranks twice, element %d: got %d, expected %d", round, size,
            i, w[ACC + i], want);
    }
    RMA_OK(rank, "fence round %d (put, get, accumulate epochs)", round);
  }

  /* Epochs that alternate puts into and gets from the same location, a
   * fence between each: every get sees the put of the epoch before. */
  for (int i = 0; i < TOTAL; ++i) w[i] = 0;
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  for (int step = 1; step <= 10; ++step) {
    int v = rank * 100 + step, g = -1;
    CHECK_MPI(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win));
    /* The get epoch that follows puts nothing: my window is stable in it. */
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win));
    CHECK(w[0] == left * 100 + step, "step %d: my window after MPI_Put from rank %d: got %d, expected %d", step, left,
          w[0], left * 100 + step);
    CHECK_MPI(MPI_Get(&g, 1, MPI_INT, left, 0, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSTORE, win));
    /* The value at the left neighbour was put by its own left neighbour. */
    const int ll = (left - 1 + size) % size;
    CHECK(g == ll * 100 + step, "step %d: MPI_Get from rank %d after the put epoch: got %d, expected %d", step, left, g,
          ll * 100 + step);
  }
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  RMA_OK(rank, "fence: alternating put and get epochs");

  CHECK_MPI(MPI_Win_free(&win));
  free(src);
  free(got);
  RMA_OK(rank, "fence: %d ranks", size);
  MPI_Finalize();
  return 0;
}
