/* Error handlers of the program's own (MPI_Comm_create_errhandler,
 * MPI_Comm_call_errhandler, MPI_Errhandler_free) and added error classes,
 * codes and strings (MPI_Add_error_class/_code/_string). */
#include <string.h>
#include "lz_test.h"

static int calls = 0, last_code = -1;
static MPI_Comm last_comm = MPI_COMM_NULL;

static void record(MPI_Comm *comm, int *code, ...) {
  ++calls;
  last_code = *code;
  last_comm = *comm;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, x = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  MPI_Errhandler eh, got;
  CHECK(MPI_Comm_create_errhandler(record, &eh) == MPI_SUCCESS, "Comm_create_errhandler");
  MPI_Comm dup, dup2;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_set_errhandler(dup, eh);
  MPI_Comm_get_errhandler(dup, &got);
  CHECK(got == eh, "Comm_get_errhandler does not return the handler set");

  /* an error in a call on dup: the handler runs, the call returns the class */
  int e = MPI_Send(&x, 1, MPI_INT, size, 0, dup);
  CHECK(e == MPI_ERR_RANK, "Send to rank %d returned %d", size, e);
  CHECK(calls == 1 && last_code == MPI_ERR_RANK && last_comm == dup, "handler: %d calls, code %d", calls, last_code);

  /* raised by the program */
  CHECK(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER) == MPI_SUCCESS, "Comm_call_errhandler");
  CHECK(calls == 2 && last_code == MPI_ERR_OTHER, "call_errhandler: %d calls, code %d", calls, last_code);

  /* inherited by a dup, and still working after MPI_Errhandler_free */
  MPI_Comm_dup(dup, &dup2);
  CHECK(MPI_Errhandler_free(&eh) == MPI_SUCCESS && eh == MPI_ERRHANDLER_NULL, "Errhandler_free");
  e = MPI_Recv(&x, 1, MPI_INT, size + 3, 0, dup2, MPI_STATUS_IGNORE);
  CHECK(e == MPI_ERR_RANK && calls == 3 && last_comm == dup2, "inherited handler: %d calls", calls);

  /* added classes, codes and strings: the same numbers on every rank */
  int cls, code, len, c;
  char s[MPI_MAX_ERROR_STRING];
  CHECK(MPI_Add_error_class(&cls) == MPI_SUCCESS && cls > MPI_ERR_LASTCODE, "Add_error_class: %d", cls);
  CHECK(MPI_Add_error_code(cls, &code) == MPI_SUCCESS && code > cls, "Add_error_code: %d", code);
  CHECK(MPI_Add_error_string(code, "the disk is on fire") == MPI_SUCCESS, "Add_error_string");
  MPI_Error_class(code, &c);
  CHECK(c == cls, "Error_class of an added code: %d, expected %d", c, cls);
  MPI_Error_string(code, s, &len);
  CHECK(strcmp(s, "the disk is on fire") == 0 && len == (int)strlen(s), "Error_string: '%s'", s);
  MPI_Error_string(cls, s, &len);
  CHECK(len == 0, "a class with no string added has '%s'", s);
  MPI_Add_error_string(cls, "storage trouble");
  MPI_Error_string(cls, s, &len);
  CHECK(strcmp(s, "storage trouble") == 0, "class string '%s'", s);
  MPI_Error_class(cls, &c);
  CHECK(c == cls, "an added class is its own class");
  int other;
  MPI_Add_error_code(MPI_ERR_OTHER, &other); /* a code of a predefined class */
  MPI_Error_class(other, &c);
  CHECK(c == MPI_ERR_OTHER, "added code of MPI_ERR_OTHER has class %d", c);
  int lo, hi;
  MPI_Allreduce(&code, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&code, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(lo == hi, "ranks added different codes (%d..%d)", lo, hi);
  MPI_Comm_call_errhandler(dup, code);
  CHECK(last_code == code, "handler got %d for the added code %d", last_code, code);

  /* errors of the calls themselves */
  int ecls;
  e = MPI_Add_error_code(cls + 1000, &other);
  MPI_Error_class(e, &ecls);
  CHECK(ecls == MPI_ERR_ARG, "Add_error_code of an unknown class: %d", ecls);
  e = MPI_Add_error_string(MPI_ERR_RANK, "mine now");
  MPI_Error_class(e, &ecls);
  CHECK(ecls == MPI_ERR_ARG, "Add_error_string on a predefined code: %d", ecls);
  e = MPI_Comm_set_errhandler(dup, MPI_ERRHANDLER_NULL);
  CHECK(e == MPI_ERR_ARG && calls == 5, "set_errhandler(NULL): %d (handler calls %d)", e, calls);

  MPI_Comm_free(&dup2);
  MPI_Comm_free(&dup);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("errhandler: ok (%d ranks)\n", size);
  MPI_Finalize();
  return 0;
}
