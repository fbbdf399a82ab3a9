/* Error handling: with MPI_ERRORS_RETURN a truncated receive returns
 * MPI_ERR_TRUNCATE (eager and rendezvous sizes) and bad arguments return their
 * class; error strings and classes. */
#include <string.h>
#include "lz_test.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Errhandler eh;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
  CHECK(eh == MPI_ERRORS_ARE_FATAL, "default error handler");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  static const int sizes[] = {10, 100000};
  for (int k = 0; k < 2; ++k) {
    int n = sizes[k];
    char *s = malloc((size_t)n), *r = malloc((size_t)n);
    memset(s, 'x', (size_t)n);
    memset(r, 0, (size_t)n);
    MPI_Request req;
    MPI_Isend(s, n, MPI_CHAR, next, 5, MPI_COMM_WORLD, &req);
    MPI_Status st;
    int rc = MPI_Recv(r, n / 2, MPI_CHAR, prev, 5, MPI_COMM_WORLD, &st);
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "truncated receive of %d bytes returned %d", n, rc);
    CHECK(r[n / 2 - 1] == 'x' && r[n / 2] == 0, "truncated receive wrote the wrong bytes");
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    free(s), free(r);
  }
  int x = 0;
  CHECK(MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD) == MPI_ERR_RANK, "invalid rank accepted");
  CHECK(MPI_Send(&x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD) == MPI_ERR_TAG, "invalid tag accepted");
  CHECK(MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_ERR_COUNT, "negative count accepted");
  CHECK(MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE, "null datatype accepted");
  char text[MPI_MAX_ERROR_STRING];
  int len;
  MPI_Error_string(MPI_ERR_TRUNCATE, text, &len);
  CHECK(len > 0 && strstr(text, "truncated") != NULL, "error string '%s'", text);
  /* Back to fatal: a clean run must not trip it. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  if (rank == 0) printf("errors: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
