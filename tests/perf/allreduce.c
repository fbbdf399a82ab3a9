/*
 * allreduce.c: MPI_Allreduce(MPI_DOUBLE, MPI_SUM) latency per count.
 *
 * Plain MPI-1 C, built with each implementation's mpicc by tests/perf/run_bench.
 *
 *   mpicc -O2 allreduce.c -o allreduce && mpirun -np 4 ./allreduce [options]
 *
 *   -q        quick: fewer iterations and repetitions
 *   -r N      repetitions per count (default 7, quick 3)
 *   -m COUNT  largest count in doubles (default 1048576 = 8 MiB)
 *   -t SEC    longest repetition allowed (default 0.5 s, quick 0.1 s)
 *
 * Counts are 1, 8, 64, ..., 262144 (powers of 8) and 1M doubles. Per count:
 * a short probe, warm-up calls, then N repetitions of `iters` calls, each
 * started by a barrier (iters: see the comment in main). A repetition's time per call is the
 * slowest rank's elapsed / iters (the collective is done when the last rank
 * is). Reported: median over repetitions (lat_us) and minimum (lat_min_us).
 * The result of one call per count is checked against the closed form on every
 * rank.
 *
 * Output (rank 0, stdout): '#' lines are comments; one line per count:
 *   allreduce np=<p> count=<n> bytes=<8n> iters=<i> reps=<r> lat_us=<x>
 *             lat_min_us=<x> [capped=1]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const long kCounts[] = {1, 8, 64, 512, 4096, 32768, 262144, 1048576};
enum { kNumCounts = sizeof kCounts / sizeof kCounts[0], kMaxReps = 64 };

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Elapsed seconds per call on the slowest rank. */
static double timed_calls(double* in, double* out, long count, long iters) {
  double t0, local, slowest;
  long i;
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (i = 0; i < iters; i++) MPI_Allreduce(in, out, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  local = (MPI_Wtime() - t0) / (double)iters;
  MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

int main(int argc, char** argv) {
  int rank, nprocs, quick = 0, reps = -1, a, r, c;
  long max_count = 1048576, i, errors = 0, total_errors = 0;
  double max_time = -1.0, *in, *out;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

  for (a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "-q")) {
      quick = 1;
    } else if (!strcmp(argv[a], "-r") && a + 1 < argc) {
      reps = atoi(argv[++a]);
    } else if (!strcmp(argv[a], "-m") && a + 1 < argc) {
      max_count = atol(argv[++a]);
    } else if (!strcmp(argv[a], "-t") && a + 1 < argc) {
      max_time = atof(argv[++a]);
    } else {
      if (rank == 0) fprintf(stderr, "allreduce: unknown option '%s'\n", argv[a]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (reps < 0) reps = quick ? 3 : 7;
  if (reps < 1) reps = 1;
  if (reps > kMaxReps) reps = kMaxReps;
  if (max_time <= 0) max_time = quick ? 0.1 : 0.5;
  if (max_count < 1) max_count = 1;

  in = (double*)malloc((size_t)max_count * sizeof(double));
  out = (double*)malloc((size_t)max_count * sizeof(double));
  if (!in || !out) {
    fprintf(stderr, "allreduce: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* Small integers: every partial sum is exact, so any reduction order gives
   * exactly sum_r (r + 1 + i % 7). */
  for (i = 0; i < max_count; i++) in[i] = (double)(rank + 1 + i % 7);
  memset(out, 0, (size_t)max_count * sizeof(double));

  if (rank == 0) {
    printf("# allreduce np=%d reps=%d max_rep_s=%g quick=%d op=MPI_SUM type=MPI_DOUBLE\n", nprocs, reps, max_time,
           quick);
    fflush(stdout);
  }

  for (c = 0; c < kNumCounts; c++) {
    long count = kCounts[c], iters, warm;
    double per = 0.0, times[kMaxReps];
    int capped;

    if (count > max_count) break;
    /* Fixed counts: 5000 calls up to 4 KiB, then 16 MiB worth, at least 5;
     * quick is 1/10. Lowered to fit -t only when a short probe predicts a
     * longer repetition (oversubscribed busy-polling implementations can take
     * milliseconds per call); the line then says capped=1. Every rank sees the
     * same slowest-rank time, so all agree. Warm-up: iters / 10. */
    iters = (long)(16777216 / (count * 8));
    if (iters > 5000) iters = 5000;
    if (iters < 5) iters = 5;
    if (quick) iters = iters / 10 < 3 ? 3 : iters / 10;
    /* Probe: 2 untimed calls, then the best of three runs of 4; it bounds
     * warm-up and iters. */
    (void)timed_calls(in, out, count, 2);
    for (r = 0; r < 3; r++) {
      double p = timed_calls(in, out, count, 4);
      if (r == 0 || p < per) per = p;
    }
    capped = 0;
    if (per * (double)iters > max_time) {
      long fit = (long)(max_time / per);
      iters = fit < 3 ? 3 : fit;
      capped = 1;
    }
    warm = iters / 10 < 2 ? 2 : iters / 10;
    (void)timed_calls(in, out, count, warm);

    for (r = 0; r < reps; r++) {
      times[r] = timed_calls(in, out, count, iters);
      /* Same slowest-rank time everywhere, so every rank shrinks alike when a
       * repetition on a loaded machine runs far past -t. */
      if (times[r] * (double)iters > 2 * max_time) {
        long fit = (long)(max_time / times[r]);
        iters = fit < 3 ? 3 : fit;
        capped = 1;
      }
    }

    memset(out, 0, (size_t)count * sizeof(double));
    MPI_Allreduce(in, out, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (i = 0; i < count; i++) {
      double want = (double)nprocs * (nprocs + 1) / 2.0 + (double)nprocs * (double)(i % 7);
      if (out[i] != want) errors++;
    }

    if (rank == 0) {
      double med, mn;
      qsort(times, (size_t)reps, sizeof times[0], cmp_double);
      mn = times[0];
      med = (reps % 2) ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
      printf(
          "allreduce np=%d count=%ld bytes=%ld iters=%ld reps=%d lat_us=%.3f "
          "lat_min_us=%.3f%s\n",
          nprocs, count, count * 8, iters, reps, med * 1e6, mn * 1e6, capped ? " capped=1" : "");
      fflush(stdout);
    }
  }

  MPI_Allreduce(&errors, &total_errors, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (total_errors)
      printf("# allreduce FAILED: %ld wrong elements\n", total_errors);
    else
      printf("# allreduce data check ok\n");
  }
  free(in);
  free(out);
  MPI_Finalize();
  return total_errors ? 1 : 0;
}
