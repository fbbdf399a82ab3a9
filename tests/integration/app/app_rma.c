/* app_rma.c: examples/stencil.c's heat stencil with its grid in one-sided
 * windows, under application-level checkpoints (cr=app). The grid (owned rows
 * plus a halo row above and below) is the memory of an MPI_Win_allocate
 * window; each iteration puts this rank's edge rows into its neighbours'
 * halos between two MPI_Win_fence. The program makes its window again on a
 * restart, before LZ_Restore, and registers the window's memory:
 *
 *   app_rma N ITERS [plain [US]]  the grid with LZ_Register_decomposed: a
 *                                 snapshot restarts on any rank count; US
 *                                 microseconds of sleep per iteration
 *   app_rma N ITERS tagged        also an int in a second window, different
 *                                 on every rank, with plain LZ_Register: a
 *                                 restart on another rank count must be
 *                                 refused, naming it
 *
 * Output (rank 0): "app_rma: restarted at iteration I on P ranks" after a
 * restore, and "app_rma: N=.. iterations=.. sum=.. hash=.." at the end, the
 * same bit for bit on any rank count and after any restart. */
#include <lazarus/checkpoint.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 48;
  const int iters = argc > 2 ? atoi(argv[2]) : 40;
  const int tagged = argc > 3 && strcmp(argv[3], "tagged") == 0;
  const int delay_us = argc > 4 ? atoi(argv[4]) : 0;
  if (n < 3 || n < size) {
    if (rank == 0) fprintf(stderr, "app_rma: N must be at least 3 and at least the number of ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int rows = n / size + (rank < n % size ? 1 : 0);
  const int first = rank * (n / size) + (rank < n % size ? rank : n % size);
  const MPI_Aint bytes = (MPI_Aint)(rows + 2) * n * (MPI_Aint)sizeof(double);
  double *grid = NULL;
  MPI_Win win;
  if (MPI_Win_allocate(bytes, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &grid, &win) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
  memset(grid, 0, (size_t)bytes);
  double *next = calloc((size_t)(rows + 2) * n, sizeof(double));
  if (!next) MPI_Abort(MPI_COMM_WORLD, 1);
#define AT(g, r, c) ((g)[(size_t)(r) * n + (c)]) /* r: 0 = halo above, 1..rows owned */

  int *tag = NULL;
  MPI_Win tag_win = MPI_WIN_NULL;
  if (tagged) {
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &tag, &tag_win);
    *tag = 1000 + rank;
    LZ_Register("tag", tag, 1, MPI_INT);
  }

  int it = 0;
  const int global[2] = {n, n}, start[2] = {first, 0}, owned[2] = {rows, n};
  const int alloc[2] = {rows + 2, n}, offset[2] = {1, 0};
  LZ_Register("it", &it, 1, MPI_INT);
  LZ_Register_decomposed("grid", grid, MPI_DOUBLE, 2, global, start, owned, alloc, offset);

  int restarting = 0;
  LZ_Restarting(&restarting);
  if (restarting) {
    LZ_Restore();
    if (tagged && *tag != 1000 + rank) {
      fprintf(stderr, "app_rma: rank %d restored tag %d, want %d\n", rank, *tag, 1000 + rank);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
      printf("app_rma: restarted at iteration %d on %d ranks\n", it, size);
      fflush(stdout);
    }
  } else {
    for (int r = 1; r <= rows; ++r)
      for (int c = 0; c < n; ++c) {
        const uint32_t g = (uint32_t)(first + r - 1);
        uint32_t h = g * 2654435761u ^ ((uint32_t)c + 0x9e3779b9u) * 2246822519u;
        h ^= h >> 15;
        h *= 2654435761u;
        h ^= h >> 13;
        AT(grid, r, c) = g == 0 ? 100.0 : (double)(h % 100000u) / 1000.0;
      }
  }

  const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  /* The neighbours' row counts: where this rank's edge rows land in their halos. */
  const int up_rows = n / size + (rank - 1 < n % size ? 1 : 0);
  for (; it < iters; ++it) {
    LZ_Checkpoint(NULL);
    MPI_Win_fence(0, win);
    /* My first owned row into the halo below the last row of the rank above,
     * my last owned row into the halo above the first row of the rank below. */
    if (up != MPI_PROC_NULL)
      MPI_Put(&AT(grid, 1, 0), n, MPI_DOUBLE, up, (MPI_Aint)(up_rows + 1) * n, n, MPI_DOUBLE, win);
    if (down != MPI_PROC_NULL) MPI_Put(&AT(grid, rows, 0), n, MPI_DOUBLE, down, 0, n, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    for (int r = 1; r <= rows; ++r) {
      const int g = first + r - 1;
      for (int c = 0; c < n; ++c) {
        if (g == 0 || g == n - 1 || c == 0 || c == n - 1) {
          AT(next, r, c) = AT(grid, r, c);
          continue;
        }
        AT(next, r, c) = 0.25 * (AT(grid, r - 1, c) + AT(grid, r + 1, c) + AT(grid, r, c - 1) + AT(grid, r, c + 1));
      }
    }
    memcpy(&AT(grid, 1, 0), &AT(next, 1, 0), (size_t)rows * n * sizeof(double));
    if (delay_us > 0) usleep((useconds_t)delay_us);
  }

  int *counts = NULL, *displs = NULL;
  double *whole = NULL;
  if (rank == 0) {
    counts = malloc(sizeof(int) * size);
    displs = malloc(sizeof(int) * size);
    whole = malloc(sizeof(double) * (size_t)n * n);
    for (int p = 0, at = 0; p < size; ++p) {
      counts[p] = (n / size + (p < n % size ? 1 : 0)) * n;
      displs[p] = at;
      at += counts[p];
    }
  }
  MPI_Gatherv(&AT(grid, 1, 0), rows * n, MPI_DOUBLE, whole, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    double sum = 0.0;
    uint64_t hash = 1469598103934665603ull; /* FNV-1a of the bytes */
    const unsigned char *b = (const unsigned char *)whole;
    for (size_t i = 0; i < (size_t)n * n; ++i) sum += whole[i];
    for (size_t i = 0; i < sizeof(double) * (size_t)n * n; ++i) hash = (hash ^ b[i]) * 1099511628211ull;
    printf("app_rma: N=%d iterations=%d sum=%.10f hash=%016llx\n", n, iters, sum, (unsigned long long)hash);
  }
  free(whole);
  free(counts);
  free(displs);
  free(next);
  if (tagged) MPI_Win_free(&tag_win);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
