/* Helpers of the RMA integration programs, on top of the MPI suite's CHECK
 * (a failed check names the rank, file and line, prints why and aborts the
 * job with exit code 1). Plain MPI only: the programs also build with Open
 * MPI's and MPICH's mpicc. */
#ifndef RMA_TEST_H
#define RMA_TEST_H
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
#endif
