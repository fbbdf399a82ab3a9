/* Large RMA, beyond any eager limit: 1 MiB and 16 MiB moved by MPI_Put
 * (fence), MPI_Get (shared lock) and MPI_Accumulate (MPI_SUM, lock_all),
 * contiguous and into a strided target (blocks of 4 ints every 6), and back
 * from it by MPI_Get, every int checked. Any np >= 1 (about 56 MiB per
 * rank). */
#include <stdlib.h>

#include "rma_test.h"

#define MAX_BYTES (16 << 20)
#define BL 4     /* strided: BL ints ... */
#define STRIDE 6 /* ... every STRIDE */

static int rank, size;

static int pat(int r, long j, int k) {
  return (int)(((unsigned)j * 2654435761u ^ ((unsigned)r * 0x9e3779b9u + (unsigned)k * 7919u)) & 0x3fffffff);
}

static void check_range(const int* p, long n, const char* what, int r, int k, int plus) {
  for (long j = 0; j < n; ++j)
    if (p[j] != pat(r, j, k) + plus)
      CHECK(p[j] == pat(r, j, k) + plus, "%s: int %ld of %ld: got %d, expected %d", what, j, n, p[j],
            pat(r, j, k) + plus);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size, ll = (left - 1 + size) % size;
  const long max_ints = MAX_BYTES / sizeof(int), win_ints = max_ints / BL * STRIDE;
  int *w = NULL, *src = malloc(MAX_BYTES), *dst = malloc(MAX_BYTES);
  CHECK(src && dst, "malloc of 2 x %d bytes", MAX_BYTES);
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(win_ints * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
  const long sizes[2] = {1 << 20, MAX_BYTES};
  char what[160];

  for (int s = 0; s < 2; ++s) {
    const long n = sizes[s] / sizeof(int);
    const int mib = (int)(sizes[s] >> 20);
    /* Contiguous put. */
    for (long j = 0; j < n; ++j) src[j] = pat(rank, j, 1);
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    CHECK_MPI(MPI_Put(src, (int)n, MPI_INT, right, 0, (int)n, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win));
    snprintf(what, sizeof what, "%d MiB MPI_Put from rank %d", mib, left);
    check_range(w, n, what, left, 1, 0);

    /* Contiguous get of what the left neighbour received. */
    for (long j = 0; j < n; ++j) dst[j] = -1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win));
    CHECK_MPI(MPI_Get(dst, (int)n, MPI_INT, left, 0, (int)n, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(left, win));
    snprintf(what, sizeof what, "%d MiB MPI_Get from rank %d (of rank %d's put)", mib, left, ll);
    check_range(dst, n, what, ll, 1, 0);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Contiguous accumulate: + 3 everywhere, twice (once per half-epoch). */
    for (long j = 0; j < n; ++j) src[j] = 3;
    CHECK_MPI(MPI_Win_lock_all(0, win));
    CHECK_MPI(MPI_Accumulate(src, (int)n, MPI_INT, right, 0, (int)n, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(right, win));
    CHECK_MPI(MPI_Accumulate(src, (int)n, MPI_INT, right, 0, (int)n, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    snprintf(what, sizeof what, "%d MiB MPI_Accumulate(MPI_SUM) from rank %d", mib, left);
    check_range(w, n, what, left, 1, 6);
    CHECK_MPI(MPI_Win_unlock(rank, win));
    RMA_OK(rank, "%d MiB contiguous: put, get, accumulate", mib);

    /* Strided target: contiguous in, the gaps untouched; back by a get. */
    MPI_Datatype vec;
    MPI_Type_vector((int)(n / BL), BL, STRIDE, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    const long extent = n / BL * STRIDE;
    for (long j = 0; j < n; ++j) src[j] = pat(rank, j, 2);
    for (long k = 0; k < extent; ++k) w[k] = -7;
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    CHECK_MPI(MPI_Put(src, (int)n, MPI_INT, right, 0, 1, vec, win));
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win));
    for (long k = 0; k < extent; ++k) {
      const long b = k / STRIDE, i = k % STRIDE;
      const int want = i < BL ? pat(left, b * BL + i, 2) : -7;
      if (w[k] != want)
        CHECK(w[k] == want, "%d MiB MPI_Put from rank %d into vector(%ld,%d,%d): int %ld: got %d, expected %d", mib,
              left, n / BL, BL, STRIDE, k, w[k], want);
    }
    for (long j = 0; j < n; ++j) dst[j] = -1;
    CHECK_MPI(MPI_Get(dst, (int)n, MPI_INT, right, 0, 1, vec, win));
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSTORE, win));
    snprintf(what, sizeof what, "%d MiB MPI_Get from rank %d's vector(%ld,%d,%d) of my put", mib, right, n / BL, BL,
             STRIDE);
    check_range(dst, n, what, rank, 2, 0);

    /* Accumulate into the strided target: + 5 on the blocks only. */
    for (long j = 0; j < n; ++j) src[j] = 5;
    CHECK_MPI(MPI_Accumulate(src, (int)n, MPI_INT, right, 0, 1, vec, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, win));
    for (long k = 0; k < extent; ++k) {
      const long b = k / STRIDE, i = k % STRIDE;
      const int want = i < BL ? pat(left, b * BL + i, 2) + 5 : -7;
      if (w[k] != want)
        CHECK(w[k] == want,
              "%d MiB MPI_Accumulate(MPI_SUM) from rank %d into vector(%ld,%d,%d): int %ld: got %d, "
              "expected %d",
              mib, left, n / BL, BL, STRIDE, k, w[k], want);
    }
    MPI_Type_free(&vec);
    RMA_OK(rank, "%d MiB strided: put, get, accumulate", mib);
  }
  CHECK_MPI(MPI_Win_free(&win));
  free(src);
  free(dst);
  RMA_OK(rank, "large: %d ranks", size);
  MPI_Finalize();
  return 0;
}
