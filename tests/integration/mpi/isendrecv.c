/* MPI-4.0's MPI_Isendrecv and MPI_Isendrecv_replace: one request for a send
 * and a receive, completing when both have, with the receive's status;
 * their messages match ordinary sends and receives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#include "lz_test.h"

int main(int argc, char **argv) {
  int rank, size, i, round, count, flag = 0;
  MPI_Status st;
  MPI_Request rq, two[2];
  MPI_Datatype every_other;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int to = (rank + 1) % size, from = (rank + size - 1) % size;

  /* Around a ring, at sizes from 1 int to past every eager limit. */
  for (round = 0; round < 4; ++round) {
    const int n = round == 0 ? 1 : round == 1 ? 100 : round == 2 ? 10000 : 300000;
    int *out = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
    for (i = 0; i < n; ++i) {
      out[i] = rank * 1000003 + i;
      in[i] = -1;
    }
    CHECK(MPI_Isendrecv(out, n, MPI_INT, to, 10 + round, in, n, MPI_INT, from, 10 + round, MPI_COMM_WORLD, &rq) ==
              MPI_SUCCESS && rq != MPI_REQUEST_NULL,
          "MPI_Isendrecv");
    MPI_Wait(&rq, &st);
    CHECK(rq == MPI_REQUEST_NULL, "request not freed");
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 10 + round, "status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == n, "count %d, want %d", count, n);
    for (i = 0; i < n; ++i) CHECK(in[i] == from * 1000003 + i, "round %d: in[%d] = %d", round, i, in[i]);
    free(out);
    free(in);
  }

  /* _replace, with a derived datatype (every other int of 2n), tested for. */
  {
    enum { N = 5000 };
    int *buf = malloc(sizeof(int) * 2 * N);
    MPI_Type_vector(N, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    for (i = 0; i < 2 * N; ++i) buf[i] = i % 2 ? -7 : rank * 100000 + i;
    MPI_Isendrecv_replace(buf, 1, every_other, to, 3, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &rq);
    MPI_Type_free(&every_other); /* the request keeps what it needs */
    while (!flag) MPI_Test(&rq, &flag, &st);
    CHECK(st.MPI_SOURCE == from, "ANY_SOURCE matched %d", st.MPI_SOURCE);
    for (i = 0; i < 2 * N; ++i)
      CHECK(buf[i] == (i % 2 ? -7 : from * 100000 + i), "replace: buf[%d] = %d", i, buf[i]);
    free(buf);
  }

  /* Its messages match an ordinary MPI_Recv and MPI_Send: rank r sends to
   * r+1 by MPI_Isendrecv and receives from r-1 by MPI_Recv, the sends from
   * MPI_Send... with the ring split into senders (even) and others. */
  if (size > 1) {
    int a = rank, b = -1, c = -1;
    MPI_Isendrecv(&a, 1, MPI_INT, to, 4, &b, 1, MPI_INT, from, 5, MPI_COMM_WORLD, &two[0]);
    MPI_Recv(&c, 1, MPI_INT, from, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&a, 1, MPI_INT, to, 5, MPI_COMM_WORLD);
    MPI_Wait(&two[0], &st);
    CHECK(b == from && c == from && st.MPI_TAG == 5, "mixed: b %d c %d tag %d", b, c, st.MPI_TAG);
  }

  /* With MPI_PROC_NULL on both sides: completes, source MPI_PROC_NULL. */
  {
    int x = 1, y = 2;
    MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, &st);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && y == 2, "PROC_NULL: source %d y %d", st.MPI_SOURCE, y);
  }

  /* Two at once to both neighbours, completed by MPI_Waitall. */
  {
    int l = -1, r = -1, me = rank;
    MPI_Isendrecv(&me, 1, MPI_INT, to, 6, &l, 1, MPI_INT, from, 6, MPI_COMM_WORLD, &two[0]);
    MPI_Isendrecv(&me, 1, MPI_INT, from, 7, &r, 1, MPI_INT, to, 7, MPI_COMM_WORLD, &two[1]);
    MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
    CHECK(l == from && r == to, "both ways: l %d r %d", l, r);
  }

  /* A receive too small: MPI_ERR_TRUNCATE through the request. */
  if (size > 1) {
    int big[4] = {1, 2, 3, 4}, small = 0, cls = 0, rc;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Isendrecv(big, 4, MPI_INT, to, 8, &small, 1, MPI_INT, from, 8, MPI_COMM_WORLD, &rq);
    rc = MPI_Wait(&rq, &st);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "truncation: class %d", cls);
    rc = MPI_Isendrecv(big, 1, MPI_INT, size, 0, &small, 1, MPI_INT, from, 0, MPI_COMM_WORLD, &rq);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK && rq == MPI_REQUEST_NULL, "bad destination: class %d", cls);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("isendrecv: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
