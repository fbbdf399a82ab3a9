/* app_incremental.c: a program whose registered state changes by a tenth
 * between safe points, for incremental snapshots (cr_incremental on): each
 * rank registers a 4 MiB array of doubles and an iteration counter, and
 * every iteration rewrites one tenth of the array (a window that moves by a
 * tenth each time) with values that depend on the iteration and the rank.
 * LZ_Checkpoint at the top of every iteration is the safe point. The result
 * (sum and hash of every rank's array, reduced) is the same after any
 * restart.
 *
 *   lazarus run -np 2 --mca cr app --mca cr_incremental on --mca cr_app_every 1 ./app_incremental 12 20000
 *
 * Arguments: [iterations (12)] [microseconds of sleep per iteration (0)]
 *            [MiB per rank (4)] [percent rewritten per iteration (10)]
 * (tests/perf/incremental_bytes runs it larger.)
 */
#include <lazarus/checkpoint.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 12;
  const int delay_us = argc > 2 ? atoi(argv[2]) : 0;
  const int N = (argc > 3 ? atoi(argv[3]) : 4) * 128 * 1024; /* doubles */
  const int pct = argc > 4 ? atoi(argv[4]) : 10;
  const int part = (int)((long long)N * pct / 100), parts = pct > 0 ? 100 / pct : 1;
  if (N <= 0 || pct <= 0 || pct > 100) {
    if (rank == 0) fprintf(stderr, "app_incremental: MiB per rank must be positive and percent within 1-100\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double *a = malloc(sizeof(double) * (size_t)N);
  if (a == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  int it = 0;
  LZ_Register("it", &it, 1, MPI_INT);
  LZ_Register("field", a, N, MPI_DOUBLE);
  int restarting = 0;
  LZ_Restarting(&restarting);
  if (restarting) {
    LZ_Restore();
    if (rank == 0) {
      printf("app_incremental: restarted at iteration %d\n", it);
      fflush(stdout);
    }
  } else {
    for (int i = 0; i < N; ++i) a[i] = (double)((i * 2654435761u + (unsigned)rank) % 100000u) / 7.0;
  }
  for (; it < iters; ++it) {
    LZ_Checkpoint(NULL);
    const int from = (it % parts) * part;
    for (int i = from; i < from + part; ++i) a[i] = a[i] * 0.5 + (double)(it + rank + (i & 63));
    if (delay_us > 0) usleep((useconds_t)delay_us);
  }
  double sum = 0;
  uint64_t hash = 1469598103934665603ull;
  for (int i = 0; i < N; ++i) {
    sum += a[i];
    union { double d; uint64_t u; } v = {a[i]};
    hash = (hash ^ v.u) * 1099511628211ull;
  }
  double total = 0;
  uint64_t hashes = 0;
  MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&hash, &hashes, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("app_incremental: sum=%.6f hash=%016llx\n", total, (unsigned long long)hashes);
  free(a);
  MPI_Finalize();
  return 0;
}
