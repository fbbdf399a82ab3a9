/* A token goes around the ring many times, growing through the eager and the
 * rendezvous sizes; every rank checks what it gets. */
#include <string.h>
#include "lz_test.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  static const int sizes[] = {0, 1, 8, 100, 4096, 65536, 300000, 1 << 21};
  char *buf = malloc(1 << 21);
  for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
    int n = sizes[s];
    for (int lap = 0; lap < 3; ++lap) {
      if (rank == 0) {
        for (int i = 0; i < n; ++i) buf[i] = (char)lz_pattern(0, lap, i);
        /* Isend: with one rank the token goes to itself. */
        char *out = malloc(n ? n : 1);
        memcpy(out, buf, n);
        MPI_Request req;
        MPI_Isend(out, n, MPI_CHAR, next, lap, MPI_COMM_WORLD, &req);
        memset(buf, 0, n);
        MPI_Status st;
        MPI_Recv(buf, n, MPI_CHAR, prev, lap, MPI_COMM_WORLD, &st);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        free(out);
        int count;
        MPI_Get_count(&st, MPI_CHAR, &count);
        CHECK(count == n && st.MPI_SOURCE == prev && st.MPI_TAG == lap, "count %d source %d tag %d", count,
              st.MPI_SOURCE, st.MPI_TAG);
      } else {
        MPI_Recv(buf, n, MPI_CHAR, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, n, MPI_CHAR, next, lap, MPI_COMM_WORLD);
      }
      for (int i = 0; i < n; ++i) CHECK(buf[i] == (char)lz_pattern(0, lap, i), "size %d byte %d", n, i);
    }
  }
  free(buf);
  if (rank == 0) printf("ring: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
