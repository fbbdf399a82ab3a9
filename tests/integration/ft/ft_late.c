/* ft_late.c: messages that cross safe points, for liblazarus-ft's bookmark
 * test. At every even iteration rank 0 sends the iteration number to rank 1,
 * which receives it in the next (odd) iteration, after that iteration's
 * LZ_Checkpoint: so at every even safe point call (odd iteration) a message
 * is on its way, and a snapshot due there must be postponed to the next
 * call, where none is. Rank 1 adds up what it receives (registered with the
 * iteration counter); rank 0 prints each iteration whose call wrote a
 * snapshot, and the total at the end, the same after any restart.
 *
 *   ft_late [iterations (40)] [microseconds of sleep per iteration (0)]
 */
#include <lazarus/checkpoint.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 40;
  const int delay_us = argc > 2 ? atoi(argv[2]) : 0;
  int it = 0;
  long acc = 0;
  LZ_Register("it", &it, 1, MPI_INT);
  LZ_Register("acc", &acc, 1, MPI_LONG);
  int restarting = 0;
  LZ_Restarting(&restarting);
  if (restarting) {
    LZ_Restore();
    if (rank == 0) printf("late: restarted at iteration %d\n", it);
  }
  for (; it < iters; ++it) {
    int taken = 0;
    LZ_Checkpoint(&taken);
    if (taken && rank == 0) printf("late: snapshot at iteration %d\n", it);
    if (it % 2 == 0 && rank == 0) MPI_Send(&it, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    if (it % 2 == 1 && rank == 1) {
      int v;
      MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (v != it - 1) {
        fprintf(stderr, "late: rank 1 got %d at iteration %d, expected %d\n", v, it, it - 1);
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
      acc += v;
    }
    if (delay_us > 0) usleep((useconds_t)delay_us);
  }
  long total = 0;
  MPI_Reduce(&acc, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("late: iterations=%d sum=%ld hash=0\n", iters, total);
  MPI_Finalize();
  return 0;
}
