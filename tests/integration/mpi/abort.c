/* The last rank calls MPI_Abort(MPI_COMM_WORLD, 3) while the others wait in a
 * receive that never completes: the job must end with exit status 3. */
#include <unistd.h>
#include "lz_test.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == size - 1) MPI_Abort(MPI_COMM_WORLD, 3);
  int x;
  MPI_Recv(&x, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
