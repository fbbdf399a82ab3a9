/* Communicators made by a subset and made without blocking:
 * - MPI_Comm_create_group over the even ranks while the odd ranks wait in a
 *   receive that rank 0 only satisfies after its call returned (a call that
 *   needed the non-members would hang: --timeout fails it), then the odd
 *   ranks make theirs with the same tag; chained groups with different tags
 *   running at once on ranks in both; MPI_GROUP_EMPTY; a caller outside the
 *   group is an error.
 * - MPI_Comm_idup: four in flight on MPI_COMM_WORLD and one on a split
 *   communicator, beside a blocking MPI_Comm_dup, completed in an order that
 *   differs by rank; each is used at once (p2p with the same tag on all of
 *   them at once: each message arrives on its own communicator, then an
 *   allreduce) and freed. An idup whose first agreed id is taken meanwhile
 *   at one member (it made another communicator in between) agrees again.
 * Every new communicator is checked by traffic, not only by size/rank. */
#include <string.h>
#include "lz_test.h"

static int rank, size;

/* p2p round the ring of `c` and an allreduce of the world ranks it holds. */
static void exercise(MPI_Comm c, int expect_size, long expect_sum, const char *what) {
  int r, n;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &n);
  CHECK(n == expect_size, "%s: size %d, expected %d", what, n, expect_size);
  int out = rank * 10 + 3, in = -1;
  MPI_Sendrecv(&out, 1, MPI_INT, (r + 1) % n, 0, &in, 1, MPI_INT, (r - 1 + n) % n, 0, c, MPI_STATUS_IGNORE);
  int src_world;
  MPI_Group g, wg;
  MPI_Comm_group(c, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  int pr = (r - 1 + n) % n;
  MPI_Group_translate_ranks(g, 1, &pr, wg, &src_world);
  CHECK(in == src_world * 10 + 3, "%s: got %d from rank %d (world %d)", what, in, pr, src_world);
  MPI_Group_free(&g), MPI_Group_free(&wg);
  long me = rank, sum = 0;
  MPI_Allreduce(&me, &sum, 1, MPI_LONG, MPI_SUM, c);
  CHECK(sum == expect_sum, "%s: allreduce %ld, expected %ld", what, sum, expect_sum);
  MPI_Barrier(c);
}

static MPI_Group world_group(void) {
  MPI_Group g;
  MPI_Comm_group(MPI_COMM_WORLD, &g);
  return g;
}

/* Members first..last of world (step 1). */
static MPI_Group range_group(int first, int last, int stride) {
  MPI_Group wg = world_group(), g;
  int ranks[64], n = 0;
  for (int r = first; r <= last; r += stride) ranks[n++] = r;
  MPI_Group_incl(wg, n, ranks, &g);
  MPI_Group_free(&wg);
  return g;
}

