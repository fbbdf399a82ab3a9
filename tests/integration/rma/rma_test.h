/* Helpers of the RMA integration programs, on top of the MPI suite's CHECK
 * (a failed check names the rank, file and line, prints why and aborts the
 * job with exit code 1). Plain MPI only: the programs also build with Open
 * MPI's and MPICH's mpicc. */
#ifndef RMA_TEST_H
#define RMA_TEST_H
#include <stdint.h>
#include <time.h>

#include "../mpi/lz_test.h"

/* A window's size in bytes rounded up to 64. MPICH 4.0.2's MPI_Win_allocate
 * misplaces RMA accesses at a rank whose size is not a multiple of 16 (the
 * returned base and the MPI_WIN_BASE attribute differ); win_flavors checks
 * sizes that are not rounded. */
static inline MPI_Aint rma_size(MPI_Aint bytes) { return (bytes + 63) / 64 * 64; }

/* Rank 0 prints a progress line. */
#define RMA_OK(rank, ...)  \
  do {                     \
    if ((rank) == 0) {     \
      printf(__VA_ARGS__); \
      printf(" ok\n");     \
      fflush(stdout);      \
    }                      \
  } while (0)

/* A target that computes outside MPI (passive_progress, native_put): spins
 * on arithmetic, with no MPI call, watching *flag with volatile loads until
 * another rank's put sets it. Returns the seconds it waited, or -1 once
 * `timeout_s` passed without the flag (needs clock_gettime: the program
 * defines _POSIX_C_SOURCE). *x: the arithmetic's result, for the report. */
static inline double rma_compute_until_set(volatile int* flag, double timeout_s, double* x) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  const double start = t.tv_sec + 1e-9 * t.tv_nsec;
  double v = 1.0;
  uint64_t polls = 0;
  while (*flag == 0) {
    for (int k = 0; k < 10000; ++k) v = v * 0.9999999 + 1e-7;
    if (++polls % 64 == 0) {
      clock_gettime(CLOCK_MONOTONIC, &t);
      if (t.tv_sec + 1e-9 * t.tv_nsec - start > timeout_s) return -1.0;
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t);
  *x = v;
  return t.tv_sec + 1e-9 * t.tv_nsec - start;
}
#endif
