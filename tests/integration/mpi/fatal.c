/* The default handler MPI_ERRORS_ARE_FATAL: a send to an invalid rank ends the
 * job with a message naming the call, the rank and the reason. */
#include "lz_test.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, x = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) MPI_Send(&x, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
