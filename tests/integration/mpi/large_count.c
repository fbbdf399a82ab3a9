/* MPI-4.0's large-count calls (MPI_*_c): every one of point-to-point, the
 * collectives (blocking, non-blocking, persistent, neighbourhood), the
 * datatype constructors and queries, packing and MPI_Op_create_c, with
 * small counts: values checked, and equal to the int call's; large values
 * where no memory is needed (a datatype of 3e9 bytes, its size and
 * extents); errors (a negative count, a count an int call cannot take:
 * MPI_ERR_COUNT). With the argument "big": 2^31 + 13 MPI_BYTEs moved by
 * MPI_Send_c / MPI_Recv_c, MPI_Isend_c / MPI_Irecv_c, MPI_Bcast_c and
 * MPI_Allreduce_c (MPI_BOR, in place), checked at 4096 spread positions and
 * the ends (np 2, about 2.2 GB per rank). With "big_self" (np 1): the
 * gathers, scatters and all-to-alls with one count per side, MPI_Reduce_c
 * in pieces, MPI_Sendrecv_c and MPI_Pack_c of 2^31 + 13 bytes. */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lz_test.h"

#define OK(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)
#define N 37

static int rank, size, to, from;

static int err_class(int code) {
  int c = -1;
  MPI_Error_class(code, &c);
  return c;
}
#define EXPECT_COUNT_ERROR(call)                                                                               \
  do {                                                                                                         \
    int rc_ = (call);                                                                                          \
    CHECK(err_class(rc_) == MPI_ERR_COUNT, "%s returned class %d, want MPI_ERR_COUNT", #call, err_class(rc_)); \
  } while (0)

/* Blocking, non-blocking then persistent form of one collective. */
#define DO3(mode, B, I, P, ...)                \
  do {                                         \
    MPI_Request rq_;                           \
    if ((mode) == 0) {                         \
      OK(B(__VA_ARGS__));                      \
    } else if ((mode) == 1) {                  \
      OK(I(__VA_ARGS__, &rq_));                \
      OK(MPI_Wait(&rq_, MPI_STATUS_IGNORE));   \
    } else {                                   \
      OK(P(__VA_ARGS__, MPI_INFO_NULL, &rq_)); \
      OK(MPI_Start(&rq_));                     \
      OK(MPI_Wait(&rq_, MPI_STATUS_IGNORE));   \
      OK(MPI_Request_free(&rq_));              \
    }                                          \
  } while (0)

static int val(int r, int i) { return r * 1000 + i; }

static void fill(int* b, int n, int r) {
  for (int i = 0; i < n; ++i) b[i] = val(r, i);
}
static void expect(const int* b, int n, int r, const char* what) {
  for (int i = 0; i < n; ++i) CHECK(b[i] == val(r, i), "%s: [%d] = %d, want %d", what, i, b[i], val(r, i));
}

/* ---- point-to-point ------------------------------------------------------ */

static void check_status(const MPI_Status* st, int n, const char* what) {
  MPI_Count c = -1;
  int ic = -1;
  OK(MPI_Get_count_c(st, MPI_INT, &c));
  MPI_Get_count(st, MPI_INT, &ic);
  CHECK(c == n && ic == n, "%s: MPI_Get_count_c %lld, MPI_Get_count %d, want %d", what, (long long)c, ic, n);
  OK(MPI_Get_elements_c(st, MPI_INT, &c));
  CHECK(c == n, "%s: MPI_Get_elements_c %lld", what, (long long)c);
  CHECK(st->MPI_SOURCE == from, "%s: source %d", what, st->MPI_SOURCE);
}

static void test_p2p(void) {
  int out[N], in[N];
  MPI_Status st;
  MPI_Request rq, rs;
  /* Every send mode, blocking and not, into MPI_Irecv_c / MPI_Recv_c. */
  void* bbuf = malloc(4 * (N * sizeof(int) + MPI_BSEND_OVERHEAD));
  OK(MPI_Buffer_attach_c(bbuf, 4 * (N * (MPI_Count)sizeof(int) + MPI_BSEND_OVERHEAD)));
  for (int mode = 0; mode < 8; ++mode) {
    fill(out, N, rank + mode);
    memset(in, 0, sizeof in);
    OK(MPI_Irecv_c(in, N, MPI_INT, from, mode, MPI_COMM_WORLD, &rq));
    MPI_Barrier(MPI_COMM_WORLD); /* the receive is posted: ready mode may send */
    switch (mode) {
      case 0:
        OK(MPI_Send_c(out, N, MPI_INT, to, mode, MPI_COMM_WORLD));
        break;
      case 1:
        OK(MPI_Bsend_c(out, N, MPI_INT, to, mode, MPI_COMM_WORLD));
        break;
      case 2:
        OK(MPI_Ssend_c(out, N, MPI_INT, to, mode, MPI_COMM_WORLD));
        break;
      case 3:
        OK(MPI_Rsend_c(out, N, MPI_INT, to, mode, MPI_COMM_WORLD));
        break;
      case 4:
        OK(MPI_Isend_c(out, N, MPI_INT, to, mode, MPI_COMM_WORLD, &rs));
        break;
      case 5:
        OK(MPI_Ibsend_c(out, N, MPI_INT, to, mode, MPI_COMM_WORLD, &rs));
        break;
      case 6:
        OK(MPI_Issend_c(out, N, MPI_INT, to, mode, MPI_COMM_WORLD, &rs));
        break;
      case 7:
        OK(MPI_Irsend_c(out, N, MPI_INT, to, mode, MPI_COMM_WORLD, &rs));
        break;
    }
    OK(MPI_Wait(&rq, &st));
    if (mode >= 4) OK(MPI_Wait(&rs, MPI_STATUS_IGNORE));
    check_status(&st, N, "send modes");
    expect(in, N, from + mode, "send modes");
  }
  void* back = NULL;
  MPI_Count bsize = -1;
  OK(MPI_Buffer_detach_c(&back, &bsize));
  CHECK(back == bbuf && bsize == 4 * (N * (MPI_Count)sizeof(int) + MPI_BSEND_OVERHEAD), "MPI_Buffer_detach_c %lld",
        (long long)bsize);
  free(bbuf);

  /* MPI_Recv_c. */
  fill(out, N, rank);
  OK(MPI_Isend_c(out, N, MPI_INT, to, 20, MPI_COMM_WORLD, &rs));
  OK(MPI_Recv_c(in, N, MPI_INT, from, 20, MPI_COMM_WORLD, &st));
  OK(MPI_Wait(&rs, MPI_STATUS_IGNORE));
  check_status(&st, N, "MPI_Recv_c");
  expect(in, N, from, "MPI_Recv_c");

  /* Persistent requests of every mode, started twice. */
  bbuf = malloc(2 * (N * sizeof(int) + MPI_BSEND_OVERHEAD));
  OK(MPI_Buffer_attach(bbuf, 2 * (N * (int)sizeof(int) + MPI_BSEND_OVERHEAD)));
  for (int mode = 0; mode < 4; ++mode) {
    MPI_Request pr, ps;
    OK(MPI_Recv_init_c(in, N, MPI_INT, from, 30 + mode, MPI_COMM_WORLD, &pr));
    switch (mode) {
      case 0:
        OK(MPI_Send_init_c(out, N, MPI_INT, to, 30 + mode, MPI_COMM_WORLD, &ps));
        break;
      case 1:
        OK(MPI_Bsend_init_c(out, N, MPI_INT, to, 30 + mode, MPI_COMM_WORLD, &ps));
        break;
      case 2:
        OK(MPI_Ssend_init_c(out, N, MPI_INT, to, 30 + mode, MPI_COMM_WORLD, &ps));
        break;
      case 3:
        OK(MPI_Rsend_init_c(out, N, MPI_INT, to, 30 + mode, MPI_COMM_WORLD, &ps));
        break;
    }
    for (int round = 0; round < 2; ++round) {
      fill(out, N, rank + 10 * round);
      memset(in, 0, sizeof in);
      OK(MPI_Start(&pr));
      MPI_Barrier(MPI_COMM_WORLD);
      OK(MPI_Start(&ps));
      OK(MPI_Wait(&pr, &st));
      OK(MPI_Wait(&ps, MPI_STATUS_IGNORE));
      check_status(&st, N, "persistent");
      expect(in, N, from + 10 * round, "persistent");
    }
    OK(MPI_Request_free(&pr));
    OK(MPI_Request_free(&ps));
  }
  int isize = 0;
  OK(MPI_Buffer_detach(&back, &isize));
  free(bbuf);

  /* Sendrecv and its forms. */
  fill(out, N, rank);
  OK(MPI_Sendrecv_c(out, N, MPI_INT, to, 40, in, N, MPI_INT, from, 40, MPI_COMM_WORLD, &st));
  check_status(&st, N, "MPI_Sendrecv_c");
  expect(in, N, from, "MPI_Sendrecv_c");
  fill(in, N, rank);
  OK(MPI_Sendrecv_replace_c(in, N, MPI_INT, to, 41, from, 41, MPI_COMM_WORLD, &st));
  check_status(&st, N, "MPI_Sendrecv_replace_c");
  expect(in, N, from, "MPI_Sendrecv_replace_c");
  OK(MPI_Isendrecv_c(out, N, MPI_INT, to, 42, in, N, MPI_INT, from, 42, MPI_COMM_WORLD, &rq));
  OK(MPI_Wait(&rq, &st));
  check_status(&st, N, "MPI_Isendrecv_c");
  expect(in, N, from, "MPI_Isendrecv_c");
  fill(in, N, rank + 5);
  OK(MPI_Isendrecv_replace_c(in, N, MPI_INT, to, 43, from, 43, MPI_COMM_WORLD, &rq));
  OK(MPI_Wait(&rq, &st));
  check_status(&st, N, "MPI_Isendrecv_replace_c");
  expect(in, N, from + 5, "MPI_Isendrecv_replace_c");

  /* Matched probe: MPI_Mrecv_c, MPI_Imrecv_c. */
  for (int k = 0; k < 2; ++k) {
    MPI_Message msg;
    fill(out, N, rank + k);
    OK(MPI_Isend_c(out, N, MPI_INT, to, 50 + k, MPI_COMM_WORLD, &rs));
    OK(MPI_Mprobe(from, 50 + k, MPI_COMM_WORLD, &msg, &st));
    memset(in, 0, sizeof in);
    if (k == 0) {
      OK(MPI_Mrecv_c(in, N, MPI_INT, &msg, &st));
    } else {
      OK(MPI_Imrecv_c(in, N, MPI_INT, &msg, &rq));
      OK(MPI_Wait(&rq, &st));
    }
    OK(MPI_Wait(&rs, MPI_STATUS_IGNORE));
    check_status(&st, N, "matched probe");
    expect(in, N, from + k, "matched probe");
  }

  /* Elements of a derived type, and MPI_Status_set_elements_c. */
  MPI_Datatype pair;
  OK(MPI_Type_contiguous_c(2, MPI_INT, &pair));
  OK(MPI_Type_commit(&pair));
  OK(MPI_Sendrecv_c(out, 5, MPI_INT, to, 60, in, 3, pair, from, 60, MPI_COMM_WORLD, &st));
  MPI_Count c;
  int ic;
  OK(MPI_Get_count_c(&st, pair, &c));
  MPI_Get_count(&st, pair, &ic);
  CHECK(c == MPI_UNDEFINED && ic == MPI_UNDEFINED, "partial pair count %lld %d", (long long)c, ic);
  OK(MPI_Get_elements_c(&st, pair, &c));
  MPI_Get_elements(&st, pair, &ic);
  CHECK(c == 5 && ic == 5, "elements %lld %d", (long long)c, ic);
  OK(MPI_Status_set_elements_c(&st, pair, 7));
  OK(MPI_Get_elements_c(&st, MPI_INT, &c));
  CHECK(c == 7, "after MPI_Status_set_elements_c: %lld", (long long)c);
  /* A count beyond an int in a status: MPI_Get_count says MPI_UNDEFINED. */
  OK(MPI_Status_set_elements_c(&st, MPI_CHAR, (MPI_Count)INT_MAX + 13));
  OK(MPI_Get_count_c(&st, MPI_CHAR, &c));
  MPI_Get_count(&st, MPI_CHAR, &ic);
  CHECK(c == (MPI_Count)INT_MAX + 13 && ic == MPI_UNDEFINED, "large status count %lld %d", (long long)c, ic);
  MPI_Type_free(&pair);
}

/* ---- collectives ----------------------------------------------------------- */

static void user_sum_c(void* in, void* inout, MPI_Count* len, MPI_Datatype* dt) {
  CHECK(*dt == MPI_INT, "user op datatype");
  for (MPI_Count i = 0; i < *len; ++i) ((int*)inout)[i] += ((int*)in)[i] * 2;
}

static void test_coll(void) {
  const int root = size - 1;
  int *s = malloc(sizeof(int) * N * size), *r = malloc(sizeof(int) * N * size), *t = malloc(sizeof(int) * N * size);
  MPI_Count *counts = malloc(sizeof(MPI_Count) * size), *counts2 = malloc(sizeof(MPI_Count) * size);
  MPI_Aint *displs = malloc(sizeof(MPI_Aint) * size), *displs2 = malloc(sizeof(MPI_Aint) * size);
  MPI_Aint *bdispls = malloc(sizeof(MPI_Aint) * size), *bdispls2 = malloc(sizeof(MPI_Aint) * size);
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * size);
  for (int i = 0; i < size; ++i) {
    counts[i] = N;
    displs[i] = (MPI_Aint)N * i;
    bdispls[i] = (MPI_Aint)(N * sizeof(int)) * i;
    counts2[i] = N;
    displs2[i] = (MPI_Aint)N * i;
    bdispls2[i] = (MPI_Aint)(N * sizeof(int)) * i;
    types[i] = MPI_INT;
  }
  for (int mode = 0; mode < 3; ++mode) {
    /* Bcast */
    if (rank == root)
      fill(r, N, 7);
    else
      memset(r, 0, sizeof(int) * N);
    DO3(mode, MPI_Bcast_c, MPI_Ibcast_c, MPI_Bcast_init_c, r, N, MPI_INT, root, MPI_COMM_WORLD);
    expect(r, N, 7, "bcast");
    /* Reduce, Allreduce, Scan, Exscan: sums */
    fill(s, N, rank);
    memset(r, 0, sizeof(int) * N);
    DO3(mode, MPI_Reduce_c, MPI_Ireduce_c, MPI_Reduce_init_c, s, r, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    if (rank == root)
      for (int i = 0; i < N; ++i) CHECK(r[i] == size * (size - 1) / 2 * 1000 + size * i, "reduce [%d] %d", i, r[i]);
    memset(r, 0, sizeof(int) * N);
    DO3(mode, MPI_Allreduce_c, MPI_Iallreduce_c, MPI_Allreduce_init_c, s, r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < N; ++i) CHECK(r[i] == size * (size - 1) / 2 * 1000 + size * i, "allreduce [%d] %d", i, r[i]);
    DO3(mode, MPI_Scan_c, MPI_Iscan_c, MPI_Scan_init_c, s, r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < N; ++i) CHECK(r[i] == rank * (rank + 1) / 2 * 1000 + (rank + 1) * i, "scan [%d] %d", i, r[i]);
    DO3(mode, MPI_Exscan_c, MPI_Iexscan_c, MPI_Exscan_init_c, s, r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank > 0)
      for (int i = 0; i < N; ++i) CHECK(r[i] == (rank - 1) * rank / 2 * 1000 + rank * i, "exscan [%d] %d", i, r[i]);
    /* Reduce_scatter(_block): block k of the sum to rank k */
    for (int k = 0; k < size; ++k) fill(s + N * k, N, rank + k);
    DO3(mode, MPI_Reduce_scatter_block_c, MPI_Ireduce_scatter_block_c, MPI_Reduce_scatter_block_init_c, s, r, N,
        MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < N; ++i)
      CHECK(r[i] == (size * (size - 1) / 2 + size * rank) * 1000 + size * i, "reduce_scatter_block [%d] %d", i, r[i]);
    memset(r, 0, sizeof(int) * N);
    DO3(mode, MPI_Reduce_scatter_c, MPI_Ireduce_scatter_c, MPI_Reduce_scatter_init_c, s, r, counts, MPI_INT, MPI_SUM,
        MPI_COMM_WORLD);
    for (int i = 0; i < N; ++i)
      CHECK(r[i] == (size * (size - 1) / 2 + size * rank) * 1000 + size * i, "reduce_scatter [%d] %d", i, r[i]);
    /* Gather(v): rank k's block at k */
    fill(s, N, rank);
    memset(r, 0, sizeof(int) * N * size);
    DO3(mode, MPI_Gather_c, MPI_Igather_c, MPI_Gather_init_c, s, N, MPI_INT, r, N, MPI_INT, root, MPI_COMM_WORLD);
    if (rank == root)
      for (int k = 0; k < size; ++k) expect(r + N * k, N, k, "gather");
    memset(r, 0, sizeof(int) * N * size);
    DO3(mode, MPI_Gatherv_c, MPI_Igatherv_c, MPI_Gatherv_init_c, s, N, MPI_INT, r, counts, displs, MPI_INT, root,
        MPI_COMM_WORLD);
    if (rank == root)
      for (int k = 0; k < size; ++k) expect(r + N * k, N, k, "gatherv");
    /* Allgather(v) */
    memset(r, 0, sizeof(int) * N * size);
    DO3(mode, MPI_Allgather_c, MPI_Iallgather_c, MPI_Allgather_init_c, s, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD);
    for (int k = 0; k < size; ++k) expect(r + N * k, N, k, "allgather");
    memset(r, 0, sizeof(int) * N * size);
    DO3(mode, MPI_Allgatherv_c, MPI_Iallgatherv_c, MPI_Allgatherv_init_c, s, N, MPI_INT, r, counts, displs, MPI_INT,
        MPI_COMM_WORLD);
    for (int k = 0; k < size; ++k) expect(r + N * k, N, k, "allgatherv");
    /* Scatter(v): block k of the root's to rank k */
    for (int k = 0; k < size; ++k) fill(s + N * k, N, 100 + k);
    memset(r, 0, sizeof(int) * N);
    DO3(mode, MPI_Scatter_c, MPI_Iscatter_c, MPI_Scatter_init_c, s, N, MPI_INT, r, N, MPI_INT, root, MPI_COMM_WORLD);
    expect(r, N, 100 + rank, "scatter");
    memset(r, 0, sizeof(int) * N);
    DO3(mode, MPI_Scatterv_c, MPI_Iscatterv_c, MPI_Scatterv_init_c, s, counts, displs, MPI_INT, r, N, MPI_INT, root,
        MPI_COMM_WORLD);
    expect(r, N, 100 + rank, "scatterv");
    /* Alltoall(v,w): block k to rank k */
    for (int k = 0; k < size; ++k) fill(s + N * k, N, rank * 10 + k);
    memset(r, 0, sizeof(int) * N * size);
    DO3(mode, MPI_Alltoall_c, MPI_Ialltoall_c, MPI_Alltoall_init_c, s, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD);
    for (int k = 0; k < size; ++k) expect(r + N * k, N, k * 10 + rank, "alltoall");
    memset(r, 0, sizeof(int) * N * size);
    DO3(mode, MPI_Alltoallv_c, MPI_Ialltoallv_c, MPI_Alltoallv_init_c, s, counts, displs, MPI_INT, r, counts2, displs2,
        MPI_INT, MPI_COMM_WORLD);
    for (int k = 0; k < size; ++k) expect(r + N * k, N, k * 10 + rank, "alltoallv");
    memset(r, 0, sizeof(int) * N * size);
    DO3(mode, MPI_Alltoallw_c, MPI_Ialltoallw_c, MPI_Alltoallw_init_c, s, counts, bdispls, types, r, counts2, bdispls2,
        types, MPI_COMM_WORLD);
    for (int k = 0; k < size; ++k) expect(r + N * k, N, k * 10 + rank, "alltoallw");
  }
  /* MPI_Reduce_local_c and MPI_Op_create_c: inout += 2 * in */
  MPI_Op op;
  OK(MPI_Op_create_c(user_sum_c, 1, &op));
  fill(s, N, 1);
  fill(r, N, 2);
  OK(MPI_Reduce_local_c(s, r, N, MPI_INT, op));
  for (int i = 0; i < N; ++i) CHECK(r[i] == val(2, i) + 2 * val(1, i), "user op [%d] %d", i, r[i]);
  fill(s, N, rank);
  OK(MPI_Allreduce_c(s, r, N, MPI_INT, op, MPI_COMM_WORLD));
  OK(MPI_Allreduce(s, t, N, MPI_INT, op, MPI_COMM_WORLD));
  CHECK(memcmp(r, t, sizeof(int) * N) == 0, "MPI_Allreduce_c with the user op differs from MPI_Allreduce");
  OK(MPI_Op_free(&op));
  fill(r, N, 3);
  OK(MPI_Reduce_local_c(s, r, N, MPI_INT, MPI_SUM));
  for (int i = 0; i < N; ++i) CHECK(r[i] == val(3, i) + val(rank, i), "reduce_local [%d] %d", i, r[i]);
  free(s), free(r), free(t), free(counts), free(counts2), free(displs), free(displs2), free(bdispls), free(bdispls2);
  free(types);
}

/* Neighbourhood collectives on a periodic ring: each _c form's result
 * equals the int form's, and the left neighbour's block is where it goes. */
static void test_neighbor(void) {
  MPI_Comm ring;
  int dims[1] = {size}, periods[1] = {1};
  OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  int s[2 * N], r[2 * N], t[2 * N], icounts[2] = {N, N}, idispls[2] = {0, N};
  MPI_Count counts[2] = {N, N};
  MPI_Aint displs[2] = {0, N}, bdispls[2] = {0, N * sizeof(int)};
  MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  const int left = (rank - 1 + size) % size;
  fill(s, N, rank);
  fill(s + N, N, rank + 50);
  for (int mode = 0; mode < 3; ++mode) {
    memset(r, 0, sizeof r);
    DO3(mode, MPI_Neighbor_allgather_c, MPI_Ineighbor_allgather_c, MPI_Neighbor_allgather_init_c, s, N, MPI_INT, r, N,
        MPI_INT, ring);
    OK(MPI_Neighbor_allgather(s, N, MPI_INT, t, N, MPI_INT, ring));
    CHECK(memcmp(r, t, sizeof r) == 0, "neighbor_allgather");
    expect(r, N, left, "neighbor_allgather: the left neighbour's");
    memset(r, 0, sizeof r);
    DO3(mode, MPI_Neighbor_allgatherv_c, MPI_Ineighbor_allgatherv_c, MPI_Neighbor_allgatherv_init_c, s, N, MPI_INT, r,
        counts, displs, MPI_INT, ring);
    CHECK(memcmp(r, t, sizeof r) == 0, "neighbor_allgatherv");
    memset(r, 0, sizeof r);
    DO3(mode, MPI_Neighbor_alltoall_c, MPI_Ineighbor_alltoall_c, MPI_Neighbor_alltoall_init_c, s, N, MPI_INT, r, N,
        MPI_INT, ring);
    OK(MPI_Neighbor_alltoallv(s, icounts, idispls, MPI_INT, t, icounts, idispls, MPI_INT, ring));
    CHECK(memcmp(r, t, sizeof r) == 0, "neighbor_alltoall");
    memset(r, 0, sizeof r);
    DO3(mode, MPI_Neighbor_alltoallv_c, MPI_Ineighbor_alltoallv_c, MPI_Neighbor_alltoallv_init_c, s, counts, displs,
        MPI_INT, r, counts, displs, MPI_INT, ring);
    CHECK(memcmp(r, t, sizeof r) == 0, "neighbor_alltoallv");
    memset(r, 0, sizeof r);
    DO3(mode, MPI_Neighbor_alltoallw_c, MPI_Ineighbor_alltoallw_c, MPI_Neighbor_alltoallw_init_c, s, counts, bdispls,
        types, r, counts, bdispls, types, ring);
    CHECK(memcmp(r, t, sizeof r) == 0, "neighbor_alltoallw");
  }
  MPI_Comm_free(&ring);
}

/* ---- datatypes and packing ----------------------------------------------------- */

/* Two types that must be the same: size, extents, and what they pack. */
static void same_type(MPI_Datatype a, MPI_Datatype b, const char* what) {
  MPI_Count sa, sb, la, lb, ea, eb;
  OK(MPI_Type_size_c(a, &sa));
  OK(MPI_Type_size_c(b, &sb));
  CHECK(sa == sb, "%s: size %lld vs %lld", what, (long long)sa, (long long)sb);
  OK(MPI_Type_get_extent_c(a, &la, &ea));
  OK(MPI_Type_get_extent_c(b, &lb, &eb));
  CHECK(la == lb && ea == eb, "%s: extent %lld/%lld vs %lld/%lld", what, (long long)la, (long long)ea, (long long)lb,
        (long long)eb);
  OK(MPI_Type_get_true_extent_c(a, &la, &ea));
  OK(MPI_Type_get_true_extent_c(b, &lb, &eb));
  CHECK(la == lb && ea == eb, "%s: true extent", what);
  int src[512], pa[512], pb[512];
  for (int i = 0; i < 512; ++i) src[i] = i * 3 + 1;
  MPI_Count pos_a = 0;
  int pos_b = 0;
  OK(MPI_Pack_c(src, 2, a, pa, sizeof pa, &pos_a, MPI_COMM_WORLD));
  OK(MPI_Pack(src, 2, b, pb, sizeof pb, &pos_b, MPI_COMM_WORLD));
  CHECK(pos_a == pos_b && pos_a == 2 * sa && memcmp(pa, pb, (size_t)pos_b) == 0, "%s: packed bytes differ", what);
}

/* The envelope of a large-count type: combiner and counts. */
static void envelope_c(MPI_Datatype t, int combiner, MPI_Count ni, MPI_Count nl, const MPI_Count* large,
                       const char* what) {
  MPI_Count n_i, n_a, n_l, n_d;
  int c;
  OK(MPI_Type_get_envelope_c(t, &n_i, &n_a, &n_l, &n_d, &c));
  CHECK(c == combiner && n_i == ni && n_a == 0 && n_l == nl && n_d >= 1, "%s: envelope %d %lld %lld %lld", what, c,
        (long long)n_i, (long long)n_a, (long long)n_l);
  int ints[16];
  MPI_Aint addrs[1];
  MPI_Count lc[32];
  MPI_Datatype dts[4];
  OK(MPI_Type_get_contents_c(t, 16, 1, 32, 4, ints, addrs, lc, dts));
  for (MPI_Count i = 0; i < nl; ++i)
    CHECK(lc[i] == large[i], "%s: large count %lld is %lld, want %lld", what, (long long)i, (long long)lc[i],
          (long long)large[i]);
  for (MPI_Count i = 0; i < n_d; ++i) {
    int ci, na, nd, cc;
    MPI_Type_get_envelope(dts[i], &ci, &na, &nd, &cc);
    if (cc != MPI_COMBINER_NAMED) MPI_Type_free(&dts[i]);
  }
  /* The int form cannot tell large counts. */
  int a1, a2, a3, a4;
  CHECK(err_class(MPI_Type_get_envelope(t, &a1, &a2, &a3, &a4)) == MPI_ERR_TYPE, "%s: int envelope", what);
}

static void test_datatypes(void) {
  MPI_Datatype a, b;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
#define PAIR(what, mk_c, mk) \
  OK(mk_c);                  \
  OK(mk);                    \
  MPI_Type_commit(&a);       \
  MPI_Type_commit(&b);       \
  same_type(a, b, what)
  PAIR("contiguous", MPI_Type_contiguous_c(5, MPI_INT, &a), MPI_Type_contiguous(5, MPI_INT, &b));
  {
    const MPI_Count l[1] = {5};
    envelope_c(a, MPI_COMBINER_CONTIGUOUS, 0, 1, l, "contiguous_c");
  }
  MPI_Type_free(&a), MPI_Type_free(&b);
  PAIR("vector", MPI_Type_vector_c(3, 2, 5, MPI_INT, &a), MPI_Type_vector(3, 2, 5, MPI_INT, &b));
  {
    const MPI_Count l[3] = {3, 2, 5};
    envelope_c(a, MPI_COMBINER_VECTOR, 0, 3, l, "vector_c");
  }
  MPI_Type_free(&a), MPI_Type_free(&b);
  PAIR("hvector", MPI_Type_create_hvector_c(3, 2, 24, MPI_INT, &a), MPI_Type_create_hvector(3, 2, 24, MPI_INT, &b));
  MPI_Type_free(&a), MPI_Type_free(&b);
  {
    const MPI_Count bl[3] = {1, 3, 2}, d[3] = {0, 4, 11};
    const int ibl[3] = {1, 3, 2}, id[3] = {0, 4, 11};
    const MPI_Aint ad[3] = {0, 16, 44};
    const MPI_Count hd[3] = {0, 16, 44};
    const MPI_Datatype ts[3] = {MPI_INT, MPI_INT, MPI_INT};
    PAIR("indexed", MPI_Type_indexed_c(3, bl, d, MPI_INT, &a), MPI_Type_indexed(3, ibl, id, MPI_INT, &b));
    const MPI_Count l[7] = {3, 1, 3, 2, 0, 4, 11};
    envelope_c(a, MPI_COMBINER_INDEXED, 0, 7, l, "indexed_c");
    MPI_Type_free(&a), MPI_Type_free(&b);
    PAIR("hindexed", MPI_Type_create_hindexed_c(3, bl, hd, MPI_INT, &a),
         MPI_Type_create_hindexed(3, ibl, ad, MPI_INT, &b));
    MPI_Type_free(&a), MPI_Type_free(&b);
    PAIR("indexed_block", MPI_Type_create_indexed_block_c(3, 2, d, MPI_INT, &a),
         MPI_Type_create_indexed_block(3, 2, id, MPI_INT, &b));
    MPI_Type_free(&a), MPI_Type_free(&b);
    PAIR("hindexed_block", MPI_Type_create_hindexed_block_c(3, 2, hd, MPI_INT, &a),
         MPI_Type_create_hindexed_block(3, 2, ad, MPI_INT, &b));
    MPI_Type_free(&a), MPI_Type_free(&b);
    PAIR("struct", MPI_Type_create_struct_c(3, bl, hd, ts, &a), MPI_Type_create_struct(3, ibl, ad, ts, &b));
    MPI_Type_free(&a), MPI_Type_free(&b);
  }
  {
    const MPI_Count sz[2] = {6, 8}, sub[2] = {2, 3}, st[2] = {1, 4};
    const int isz[2] = {6, 8}, isub[2] = {2, 3}, ist[2] = {1, 4};
    PAIR("subarray", MPI_Type_create_subarray_c(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &a),
         MPI_Type_create_subarray(2, isz, isub, ist, MPI_ORDER_C, MPI_INT, &b));
    const MPI_Count l[6] = {6, 8, 2, 3, 1, 4};
    envelope_c(a, MPI_COMBINER_SUBARRAY, 2, 6, l, "subarray_c");
    MPI_Type_free(&a), MPI_Type_free(&b);
    const MPI_Count gs[2] = {8, 6};
    const int igs[2] = {8, 6}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
              darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {1, 1};
    PAIR("darray", MPI_Type_create_darray_c(1, 0, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &a),
         MPI_Type_create_darray(1, 0, 2, igs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &b));
    envelope_c(a, MPI_COMBINER_DARRAY, 10, 2, gs, "darray_c");
    MPI_Type_free(&a), MPI_Type_free(&b);
  }
  PAIR("resized", MPI_Type_create_resized_c(MPI_INT, -4, 12, &a), MPI_Type_create_resized(MPI_INT, -4, 12, &b));
  MPI_Type_free(&a), MPI_Type_free(&b);

  /* Beyond an int, without the memory: sizes and extents. */
  const MPI_Count big = 3000000005LL;
  MPI_Count sz, lb, ext;
  int isz;
  OK(MPI_Type_contiguous_c(big, MPI_CHAR, &a));
  OK(MPI_Type_commit(&a));
  OK(MPI_Type_size_c(a, &sz));
  OK(MPI_Type_size(a, &isz));
  CHECK(sz == big && isz == MPI_UNDEFINED, "contiguous_c(3e9) size %lld / %d", (long long)sz, isz);
  OK(MPI_Type_get_extent_c(a, &lb, &ext));
  CHECK(lb == 0 && ext == big, "contiguous_c(3e9) extent %lld", (long long)ext);
  OK(MPI_Pack_size_c(3, a, MPI_COMM_WORLD, &sz));
  CHECK(sz == 3 * big, "MPI_Pack_size_c %lld", (long long)sz);
  CHECK(err_class(MPI_Pack_size(1, a, MPI_COMM_WORLD, &isz)) == MPI_ERR_COUNT, "MPI_Pack_size of 3e9 bytes");
  OK(MPI_Pack_external_size_c("external32", 2, a, &sz));
  CHECK(sz == 2 * big, "MPI_Pack_external_size_c %lld", (long long)sz);
  MPI_Type_free(&a);
  OK(MPI_Type_vector_c(2, big, big + 10, MPI_CHAR, &a));
  OK(MPI_Type_size_c(a, &sz));
  OK(MPI_Type_get_extent_c(a, &lb, &ext));
  CHECK(sz == 2 * big && ext == 2 * big + 10, "vector_c beyond an int: size %lld extent %lld", (long long)sz,
        (long long)ext);
  {
    const MPI_Count l[3] = {2, big, big + 10};
    envelope_c(a, MPI_COMBINER_VECTOR, 0, 3, l, "vector_c(large)");
  }
  MPI_Type_free(&a);
  {
    const MPI_Count bl[2] = {1, big}, d[2] = {0, 1LL << 33};
    const MPI_Datatype ts[2] = {MPI_INT, MPI_CHAR};
    OK(MPI_Type_create_struct_c(2, bl, d, ts, &a));
    OK(MPI_Type_size_c(a, &sz));
    OK(MPI_Type_get_true_extent_c(a, &lb, &ext));
    CHECK(sz == 4 + big && lb == 0 && ext == (1LL << 33) + big, "struct_c beyond an int: %lld %lld", (long long)sz,
          (long long)ext);
    MPI_Type_free(&a);
    OK(MPI_Type_create_hindexed_c(2, bl, d, MPI_CHAR, &a));
    OK(MPI_Type_size_c(a, &sz));
    CHECK(sz == 1 + big, "hindexed_c beyond an int: %lld", (long long)sz);
    MPI_Type_free(&a);
    const MPI_Count gsz[2] = {1LL << 32, 4}, sub[2] = {3, 2}, st[2] = {(1LL << 32) - 3, 1};
    OK(MPI_Type_create_subarray_c(2, gsz, sub, st, MPI_ORDER_C, MPI_CHAR, &a));
    OK(MPI_Type_get_extent_c(a, &lb, &ext));
    OK(MPI_Type_get_true_extent_c(a, &sz, &ext));
    CHECK(sz == ((1LL << 32) - 3) * 4 + 1, "subarray_c beyond an int: true lb %lld", (long long)sz);
    MPI_Type_free(&a);
    OK(MPI_Type_create_resized_c(MPI_CHAR, -(1LL << 33), 1LL << 34, &a));
    OK(MPI_Type_get_extent_c(a, &lb, &ext));
    CHECK(lb == -(1LL << 33) && ext == 1LL << 34, "resized_c beyond an int");
    MPI_Type_free(&a);
  }

  /* Pack / unpack and external32 against the int calls. */
  int src[N], back[N];
  char pa[4 * N + 64], pb[4 * N + 64];
  fill(src, N, 9);
  MPI_Count pos = 0;
  int ipos = 0;
  MPI_Aint apos = 0;
  OK(MPI_Pack_c(src, N, MPI_INT, pa, sizeof pa, &pos, MPI_COMM_WORLD));
  OK(MPI_Pack(src, N, MPI_INT, pb, sizeof pb, &ipos, MPI_COMM_WORLD));
  CHECK(pos == ipos && memcmp(pa, pb, (size_t)ipos) == 0, "MPI_Pack_c");
  pos = 0;
  memset(back, 0, sizeof back);
  OK(MPI_Unpack_c(pa, sizeof pa, &pos, back, N, MPI_INT, MPI_COMM_WORLD));
  CHECK(pos == ipos, "MPI_Unpack_c position");
  expect(back, N, 9, "MPI_Unpack_c");
  OK(MPI_Pack_size_c(N, MPI_INT, MPI_COMM_WORLD, &sz));
  OK(MPI_Pack_size(N, MPI_INT, MPI_COMM_WORLD, &isz));
  CHECK(sz == isz, "MPI_Pack_size_c");
  pos = 0;
  OK(MPI_Pack_external_c("external32", src, N, MPI_INT, pa, sizeof pa, &pos));
  OK(MPI_Pack_external("external32", src, N, MPI_INT, pb, sizeof pb, &apos));
  CHECK(pos == apos && memcmp(pa, pb, (size_t)apos) == 0, "MPI_Pack_external_c");
  OK(MPI_Pack_external_size_c("external32", N, MPI_INT, &sz));
  CHECK(sz == apos, "MPI_Pack_external_size_c");
  pos = 0;
  memset(back, 0, sizeof back);
  OK(MPI_Unpack_external_c("external32", pa, sizeof pa, &pos, back, N, MPI_INT));
  CHECK(pos == apos, "MPI_Unpack_external_c position");
  expect(back, N, 9, "MPI_Unpack_external_c");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- errors ----------------------------------------------------------------- */

static void test_errors(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int x[4] = {0};
  MPI_Request rq;
  MPI_Datatype t;
  MPI_Count pos = 0;
  EXPECT_COUNT_ERROR(MPI_Send_c(x, -1, MPI_INT, to, 0, MPI_COMM_WORLD));
  EXPECT_COUNT_ERROR(MPI_Send_c(x, -5000000000LL, MPI_INT, to, 0, MPI_COMM_WORLD));
  EXPECT_COUNT_ERROR(MPI_Recv_c(x, -1, MPI_INT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  EXPECT_COUNT_ERROR(MPI_Isend_c(x, -1, MPI_INT, to, 0, MPI_COMM_WORLD, &rq));
  EXPECT_COUNT_ERROR(MPI_Irecv_c(x, -1, MPI_INT, from, 0, MPI_COMM_WORLD, &rq));
  EXPECT_COUNT_ERROR(MPI_Send_init_c(x, -1, MPI_INT, to, 0, MPI_COMM_WORLD, &rq));
  EXPECT_COUNT_ERROR(MPI_Bcast_c(x, -1, MPI_INT, 0, MPI_COMM_WORLD));
  EXPECT_COUNT_ERROR(MPI_Allreduce_c(x, x + 2, -3, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  EXPECT_COUNT_ERROR(MPI_Reduce_local_c(x, x + 2, -3, MPI_INT, MPI_SUM));
  EXPECT_COUNT_ERROR(MPI_Type_contiguous_c(-1, MPI_INT, &t));
  EXPECT_COUNT_ERROR(MPI_Type_vector_c(-2, 1, 1, MPI_INT, &t));
  EXPECT_COUNT_ERROR(MPI_Pack_c(x, -1, MPI_INT, x, sizeof x, &pos, MPI_COMM_WORLD));
  /* More than INT_MAX elements where the call cannot take them. */
  const MPI_Count over = (MPI_Count)INT_MAX + 1;
  EXPECT_COUNT_ERROR(MPI_Iallreduce_c(x, x + 2, over, MPI_CHAR, MPI_BOR, MPI_COMM_WORLD, &rq));
  EXPECT_COUNT_ERROR(MPI_Reduce_scatter_block_c(x, x + 2, over, MPI_CHAR, MPI_BOR, MPI_COMM_WORLD));
  MPI_Datatype strided;
  OK(MPI_Type_vector(1, 1, 2, MPI_INT, &strided));
  OK(MPI_Type_create_resized(strided, 0, 8, &t));
  OK(MPI_Type_commit(&t));
  EXPECT_COUNT_ERROR(MPI_Send_c(x, over, t, to, 0, MPI_COMM_WORLD)); /* a block per element */
  MPI_Type_free(&t);
  MPI_Type_free(&strided);
  MPI_Count* counts = calloc((size_t)size, sizeof(MPI_Count));
  MPI_Aint* displs = calloc((size_t)size, sizeof(MPI_Aint));
  counts[0] = over;
  if (rank == 0) EXPECT_COUNT_ERROR(MPI_Gatherv_c(x, 0, MPI_INT, x, counts, displs, MPI_INT, 0, MPI_COMM_SELF));
  EXPECT_COUNT_ERROR(MPI_Alltoallv_c(x, counts, displs, MPI_INT, x + 2, counts, displs, MPI_INT, MPI_COMM_SELF));
  free(counts);
  free(displs);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

/* ---- beyond INT_MAX ------------------------------------------------------------ */

static unsigned char pat(MPI_Count i, int seed) {
  uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ull + (uint64_t)seed * 0x632BE59BD9B4E5ull;
  return (unsigned char)(x >> 56) ^ (unsigned char)i;
}

/* `buf` holds pat(i, seed) & mask at 4096 spread positions, the first and
 * last 64 bytes and around 2^31. */
static void verify(const unsigned char* buf, MPI_Count n, int seed, unsigned char mask, const char* what) {
  MPI_Count at[4096 + 192];
  int k = 0;
  for (int j = 0; j < 4096; ++j) at[k++] = (MPI_Count)((double)n * j / 4096.0) + (j * 7919 % 4096);
  for (int j = 0; j < 64; ++j) {
    at[k++] = j;
    at[k++] = n - 1 - j;
    at[k++] = ((MPI_Count)1 << 31) - 32 + j;
  }
  for (int j = 0; j < k; ++j) {
    MPI_Count i = at[j] < n ? at[j] : n - 1;
    CHECK(buf[i] == (pat(i, seed) & mask), "%s: byte %lld is %d, want %d", what, (long long)i, buf[i],
          pat(i, seed) & mask);
  }
}

static void fill_big(unsigned char* buf, MPI_Count n, int seed, unsigned char mask) {
  for (MPI_Count i = 0; i < n; ++i) buf[i] = pat(i, seed) & mask;
}

static void test_big(void) {
  const MPI_Count n = ((MPI_Count)1 << 31) + 13;
  unsigned char* buf = malloc((size_t)n);
  CHECK(buf != NULL, "malloc of %lld bytes", (long long)n);
  MPI_Status st;
  MPI_Count c;
  int ic;
  if (size != 2) {
    if (rank == 0) printf("large_count: big needs 2 ranks\n");
    free(buf);
    return;
  }
  /* MPI_Send_c / MPI_Recv_c, rank 0 to 1. */
  if (rank == 0) {
    fill_big(buf, n, 1, 0xff);
    OK(MPI_Send_c(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD));
  } else {
    memset(buf, 0, (size_t)n);
    OK(MPI_Recv_c(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st));
    OK(MPI_Get_count_c(&st, MPI_BYTE, &c));
    MPI_Get_count(&st, MPI_BYTE, &ic);
    CHECK(c == n && ic == MPI_UNDEFINED, "MPI_Get_count_c %lld, MPI_Get_count %d", (long long)c, ic);
    OK(MPI_Get_elements_c(&st, MPI_BYTE, &c));
    CHECK(c == n, "MPI_Get_elements_c %lld", (long long)c);
    verify(buf, n, 1, 0xff, "MPI_Send_c/MPI_Recv_c");
  }
  /* MPI_Isend_c / MPI_Irecv_c, rank 1 to 0. */
  MPI_Request rq;
  if (rank == 1) {
    fill_big(buf, n, 2, 0xff);
    OK(MPI_Isend_c(buf, n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  } else {
    memset(buf, 0, (size_t)n);
    OK(MPI_Irecv_c(buf, n, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, &st));
    OK(MPI_Get_count_c(&st, MPI_BYTE, &c));
    CHECK(c == n, "MPI_Irecv_c count %lld", (long long)c);
    verify(buf, n, 2, 0xff, "MPI_Isend_c/MPI_Irecv_c");
  }
  /* MPI_Bcast_c from rank 0. */
  if (rank == 0)
    fill_big(buf, n, 3, 0xff);
  else
    memset(buf, 0, (size_t)n);
  OK(MPI_Bcast_c(buf, n, MPI_BYTE, 0, MPI_COMM_WORLD));
  verify(buf, n, 3, 0xff, "MPI_Bcast_c");
  /* MPI_Allreduce_c, MPI_BOR in place: each rank holds half of every byte. */
  fill_big(buf, n, 4, rank == 0 ? 0x0f : 0xf0);
  OK(MPI_Allreduce_c(MPI_IN_PLACE, buf, n, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD));
  verify(buf, n, 4, 0xff, "MPI_Allreduce_c");
  free(buf);
  if (rank == 0) printf("large_count: %lld bytes ok\n", (long long)n);
}

/* np 1: the collectives with one count per side, a reduction in pieces,
 * a self send and packing, 2^31 + 13 bytes from one buffer into another
 * (about 4.3 GB). */
static void test_big_self(void) {
  const MPI_Count n = ((MPI_Count)1 << 31) + 13;
  unsigned char *s = malloc((size_t)n), *r = malloc((size_t)n);
  CHECK(s != NULL && r != NULL, "malloc of 2 x %lld bytes", (long long)n);
  MPI_Status st;
  MPI_Count c;
  fill_big(s, n, 5, 0xff);
#define AGAIN(what, call)  \
  memset(r, 0, (size_t)n); \
  OK(call);                \
  verify(r, n, 5, 0xff, what)
  AGAIN("MPI_Gather_c", MPI_Gather_c(s, n, MPI_BYTE, r, n, MPI_BYTE, 0, MPI_COMM_WORLD));
  AGAIN("MPI_Scatter_c", MPI_Scatter_c(s, n, MPI_BYTE, r, n, MPI_BYTE, 0, MPI_COMM_WORLD));
  AGAIN("MPI_Allgather_c", MPI_Allgather_c(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD));
  AGAIN("MPI_Alltoall_c", MPI_Alltoall_c(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD));
  AGAIN("MPI_Reduce_c", MPI_Reduce_c(s, r, n, MPI_BYTE, MPI_BOR, 0, MPI_COMM_WORLD));
  AGAIN("MPI_Sendrecv_c", MPI_Sendrecv_c(s, n, MPI_BYTE, 0, 3, r, n, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &st));
  OK(MPI_Get_count_c(&st, MPI_BYTE, &c));
  CHECK(c == n, "MPI_Sendrecv_c count %lld", (long long)c);
  MPI_Count pos = 0;
  AGAIN("MPI_Pack_c", MPI_Pack_c(s, n, MPI_BYTE, r, n, &pos, MPI_COMM_WORLD));
  CHECK(pos == n, "MPI_Pack_c position %lld", (long long)pos);
#undef AGAIN
  free(s);
  free(r);
  printf("large_count: %lld bytes to self ok\n", (long long)n);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  to = (rank + 1) % size;
  from = (rank + size - 1) % size;
  if (argc > 1 && strcmp(argv[1], "big") == 0) {
    test_big();
  } else if (argc > 1 && strcmp(argv[1], "big_self") == 0) {
    CHECK(size == 1, "big_self runs on 1 rank");
    test_big_self();
  } else {
    test_p2p();
    test_coll();
    test_neighbor();
    test_datatypes();
    test_errors();
    if (rank == 0) printf("large_count: %d ranks ok\n", size);
  }
  MPI_Finalize();
  return 0;
}
