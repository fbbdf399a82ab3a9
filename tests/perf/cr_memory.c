/* cr_memory.c: the job measured by tests/perf/cr_times. Each rank fills MIB
 * mebibytes with pseudo-random bytes (nothing CRIU could skip as a zero page),
 * says "ready" (rank 0), then iterates an allreduce every 10 ms until the file
 * STOP exists (checked by rank 0, broadcast), and prints a checksum of its
 * memory so a restored job can be compared with the original.
 *
 *   mpicc cr_memory.c -o cr_memory && mpirun -np 4 ./cr_memory 256 /tmp/stop
 *
 * With a third argument "windows" (tests/perf/cr_rma_times) the MIB live in
 * an MPI_Win_allocate window, a 1 MiB MPI_Win_allocate_shared window and an
 * MPI_Win_create_dynamic window are open too, and each iteration also puts
 * into the right neighbour's window in a fence epoch and accumulates into
 * rank 0's under a shared lock: the same memory, with windows open.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: cr_memory MIB STOPFILE\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  size_t bytes = (size_t)atol(argv[1]) << 20;
  const int windows = argc > 3 && argv[3][0] == 'w';
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  uint64_t *mem = NULL, *shared = NULL;
  MPI_Win win = MPI_WIN_NULL, sw = MPI_WIN_NULL, dw = MPI_WIN_NULL;
  if (windows) {
    MPI_Win_allocate((MPI_Aint)bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_allocate_shared(1 << 20, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &shared, &sw);
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dw);
    MPI_Win_fence(0, win);
  } else {
    mem = malloc(bytes);
  }
  if (!mem) MPI_Abort(MPI_COMM_WORLD, 1);
  uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(rank + 1);
  for (size_t i = 0; i < bytes / 8; ++i) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    mem[i] = x;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) { printf("ready\n"); fflush(stdout); }
  long iters = 0;
  for (;;) {
    int stop = rank == 0 && access(argv[2], F_OK) == 0;
    MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (stop) break;
    uint64_t local = mem[(size_t)iters % (bytes / 8)], sum = 0;
    MPI_Allreduce(&local, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (windows) {
      /* Into the last word of the right neighbour's window (the checksum
       * samples every 512th word from the first: never this one). */
      MPI_Put(&sum, 1, MPI_UINT64_T, (rank + 1) % size, (MPI_Aint)(bytes / 8 - 1), 1, MPI_UINT64_T, win);
      MPI_Win_fence(0, win);
      MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, sw);
      uint64_t one = 1;
      MPI_Accumulate(&one, 1, MPI_UINT64_T, 0, 0, 1, MPI_UINT64_T, MPI_SUM, sw);
      MPI_Win_unlock(0, sw);
    }
    ++iters;
    usleep(10000);
  }
  uint64_t h = 0;
  for (size_t i = 0; i < bytes / 8; i += 512) h = h * 31 + mem[i];
  uint64_t all = 0;
  MPI_Reduce(&h, &all, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("checksum %016llx\n", (unsigned long long)all);
  if (windows) {
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Win_free(&dw);
    MPI_Win_free(&sw);
    MPI_Win_free(&win);
  } else {
    free(mem);
  }
  MPI_Finalize();
  return 0;
}
