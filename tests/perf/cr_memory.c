/* cr_memory.c: the job measured by tests/perf/cr_times. Each rank fills MIB
 * mebibytes with pseudo-random bytes (nothing CRIU could skip as a zero page),
 * says "ready" (rank 0), then iterates an allreduce every 10 ms until the file
 * STOP exists (checked by rank 0, broadcast), and prints a checksum of its
 * memory so a restored job can be compared with the original.
 *
 *   mpicc cr_memory.c -o cr_memory && mpirun -np 4 ./cr_memory 256 /tmp/stop
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
  uint64_t *mem = malloc(bytes);
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
    ++iters;
    usleep(10000);
  }
  uint64_t h = 0;
  for (size_t i = 0; i < bytes / 8; i += 512) h = h * 31 + mem[i];
  uint64_t all = 0;
  MPI_Reduce(&h, &all, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("checksum %016llx\n", (unsigned long long)all);
  free(mem);
  MPI_Finalize();
  return 0;
}
