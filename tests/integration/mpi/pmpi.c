/* The profiling interface (MPI-3.1 section 14.2): this program defines
 * MPI_Init, MPI_Send and MPI_Allreduce itself, as a tool does, counting the
 * calls and reaching the library by their PMPI_ names. Only the program's
 * own calls are seen: MPI_Sendrecv and MPI_Bcast do not call the wrapped
 * functions inside the library. */
#include <stdio.h>
#include <mpi.h>

#include "lz_test.h"

static int inits, sends, allreduces;

int MPI_Init(int *argc, char ***argv) {
  ++inits;
  return PMPI_Init(argc, argv);
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  ++sends;
  return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  ++allreduces;
  return PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
}

int main(int argc, char **argv) {
  int rank, size, i, v = 0, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int to = (rank + 1) % size, from = (rank + size - 1) % size;
  for (i = 0; i < 5; ++i) {
    if (rank % 2 == 0) {
      MPI_Send(&rank, 1, MPI_INT, to, 0, MPI_COMM_WORLD);
      MPI_Recv(&v, 1, MPI_INT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&v, 1, MPI_INT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&rank, 1, MPI_INT, to, 0, MPI_COMM_WORLD);
    }
    CHECK(v == from, "received %d", v);
  }
  MPI_Sendrecv(&rank, 1, MPI_INT, to, 1, &v, 1, MPI_INT, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  PMPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* not through the wrapper */
  CHECK(sum == size * (size - 1) / 2, "sum %d", sum);
  CHECK(inits == 1 && sends == 5 && allreduces == 1, "intercepted: %d MPI_Init, %d MPI_Send (5), %d MPI_Allreduce (1)",
        inits, sends, allreduces);
  if (rank == 0) printf("pmpi: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
