/* lz_checkpoint.c: the failure-free cost of a safe point that takes nothing.
 * Every rank registers a small state and calls LZ_Checkpoint(NULL) `calls`
 * times in a tight loop (no checkpoint is due: cr_app_every 0, no interval,
 * no request); rank 0 prints nanoseconds per call. Run under --mca cr app
 * (the AppService's counter and pending-request check), cr criu (a safe point
 * with no file) and cr none (the binding's argument checks only).
 *
 *   mpicc -O2 lz_checkpoint.c -o lz_checkpoint && mpirun -np 2 --mca cr app ./lz_checkpoint 10000000
 */
#include <lazarus/checkpoint.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const long calls = argc > 1 ? atol(argv[1]) : 10000000L;
  int rank, taken = 0, state = 42;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  LZ_Register("state", &state, 1, MPI_INT);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (long i = 0; i < calls; ++i) {
    int t = 0;
    LZ_Checkpoint(&t);
    taken += t;
  }
  const double t1 = MPI_Wtime();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("lz_checkpoint: %ld calls, %.2f ns per call, %d taken\n", calls, (t1 - t0) * 1e9 / calls, taken);
  MPI_Finalize();
  return 0;
}