static void create_group(void) {
  /* Evens, while the odds wait for rank 0. */
  MPI_Group evens = range_group(0, size - 1, 2), odds = size > 1 ? range_group(1, size - 1, 2) : MPI_GROUP_EMPTY;
  long even_sum = 0, odd_sum = 0;
  int ne = 0, no = 0;
  for (int r = 0; r < size; ++r) (r % 2 ? (odd_sum += r, ++no) : (even_sum += r, ++ne));
  MPI_Comm c;
  if (rank % 2 == 0) {
    CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 7, &c) == MPI_SUCCESS, "create_group evens");
    if (rank == 0)
      for (int r = 1; r < size; r += 2) MPI_Send(&rank, 1, MPI_INT, r, 99, MPI_COMM_WORLD);
    exercise(c, ne, even_sum, "evens");
  } else {
    int t;
    MPI_Recv(&t, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  /* busy elsewhere until the evens are done */
    CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, odds, 7, &c) == MPI_SUCCESS, "create_group odds");
    exercise(c, no, odd_sum, "odds");
  }
  MPI_Comm_free(&c);
  CHECK(c == MPI_COMM_NULL, "freed");

  /* Chained groups: [0, h] with tag 1 and [h, size-1] with tag 2; rank h is in
   * both (first, then second), the others are in one only, so both calls
   * run at once across the job. */
  int h = size / 2;
  MPI_Group g1 = range_group(0, h, 1), g2 = range_group(h, size - 1, 1);
  MPI_Comm c1 = MPI_COMM_NULL, c2 = MPI_COMM_NULL;
  if (rank <= h) CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, g1, 1, &c1) == MPI_SUCCESS, "chain 1");
  if (rank >= h) CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, g2, 2, &c2) == MPI_SUCCESS, "chain 2");
  if (c1 != MPI_COMM_NULL) exercise(c1, h + 1, (long)h * (h + 1) / 2, "chain 1");
  if (c2 != MPI_COMM_NULL) exercise(c2, size - h, (long)(size - 1) * size / 2 - (long)(h - 1) * h / 2, "chain 2");
  if (c1 != MPI_COMM_NULL) MPI_Comm_free(&c1);
  if (c2 != MPI_COMM_NULL) MPI_Comm_free(&c2);
  MPI_Group_free(&g1), MPI_Group_free(&g2);

  /* MPI_GROUP_EMPTY: nothing to agree, MPI_COMM_NULL. */
  c = MPI_COMM_WORLD;
  CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_EMPTY, 3, &c) == MPI_SUCCESS && c == MPI_COMM_NULL,
        "MPI_GROUP_EMPTY");
  /* A process outside a non-empty group, a negative tag: errors. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (size > 1 && rank % 2 == 1) {
    int e = MPI_Comm_create_group(MPI_COMM_WORLD, evens, 7, &c), cls;
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_GROUP, "outside the group: class %d", cls);
  }
  int e = MPI_Comm_create_group(MPI_COMM_WORLD, evens, -1, &c), cls;
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_TAG, "tag -1: class %d", cls);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Group_free(&evens);
  if (odds != MPI_GROUP_EMPTY) MPI_Group_free(&odds);
}

#define NDUP 4
static void idup(void) {
  MPI_Comm half, d[NDUP + 1], blocking;
  MPI_Request rq[NDUP + 1];
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  for (int i = 0; i < NDUP; ++i) CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &d[i], &rq[i]) == MPI_SUCCESS, "idup %d", i);
  CHECK(MPI_Comm_idup(half, &d[NDUP], &rq[NDUP]) == MPI_SUCCESS, "idup of half");
  MPI_Comm_dup(MPI_COMM_WORLD, &blocking);  /* a blocking agreement while they are in flight */
  /* Completed in an order that differs by rank. */
  for (int k = 0; k <= NDUP; ++k) {
    int i = rank % 2 ? NDUP - k : (k + rank) % (NDUP + 1);
    MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
    CHECK(rq[i] == MPI_REQUEST_NULL && d[i] != MPI_COMM_NULL, "idup %d completed without a communicator", i);
  }
  for (int i = 0; i <= NDUP; ++i) {
    int res;
    MPI_Comm_compare(d[i], i < NDUP ? MPI_COMM_WORLD : half, &res);
    CHECK(res == MPI_CONGRUENT, "idup %d compares %d", i, res);
    for (int j = 0; j < i; ++j) CHECK(d[i] != d[j], "idups %d and %d are one communicator", i, j);
  }
  /* The same (source, tag) on every communicator at once: each message
   * must arrive on its own. */
  int in[NDUP + 2], out[NDUP + 2];
  MPI_Request rr[2 * (NDUP + 2)];
  MPI_Comm all[NDUP + 2];
  for (int i = 0; i <= NDUP; ++i) all[i] = d[i];
  all[NDUP + 1] = blocking;
  for (int i = 0; i < NDUP + 2; ++i) {
    int n, r;
    MPI_Comm_size(all[i], &n);
    MPI_Comm_rank(all[i], &r);
    out[i] = rank * 100 + i;
    MPI_Irecv(&in[i], 1, MPI_INT, (r - 1 + n) % n, 5, all[i], &rr[i]);
  }
  for (int i = NDUP + 1; i >= 0; --i) {
    int n, r;
    MPI_Comm_size(all[i], &n);
    MPI_Comm_rank(all[i], &r);
    MPI_Isend(&out[i], 1, MPI_INT, (r + 1) % n, 5, all[i], &rr[NDUP + 2 + i]);
  }
  MPI_Waitall(2 * (NDUP + 2), rr, MPI_STATUSES_IGNORE);
  for (int i = 0; i < NDUP + 2; ++i) {
    int from = (rank - 1 + size) % size;
    if (i == NDUP) { /* the previous rank of my half, in world terms */
      int n, r, pr, w;
      MPI_Group g, wg = world_group();
      MPI_Comm_size(half, &n), MPI_Comm_rank(half, &r), MPI_Comm_group(half, &g);
      pr = (r - 1 + n) % n;
      MPI_Group_translate_ranks(g, 1, &pr, wg, &w);
      MPI_Group_free(&g), MPI_Group_free(&wg);
      from = w;
    }
    CHECK(in[i] == from * 100 + i, "communicator %d: got %d, expected %d", i, in[i], from * 100 + i);
  }
  long world_sum = (long)(size - 1) * size / 2, half_sum = 0;
  int nhalf = 0;
  for (int r = rank % 2; r < size; r += 2) half_sum += r, ++nhalf;
  for (int i = 0; i < NDUP; ++i) exercise(d[i], size, world_sum, "idup of world");
  exercise(d[NDUP], nhalf, half_sum, "idup of half");
  for (int i = 0; i <= NDUP; ++i) MPI_Comm_free(&d[i]);
  MPI_Comm_free(&blocking);
  MPI_Comm_free(&half);
}

