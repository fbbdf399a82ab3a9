/* Persistent requests: a halo exchange on a ring with Send_init/Recv_init,
 * Startall/Waitall for many iterations, then Request_free. */
#include "lz_test.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  enum { N = 10000 };
  static double out_l[N], out_r[N], in_l[N], in_r[N];
  MPI_Request req[4];
  MPI_Recv_init(in_l, N, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
  MPI_Recv_init(in_r, N, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
  MPI_Send_init(out_r, N, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[2]);
  MPI_Send_init(out_l, N, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[3]);
  for (int it = 0; it < 200; ++it) {
    for (int i = 0; i < N; ++i) {
      out_r[i] = rank * 1e6 + it * 10 + i % 7;
      out_l[i] = -(rank * 1e6 + it * 10 + i % 5);
    }
    MPI_Startall(4, req);
    MPI_Status st[4];
    MPI_Waitall(4, req, st);
    for (int k = 0; k < 4; ++k) CHECK(req[k] != MPI_REQUEST_NULL, "persistent request %d was freed by Waitall", k);
    CHECK(st[0].MPI_SOURCE == left && st[1].MPI_SOURCE == right, "sources %d %d", st[0].MPI_SOURCE, st[1].MPI_SOURCE);
    for (int i = 0; i < N; ++i) {
      CHECK(in_l[i] == left * 1e6 + it * 10 + i % 7, "iteration %d element %d from the left", it, i);
      CHECK(in_r[i] == -(right * 1e6 + it * 10 + i % 5), "iteration %d element %d from the right", it, i);
    }
  }
  /* A persistent request restarted with MPI_Start one at a time. */
  MPI_Start(&req[0]);
  MPI_Start(&req[1]);
  MPI_Start(&req[2]);
  MPI_Start(&req[3]);
  int done = 0;
  while (!done) MPI_Testall(4, req, &done, MPI_STATUSES_IGNORE);
  for (int k = 0; k < 4; ++k) MPI_Request_free(&req[k]);
  CHECK(req[0] == MPI_REQUEST_NULL, "Request_free did not null the handle");
  if (rank == 0) printf("persistent: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
