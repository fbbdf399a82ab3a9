/* lz_api.c: the LZ_* calls beyond the stencil's use, on a real job.
 * First run: errors are returned through MPI_COMM_WORLD's handler
 * (MPI_ERRORS_RETURN here) with the MPI error class; a name unregistered
 * and registered again; a derived (struct) datatype and a size registered;
 * one checkpoint taken at safe point 1 (cr_app_every 1), then "api: saved".
 * Restarted (lazarus restart): incremental restore as CUMULVS' stv_loadFromCP
 * does: restore the size, allocate, register the array, restore again; a
 * variable the snapshot lacks is an error; prints "api: restored ... ok".
 */
#include <lazarus/checkpoint.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

struct params {
  int steps;
  double scale;
};

static int failures = 0;
#define CHECK(cond, ...)                               \
  do {                                                 \
    if (!(cond)) {                                     \
      fprintf(stderr, "api: rank %d: ", rank);         \
      fprintf(stderr, __VA_ARGS__);                    \
      fprintf(stderr, "\n");                           \
      ++failures;                                      \
    }                                                  \
  } while (0)

static int error_class(int rc) {
  int cls = rc;
  MPI_Error_class(rc, &cls);
  return cls;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  /* A struct type: { int steps; double scale; }. */
  MPI_Datatype ptype;
  const int lens[2] = {1, 1};
  const MPI_Aint disps[2] = {offsetof(struct params, steps), offsetof(struct params, scale)};
  const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Type_create_struct(2, lens, disps, types, &ptype);
  MPI_Type_commit(&ptype);

  int n = 0, scratch = 0;
  struct params p = {0, 0.0};
  CHECK(error_class(LZ_Register(NULL, &n, 1, MPI_INT)) == MPI_ERR_ARG, "a NULL name was accepted");
  CHECK(error_class(LZ_Register("n", &n, -1, MPI_INT)) != MPI_SUCCESS, "a negative count was accepted");
  CHECK(LZ_Register("n", &n, 1, MPI_INT) == LZ_SUCCESS, "LZ_Register(n) failed");
  CHECK(error_class(LZ_Register("n", &n, 1, MPI_INT)) == MPI_ERR_ARG, "a name registered twice was accepted");
  CHECK(LZ_Register("params", &p, 1, ptype) == LZ_SUCCESS, "LZ_Register of a struct datatype failed");
  CHECK(LZ_Register("scratch", &scratch, 1, MPI_INT) == LZ_SUCCESS, "LZ_Register(scratch) failed");
  CHECK(LZ_Unregister("scratch") == LZ_SUCCESS, "LZ_Unregister(scratch) failed");
  CHECK(error_class(LZ_Unregister("scratch")) == MPI_ERR_ARG, "a name unregistered twice was accepted");
  CHECK(LZ_Register("scratch", &scratch, 1, MPI_INT) == LZ_SUCCESS, "registering an unregistered name again failed");
  CHECK(LZ_Unregister("scratch") == LZ_SUCCESS, "LZ_Unregister(scratch) failed");

  int restarting = -1;
  CHECK(LZ_Restarting(&restarting) == LZ_SUCCESS && (restarting == 0 || restarting == 1), "LZ_Restarting failed");
  double *a = NULL;
  if (!restarting) {
    n = 1000 + 7 * rank;
    p.steps = 40 + rank;
    p.scale = 0.5 * (rank + 1);
    a = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; ++i) a[i] = rank * 1e6 + i * 0.25;
    CHECK(LZ_Register("a", a, n, MPI_DOUBLE) == LZ_SUCCESS, "LZ_Register(a) failed");
    int taken = 0;
    CHECK(LZ_Checkpoint(&taken) == LZ_SUCCESS && taken == 1, "LZ_Checkpoint did not take the checkpoint (taken %d)", taken);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && failures == 0) printf("api: saved\n");
  } else {
    /* Restore the size first, then the array it sizes. */
    CHECK(LZ_Restore() == LZ_SUCCESS, "the first LZ_Restore failed");
    CHECK(n == 1000 + 7 * rank, "n = %d after the first restore, saved %d", n, 1000 + 7 * rank);
    CHECK(p.steps == 40 + rank && p.scale == 0.5 * (rank + 1), "params = {%d, %g} after the restore", p.steps, p.scale);
    a = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; ++i) a[i] = -1.0;
    CHECK(LZ_Register("a", a, n, MPI_DOUBLE) == LZ_SUCCESS, "LZ_Register(a) failed");
    CHECK(LZ_Restore() == LZ_SUCCESS, "the second LZ_Restore failed");
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += a[i] != rank * 1e6 + i * 0.25;
    CHECK(wrong == 0, "%d elements of a differ after the second restore", wrong);
    int extra = 0;
    CHECK(LZ_Register("not_saved", &extra, 1, MPI_INT) == LZ_SUCCESS, "LZ_Register(not_saved) failed");
    CHECK(error_class(LZ_Restore()) != MPI_SUCCESS, "a variable the snapshot lacks was restored");
    CHECK(LZ_Unregister("not_saved") == LZ_SUCCESS, "LZ_Unregister(not_saved) failed");
    int taken = -1;
    CHECK(LZ_Checkpoint(&taken) == LZ_SUCCESS && taken == 0, "the restored safe point took a checkpoint again");
    int bad = 0;
    MPI_Allreduce(&failures, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && bad == 0) printf("api: restored on %d ranks: n, params, a ok\n", size);
  }
  free(a);
  MPI_Type_free(&ptype);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