/* Ranks 0 and 1 idup a communicator of their own; rank 1 and 2 first raise
 * their next context id (communicators among themselves), so the maximum
 * is above rank 0's proposal. Before rank 1 proposes, rank 0 makes a
 * communicator with rank 2, which lands on that very id: rank 0 must refuse
 * it and the idup agree again. Then both communicators carry traffic with
 * the same tag at rank 0 at once. */
static void idup_retry(void) {
  if (size < 3) return;
  MPI_Group g01 = range_group(0, 1, 1), g12 = range_group(1, 2, 1), g02 = range_group(0, 2, 2);
  MPI_Comm pair = MPI_COMM_NULL, extra[6], dup = MPI_COMM_NULL, side = MPI_COMM_NULL;
  MPI_Request rq = MPI_REQUEST_NULL;
  if (rank <= 1) MPI_Comm_create_group(MPI_COMM_WORLD, g01, 11, &pair);
  if (rank == 1 || rank == 2)
    for (int i = 0; i < 6; ++i) MPI_Comm_create_group(MPI_COMM_WORLD, g12, 12, &extra[i]);
  if (rank == 0) {
    MPI_Comm_idup(pair, &dup, &rq);
    MPI_Comm_create_group(MPI_COMM_WORLD, g02, 13, &side);
    int t = 1;
    MPI_Send(&t, 1, MPI_INT, 1, 98, MPI_COMM_WORLD);  /* now rank 1 may propose */
  } else if (rank == 2) {
    MPI_Comm_create_group(MPI_COMM_WORLD, g02, 13, &side);
  } else if (rank == 1) {
    int t;
    MPI_Recv(&t, 1, MPI_INT, 0, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Comm_idup(pair, &dup, &rq);
  }
  if (rank <= 1) {
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    CHECK(dup != MPI_COMM_NULL, "idup of the pair");
  }
  if (rank == 0) {
    int a = -1, b = -1;
    MPI_Request r2[2];
    MPI_Irecv(&a, 1, MPI_INT, 1, 4, dup, &r2[0]);
    MPI_Irecv(&b, 1, MPI_INT, 1, 4, side, &r2[1]);
    MPI_Waitall(2, r2, MPI_STATUSES_IGNORE);
    CHECK(a == 111 && b == 222, "idup after a taken id: got %d on it and %d on the other (111 and 222)", a, b);
  } else if (rank == 1) {
    int a = 111;
    MPI_Send(&a, 1, MPI_INT, 0, 4, dup);
  } else if (rank == 2) {
    int b = 222;
    MPI_Send(&b, 1, MPI_INT, 0, 4, side);
  }
  if (dup != MPI_COMM_NULL) exercise(dup, 2, 1, "idup of the pair");
  if (side != MPI_COMM_NULL) exercise(side, 2, 2, "0 and 2");
  if (dup != MPI_COMM_NULL) MPI_Comm_free(&dup);
  if (side != MPI_COMM_NULL) MPI_Comm_free(&side);
  if (pair != MPI_COMM_NULL) MPI_Comm_free(&pair);
  if (rank == 1 || rank == 2)
    for (int i = 0; i < 6; ++i) MPI_Comm_free(&extra[i]);
  MPI_Group_free(&g01), MPI_Group_free(&g12), MPI_Group_free(&g02);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  create_group();
  idup();
  idup_retry();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("commgroup: ok\n");
  MPI_Finalize();
  return 0;
}
