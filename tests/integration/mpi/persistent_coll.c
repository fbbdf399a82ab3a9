/* MPI-4.0 persistent collectives: initialized once, started many times
 * (MPI_Start, MPI_Startall), each start seeing the buffers' contents at
 * that time; freed when inactive. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#include "lz_test.h"

int main(int argc, char **argv) {
  int rank, size, it, i, rc, cls;
  MPI_Request rq[6];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 1000;
  long *in = malloc(sizeof(long) * n), *sum = malloc(sizeof(long) * n);
  int root_val = -1, *gathered = malloc(sizeof(int) * (size_t)size), mine = 0, scan = 0;
  int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
  int *a2a_out = malloc(sizeof(int) * (size_t)size), *a2a_in = malloc(sizeof(int) * (size_t)size);
  MPI_Datatype my_long;
  MPI_Type_contiguous(1, MPI_LONG, &my_long);
  MPI_Type_commit(&my_long);
  for (i = 0; i < size; ++i) {
    counts[i] = 1;
    displs[i] = size - 1 - i; /* reversed placement */
  }

  MPI_Allreduce_init(in, sum, n, my_long, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]);
  MPI_Type_free(&my_long); /* the persistent request keeps it */
  MPI_Bcast_init(&root_val, 1, MPI_INT, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]);
  MPI_Gatherv_init(&mine, 1, MPI_INT, gathered, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[2]);
  MPI_Scan_init(&mine, &scan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[3]);
  MPI_Alltoall_init(a2a_out, 1, MPI_INT, a2a_in, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[4]);
  MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &rq[5]);
  for (i = 0; i < 6; ++i) CHECK(rq[i] != MPI_REQUEST_NULL, "request %d", i);

  for (it = 0; it < 20; ++it) {
    for (i = 0; i < n; ++i) in[i] = (long)(rank + 1) * (it + 1) + i;
    if (rank == size - 1) root_val = 1000 + it;
    mine = rank * it;
    for (i = 0; i < size; ++i) a2a_out[i] = rank * 100 + i + it;
    if (it % 2 == 0) {
      MPI_Startall(6, rq);
      MPI_Waitall(6, rq, MPI_STATUSES_IGNORE);
    } else { /* one by one, completed by MPI_Test */
      for (i = 0; i < 6; ++i) {
        int done = 0;
        MPI_Start(&rq[i]);
        while (!done) MPI_Test(&rq[i], &done, MPI_STATUS_IGNORE);
      }
    }
    for (i = 0; i < 6; ++i) CHECK(rq[i] != MPI_REQUEST_NULL, "persistent request %d freed by its completion", i);
    for (i = 0; i < n; ++i) {
      const long want = (long)size * (size + 1) / 2 * (it + 1) + (long)size * i;
      CHECK(sum[i] == want, "iteration %d: sum[%d] = %ld, want %ld", it, i, sum[i], want);
    }
    CHECK(root_val == 1000 + it, "iteration %d: bcast %d", it, root_val);
    if (rank == 0)
      for (i = 0; i < size; ++i)
        CHECK(gathered[size - 1 - i] == i * it, "iteration %d: gathered[%d] = %d", it, size - 1 - i,
              gathered[size - 1 - i]);
    CHECK(scan == it * rank * (rank + 1) / 2, "iteration %d: scan %d", it, scan);
    for (i = 0; i < size; ++i) CHECK(a2a_in[i] == i * 100 + rank + it, "iteration %d: alltoall[%d] = %d", it, i, a2a_in[i]);
  }

  /* Started in another order on each rank: they match by the order of their
   * initialization (MPICH's p_order). */
  if (size > 1) {
    int a = -1;
    MPI_Request pr[2];
    MPI_Bcast_init(&a, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &pr[0]);
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &pr[1]);
    for (it = 0; it < 3; ++it) {
      if (rank == 0) {
        a = 42 + it;
        MPI_Start(&pr[0]);
        MPI_Start(&pr[1]);
      } else {
        MPI_Start(&pr[1]);
        MPI_Start(&pr[0]);
      }
      MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
      CHECK(a == 42 + it, "out of order: bcast gave %d", a);
    }
    MPI_Request_free(&pr[0]);
    MPI_Request_free(&pr[1]);
  }

  /* Freeing an active one is refused; inactive, it is freed. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Start(&rq[5]);
  rc = MPI_Request_free(&rq[5]);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_REQUEST && rq[5] != MPI_REQUEST_NULL, "free of an active request: class %d", cls);
  MPI_Wait(&rq[5], MPI_STATUS_IGNORE);
  for (i = 0; i < 6; ++i) {
    CHECK(MPI_Request_free(&rq[i]) == MPI_SUCCESS && rq[i] == MPI_REQUEST_NULL, "free %d", i);
  }
  /* A bad argument is reported by the initialization, with no request. */
  rc = MPI_Bcast_init(&root_val, 1, MPI_INT, size, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_ROOT && rq[0] == MPI_REQUEST_NULL, "bad root: class %d", cls);

  /* A neighbourhood one on a periodic ring. */
  {
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1}, got[2] = {-1, -1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    MPI_Neighbor_allgather_init(&mine, 1, MPI_INT, got, 1, MPI_INT, ring, MPI_INFO_NULL, &rq[0]);
    for (it = 0; it < 3; ++it) {
      mine = rank + 10 * it;
      MPI_Start(&rq[0]);
      MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
      CHECK(got[0] == (rank + size - 1) % size + 10 * it && got[1] == (rank + 1) % size + 10 * it,
            "neighbours %d %d", got[0], got[1]);
    }
    MPI_Request_free(&rq[0]);
    MPI_Comm_free(&ring);
  }
  free(in);
  free(sum);
  free(gathered);
  free(counts);
  free(displs);
  free(a2a_out);
  free(a2a_in);
  if (rank == 0) printf("persistent_coll: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
