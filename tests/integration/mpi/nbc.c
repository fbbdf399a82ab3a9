/* Non-blocking collectives: MPI_Ibarrier, MPI_Ibcast, MPI_Ireduce,
 * MPI_Iallreduce, MPI_Igather, MPI_Iscatter, MPI_Iallgather, MPI_Ialltoall,
 * with every root, MPI_IN_PLACE, a derived datatype and a non-commutative
 * op; several in flight at once and beside a blocking collective; progress
 * while the rank waits on something else (a root that waits for a message
 * its peer sends only once the bcast has reached it); argument errors. */
#include <stdlib.h>
#include <string.h>
#include "lz_test.h"

/* Concatenation of decimal digit strings, each a pair {value, 10^length}:
 * associative, not commutative, so the result shows the operand order. */
static void concat(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  long *a = in, *b = inout;
  for (int i = 0; i < *len; ++i) {
    b[2 * i] = a[2 * i] * b[2 * i + 1] + b[2 * i];
    b[2 * i + 1] *= a[2 * i + 1];
  }
}

static void wait_by_test(MPI_Request *r) {
  int flag = 0;
  while (!flag) CHECK(MPI_Test(r, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS, "MPI_Test");
  CHECK(*r == MPI_REQUEST_NULL, "a completed request was not freed");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Request r;

  /* ---- barrier ---- */
  CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &r) == MPI_SUCCESS, "Ibarrier");
  wait_by_test(&r);

  /* ---- bcast from every root, plain and with a strided type ---- */
  MPI_Datatype every_other;
  MPI_Type_vector(4, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  for (int root = 0; root < size; ++root) {
    int v[5] = {0, 0, 0, 0, 0}, strided[8];
    for (int i = 0; i < 8; ++i) strided[i] = rank == root ? 100 * root + i : -1;
    if (rank == root)
      for (int i = 0; i < 5; ++i) v[i] = root * 1000 + i;
    MPI_Request two[2];
    MPI_Ibcast(v, 5, MPI_INT, root, MPI_COMM_WORLD, &two[0]);
    MPI_Ibcast(strided, 1, every_other, root, MPI_COMM_WORLD, &two[1]);
    MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 5; ++i) CHECK(v[i] == root * 1000 + i, "Ibcast from %d: v[%d] = %d", root, i, v[i]);
    for (int i = 0; i < 8; ++i) {
      int expect = i % 2 == 0 || rank == root ? 100 * root + i : -1;
      CHECK(strided[i] == expect, "strided Ibcast from %d: [%d] = %d, expected %d", root, i, strided[i], expect);
    }
  }
  MPI_Type_free(&every_other); /* freed while nothing is in flight; below, one is freed while in flight */

  /* ---- reduce (sum and a non-commutative op) to every root, in place too ---- */
  MPI_Op cat;
  MPI_Op_create(concat, 0, &cat);
  MPI_Datatype digits;
  MPI_Type_contiguous(2, MPI_LONG, &digits);
  MPI_Type_commit(&digits);
  long digits_expect = 0;
  for (int i = 0; i < size; ++i) digits_expect = digits_expect * 10 + (i + 1) % 10;
  for (int root = 0; root < size; ++root) {
    long sum_in = rank + 1, sum_out = -1, mine[2] = {(rank + 1) % 10, 10}, out[2] = {-1, -1};
    if (rank == root && root % 2 == 1) {
      sum_out = sum_in;
      out[0] = mine[0];
      out[1] = mine[1];
      MPI_Ireduce(MPI_IN_PLACE, &sum_out, 1, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      MPI_Ireduce(MPI_IN_PLACE, out, 1, digits, cat, root, MPI_COMM_WORLD, &r);
    } else {
      MPI_Ireduce(&sum_in, &sum_out, 1, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      MPI_Ireduce(mine, out, 1, digits, cat, root, MPI_COMM_WORLD, &r);
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (rank == root) {
      CHECK(sum_out == (long)size * (size + 1) / 2, "Ireduce sum to %d: %ld", root, sum_out);
      CHECK(out[0] == digits_expect, "Ireduce non-commutative to %d: %ld, expected %ld", root, out[0], digits_expect);
    }
  }

  /* ---- allreduce, in place, and several collectives in flight at once ---- */
  {
    double a = rank + 0.5, sum = 0, inplace = 2.0 * rank;
    int token = rank == 0 ? 77 : 0;
    MPI_Request many[3];
    MPI_Iallreduce(&a, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &many[0]);
    MPI_Iallreduce(MPI_IN_PLACE, &inplace, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &many[1]);
    MPI_Ibcast(&token, 1, MPI_INT, 0, MPI_COMM_WORLD, &many[2]);
    /* a blocking collective between start and wait */
    int bsum = 0, one = 1;
    MPI_Allreduce(&one, &bsum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(bsum == size, "blocking Allreduce beside Iallreduce: %d", bsum);
    MPI_Waitall(3, many, MPI_STATUSES_IGNORE);
    CHECK(sum == size * size / 2.0, "Iallreduce: %g, expected %g", sum, size * size / 2.0);
    CHECK(inplace == 2.0 * (size - 1), "in-place Iallreduce max: %g", inplace);
    CHECK(token == 77, "Ibcast in flight with Iallreduce: %d", token);
  }
  /* non-commutative, plain and in place (rank order on every rank) */
  {
    long mine[2] = {(rank + 1) % 10, 10}, out[2] = {-1, -1}, inplace[2] = {(rank + 1) % 10, 10};
    MPI_Iallreduce(mine, out, 1, digits, cat, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(out[0] == digits_expect, "Iallreduce non-commutative: %ld, expected %ld", out[0], digits_expect);
    MPI_Iallreduce(MPI_IN_PLACE, inplace, 1, digits, cat, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(inplace[0] == digits_expect, "in-place Iallreduce non-commutative: %ld, expected %ld", inplace[0],
          digits_expect);
  }

  /* ---- a non-blocking collective progresses while its rank waits for
   *      something else: the root waits for a message that the last rank
   *      sends only once the bcast has reached it ---- */
  if (size > 1) {
    int v = rank == 0 ? 4242 : 0, echo = 0;
    MPI_Ibcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD, &r);
    if (rank == 0) {
      MPI_Recv(&echo, 1, MPI_INT, size - 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(echo == 4242, "echo %d", echo);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      if (rank == size - 1) MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    }
    CHECK(v == 4242, "Ibcast progressed behind a Recv: %d", v);
  }

  /* ---- gather, scatter, allgather, alltoall (in place too) ---- */
  int *all = malloc(sizeof(int) * (size_t)size * 2), *back = malloc(sizeof(int) * (size_t)size * 2);
  for (int root = 0; root < size; ++root) {
    int mine[2] = {rank * 10, rank * 10 + 1};
    for (int i = 0; i < 2 * size; ++i) all[i] = -1;
    if (rank == root && root % 2 == 1) {
      all[2 * rank] = mine[0];
      all[2 * rank + 1] = mine[1];
      MPI_Igather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_INT, root, MPI_COMM_WORLD, &r);
    } else {
      MPI_Igather(mine, 2, MPI_INT, all, 2, MPI_INT, root, MPI_COMM_WORLD, &r);
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (rank == root)
      for (int i = 0; i < 2 * size; ++i) CHECK(all[i] == (i / 2) * 10 + i % 2, "Igather to %d: [%d] = %d", root, i, all[i]);
    /* scatter it back, shifted */
    if (rank == root)
      for (int i = 0; i < 2 * size; ++i) all[i] += 1000;
    int got[2] = {-1, -1};
    MPI_Iscatter(all, 2, MPI_INT, got, 2, MPI_INT, root, MPI_COMM_WORLD, &r);
    wait_by_test(&r);
    CHECK(got[0] == rank * 10 + 1000 && got[1] == rank * 10 + 1001, "Iscatter from %d: %d %d", root, got[0], got[1]);
  }
  {
    int mine = rank * 3 + 1;
    for (int i = 0; i < size; ++i) all[i] = -1;
    MPI_Iallgather(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int i = 0; i < size; ++i) CHECK(all[i] == i * 3 + 1, "Iallgather [%d] = %d", i, all[i]);
    for (int i = 0; i < size; ++i) all[i] = i == rank ? rank * 5 : -1;
    MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INT, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int i = 0; i < size; ++i) CHECK(all[i] == i * 5, "in-place Iallgather [%d] = %d", i, all[i]);
    for (int d = 0; d < size; ++d) all[d] = rank * 100 + d;
    MPI_Ialltoall(all, 1, MPI_INT, back, 1, MPI_INT, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int s = 0; s < size; ++s) CHECK(back[s] == s * 100 + rank, "Ialltoall from %d: %d", s, back[s]);
    MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, back, 1, MPI_INT, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int s = 0; s < size; ++s) CHECK(back[s] == rank * 100 + s, "in-place Ialltoall from %d: %d", s, back[s]);
  }

  /* ---- a datatype and an op freed while their collective is in flight ---- */
  {
    long in[2] = {1, 10}, out[2] = {0, 0};
    MPI_Iallreduce(in, out, 1, digits, cat, MPI_COMM_WORLD, &r);
    MPI_Op_free(&cat);
    long pv[2] = {rank == 0 ? 7 : 0, rank == 0 ? 8 : 0};
    MPI_Request pr;
    MPI_Ibcast(pv, 1, digits, 0, MPI_COMM_WORLD, &pr);
    MPI_Type_free(&digits);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Wait(&pr, MPI_STATUS_IGNORE);
    long ones = 0;
    for (int i = 0; i < size; ++i) ones = ones * 10 + 1;
    CHECK(out[0] == ones, "Iallreduce with a freed op: %ld, expected %ld", out[0], ones);
    CHECK(pv[0] == 7 && pv[1] == 8, "Ibcast with a freed type: %ld %ld", pv[0], pv[1]);
  }

  /* ---- errors: through the handler, the request left null ---- */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int cls = -1, x = 0;
  r = (MPI_Request)&x; /* not null: the call must reset it */
  int e = MPI_Ibcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD, &r);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_ROOT && r == MPI_REQUEST_NULL, "Ibcast root %d: class %d", size, cls);
  e = MPI_Iallreduce(&x, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_BUFFER, "Iallreduce with aliased buffers: class %d", cls);
  e = MPI_Ibarrier(MPI_COMM_NULL, &r);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_COMM, "Ibarrier(MPI_COMM_NULL): class %d", cls);

  free(all);
  free(back);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("nbc: ok (%d ranks)\n", size);
  MPI_Finalize();
  return 0;
}
