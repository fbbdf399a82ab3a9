/* stencil.c: a 2-D heat stencil on an N x N grid, block-decomposed by rows,
 * with application-level checkpoints (lazarus/checkpoint.h): the iteration
 * counter and the grid (owned rows plus one halo row above and below) are
 * registered; LZ_Checkpoint at the top of every iteration is the safe point.
 * The result (sum and hash of the whole grid, gathered in global order) is
 * the same bit for bit on any number of ranks and after any restart.
 *
 *   mpicc stencil.c -o stencil
 *   lazarus run -np 4 --mca cr app --mca cr_app_every 10 --recover auto ./stencil 128 400
 *   lazarus restart -np 2 ~/.lazarus/snapshots/stencil.<id>     # on another rank count
 *
 * Arguments: [N (128)] [iterations (400)] [microseconds of sleep per iteration (0)]
 */
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
  const int n = argc > 1 ? atoi(argv[1]) : 128;
  const int iters = argc > 2 ? atoi(argv[2]) : 400;
  const int delay_us = argc > 3 ? atoi(argv[3]) : 0;
  if (n < 3 || n < size) {
    if (rank == 0) fprintf(stderr, "stencil: N must be at least 3 and at least the number of ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  /* Rows [first, first + rows) of the grid are this rank's. */
  const int rows = n / size + (rank < n % size ? 1 : 0);
  const int first = rank * (n / size) + (rank < n % size ? rank : n % size);
  double *grid = calloc((size_t)(rows + 2) * n, sizeof(double));
  double *next = calloc((size_t)(rows + 2) * n, sizeof(double));
  if (!grid || !next) MPI_Abort(MPI_COMM_WORLD, 1);
#define AT(g, r, c) ((g)[(size_t)(r) * n + (c)]) /* r: 0 = halo above, 1..rows owned */

  int it = 0;
  const int global[2] = {n, n}, start[2] = {first, 0}, owned[2] = {rows, n};
  const int alloc[2] = {rows + 2, n}, offset[2] = {1, 0};
  LZ_Register("it", &it, 1, MPI_INT);
  LZ_Register_decomposed("grid", grid, MPI_DOUBLE, 2, global, start, owned, alloc, offset);

  int restarting = 0;
  LZ_Restarting(&restarting);
  if (restarting) {
    LZ_Restore();
    if (rank == 0) {
      printf("stencil: restarted at iteration %d on %d ranks\n", it, size);
      fflush(stdout); /* seen now, not at exit: it says the job runs again */
    }
  } else {
    /* A hot top edge and deterministic noise inside (a hash of the cell's
     * global position: the same on any rank count, and not so regular that a
     * compressor sees through it). */
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
  for (; it < iters; ++it) {
    LZ_Checkpoint(NULL);
    MPI_Sendrecv(&AT(grid, 1, 0), n, MPI_DOUBLE, up, 0, &AT(grid, rows + 1, 0), n, MPI_DOUBLE, down, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&AT(grid, rows, 0), n, MPI_DOUBLE, down, 1, &AT(grid, 0, 0), n, MPI_DOUBLE, up, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int r = 1; r <= rows; ++r) {
      const int g = first + r - 1;
      for (int c = 0; c < n; ++c) {
        if (g == 0 || g == n - 1 || c == 0 || c == n - 1) {
          AT(next, r, c) = AT(grid, r, c); /* fixed boundary */
          continue;
        }
        AT(next, r, c) = 0.25 * (AT(grid, r - 1, c) + AT(grid, r + 1, c) + AT(grid, r, c - 1) + AT(grid, r, c + 1));
      }
    }
    memcpy(&AT(grid, 1, 0), &AT(next, 1, 0), (size_t)rows * n * sizeof(double));
    if (delay_us > 0) usleep((useconds_t)delay_us);
  }

  /* Gather the whole grid on rank 0, in global order. */
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
    printf("stencil: N=%d iterations=%d sum=%.10f hash=%016llx\n", n, iters, sum, (unsigned long long)hash);
  }
  free(whole);
  free(counts);
  free(displs);
  free(grid);
  free(next);
  MPI_Finalize();
  return 0;
}
