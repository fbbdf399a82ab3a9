/* CR integration test program: an iterative ring computation whose result
 * depends on every message. Usage: cr_iter ITERATIONS [STALL_ITER]
 * Every rank sends its running value to the right and receives from the
 * left each iteration (about 20 ms apart, so a checkpoint lands in the
 * middle of communication). With STALL_ITER, rank 0 sleeps 4 s before its
 * send in that iteration: every other rank then sits in MPI_Recv waiting for
 * a peer that is itself blocked. Rank 0 prints "result <checksum>". */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int iters = argc > 1 ? atoi(argv[1]) : 100;
  int stall = argc > 2 ? atoi(argv[2]) : -1;
  uint64_t v = 1469598103934665603ull ^ (uint64_t)(rank + 1);
  uint64_t buf[64];
  for (int it = 0; it < iters; ++it) {
    for (int k = 0; k < 64; ++k) buf[k] = v * (uint64_t)(k + 1) + (uint64_t)it;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    uint64_t in[64];
    if (rank == 0) {
      if (it == stall) {
        printf("stalling\n");
        fflush(stdout);
        sleep(4);
      }
      MPI_Send(buf, 64, MPI_UINT64_T, right, it, MPI_COMM_WORLD);
      MPI_Recv(in, 64, MPI_UINT64_T, left, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(in, 64, MPI_UINT64_T, left, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, 64, MPI_UINT64_T, right, it, MPI_COMM_WORLD);
    }
    for (int k = 0; k < 64; ++k) v = (v ^ in[k]) * 1099511628211ull;
    uint64_t sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    v ^= sum >> 7;
    usleep(20000);
  }
  uint64_t total = 0;
  MPI_Reduce(&v, &total, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("result %llu\n", (unsigned long long)total);
  MPI_Finalize();
  return 0;
}
