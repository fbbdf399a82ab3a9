/* Group algebra: range_incl / range_excl, union, intersection, difference,
 * compare and rank translation on MPI_COMM_WORLD's group, a communicator
 * made from a computed group, and argument errors with MPI_ERRORS_RETURN. */
#include "lz_test.h"

static int gsize(MPI_Group g) {
  int s;
  MPI_Group_size(g, &s);
  return s;
}

static int gcmp(MPI_Group a, MPI_Group b) {
  int r;
  MPI_Group_compare(a, b, &r);
  return r;
}

/* Checks that group rank i of g is world rank expect[i]. */
static void check_members(MPI_Group world, MPI_Group g, int n, const int *expect, const char *what) {
  CHECK(gsize(g) == n, "%s: size %d, expected %d", what, gsize(g), n);
  int r[64], w[64];
  for (int i = 0; i < n; ++i) r[i] = i;
  MPI_Group_translate_ranks(g, n, r, world, w);
  for (int i = 0; i < n; ++i) CHECK(w[i] == expect[i], "%s: rank %d is world %d, expected %d", what, i, w[i], expect[i]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= 64, "at most 64 ranks");
  MPI_Group world, evens, odds, rev, u, x, d, g;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int expect[64], n;

  int r_evens[1][3] = {{0, size - 1, 2}};
  MPI_Group_range_incl(world, 1, r_evens, &evens);
  n = 0;
  for (int i = 0; i < size; i += 2) expect[n++] = i;
  check_members(world, evens, n, expect, "evens");
  int my;
  MPI_Group_rank(evens, &my);
  CHECK(my == (rank % 2 == 0 ? rank / 2 : MPI_UNDEFINED), "rank in evens: %d", my);

  MPI_Group_range_excl(world, 1, r_evens, &odds);
  n = 0;
  for (int i = 1; i < size; i += 2) expect[n++] = i;
  check_members(world, odds, n, expect, "odds");
  if (size == 1) CHECK(odds == MPI_GROUP_EMPTY, "an empty result is MPI_GROUP_EMPTY");

  int r_rev[1][3] = {{size - 1, 0, -1}};
  MPI_Group_range_incl(world, 1, r_rev, &rev);
  for (int i = 0; i < size; ++i) expect[i] = size - 1 - i;
  check_members(world, rev, size, expect, "reversed");
  CHECK(gcmp(world, rev) == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "compare(world, reversed) %d", gcmp(world, rev));

  /* several triplets, negative stride, and a triplet that names no rank */
  if (size >= 3) {
    int r3[3][3] = {{size - 1, size - 1, 1}, {1, 0, -1}, {5, 4, 1}};
    MPI_Group_range_incl(world, 3, r3, &g);
    int e3[3] = {size - 1, 1, 0};
    check_members(world, g, 3, e3, "three triplets");
    MPI_Group_free(&g);
    int rx[1][3] = {{2, size - 1, 3}};
    MPI_Group_range_excl(world, 1, rx, &g);
    n = 0;
    for (int i = 0; i < size; ++i)
      if (i < 2 || (i - 2) % 3 != 0) expect[n++] = i;
    check_members(world, g, n, expect, "range_excl stride 3");
    MPI_Group_free(&g);
  }

  /* union: group1's order, then group2's members not in group1 */
  MPI_Group_union(odds, evens, &u);
  n = 0;
  for (int i = 1; i < size; i += 2) expect[n++] = i;
  for (int i = 0; i < size; i += 2) expect[n++] = i;
  check_members(world, u, size, expect, "odds | evens");
  CHECK(gcmp(u, world) == (size <= 1 ? MPI_IDENT : MPI_SIMILAR), "compare(union, world) %d", gcmp(u, world));
  MPI_Group_free(&u);
  MPI_Group_union(world, evens, &u);
  CHECK(gcmp(u, world) == MPI_IDENT, "world | evens == world");
  MPI_Group_free(&u);

  /* intersection, in group1's order */
  MPI_Group_intersection(rev, evens, &x);
  n = 0;
  for (int i = size - 1; i >= 0; --i)
    if (i % 2 == 0) expect[n++] = i;
  check_members(world, x, n, expect, "reversed & evens");
  CHECK(gcmp(x, evens) == (n <= 1 ? MPI_IDENT : MPI_SIMILAR), "compare(reversed & evens, evens)");
  MPI_Group_free(&x);
  MPI_Group_intersection(evens, odds, &x);
  CHECK(gsize(x) == 0 && gcmp(x, MPI_GROUP_EMPTY) == MPI_IDENT, "evens & odds is empty");
  MPI_Group_free(&x);

  /* difference */
  MPI_Group_difference(world, evens, &d);
  CHECK(gcmp(d, odds) == MPI_IDENT, "world - evens == odds");
  MPI_Group_rank(d, &my);
  CHECK(my == (rank % 2 == 1 ? rank / 2 : MPI_UNDEFINED), "rank in world - evens: %d", my);
  MPI_Group_free(&d);
  MPI_Group_difference(rev, world, &d);
  CHECK(gsize(d) == 0, "reversed - world is empty");
  MPI_Group_free(&d);

  CHECK(gcmp(world, world) == MPI_IDENT, "compare(world, world)");
  if (size > 1) CHECK(gcmp(world, evens) == MPI_UNEQUAL, "compare(world, evens)");
  CHECK(gcmp(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY) == MPI_IDENT, "compare(empty, empty)");

  /* a communicator over the reversed group: rank order follows the group */
  MPI_Comm rc;
  MPI_Comm_create(MPI_COMM_WORLD, rev, &rc);
  int rr, sum = 0, mine;
  MPI_Comm_rank(rc, &rr);
  CHECK(rr == size - 1 - rank, "rank in reversed communicator %d", rr);
  mine = rank;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, rc);
  CHECK(sum == size * (size - 1) / 2, "allreduce over reversed communicator %d", sum);
  MPI_Comm_free(&rc);

  /* errors */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  {
    int e, cls;
#define EXPECT(call, cls_expected)                                                                   \
  do {                                                                                               \
    e = (call);                                                                                      \
    MPI_Error_class(e, &cls);                                                                        \
    CHECK(e != MPI_SUCCESS && cls == (cls_expected), "%s returned %d (class %d), expected class %d", \
          #call, e, cls, cls_expected);                                                              \
  } while (0)
    int bad[1][3] = {{0, size, 1}};
    EXPECT(MPI_Group_range_incl(world, 1, bad, &g), MPI_ERR_RANK);
    EXPECT(MPI_Group_range_excl(world, 1, bad, &g), MPI_ERR_RANK);
    int neg[1][3] = {{-1, 0, 1}};
    EXPECT(MPI_Group_range_incl(world, 1, neg, &g), MPI_ERR_RANK);
    int zero[1][3] = {{0, 0, 0}};
    EXPECT(MPI_Group_range_incl(world, 1, zero, &g), MPI_ERR_ARG);
    int twice[2][3] = {{0, 0, 1}, {0, 0, 1}};
    EXPECT(MPI_Group_range_incl(world, 2, twice, &g), MPI_ERR_RANK);
    EXPECT(MPI_Group_range_excl(world, 2, twice, &g), MPI_ERR_RANK);
    EXPECT(MPI_Group_range_incl(world, -1, r_evens, &g), MPI_ERR_ARG);
    EXPECT(MPI_Group_range_incl(MPI_GROUP_NULL, 1, r_evens, &g), MPI_ERR_GROUP);
    EXPECT(MPI_Group_union(world, MPI_GROUP_NULL, &g), MPI_ERR_GROUP);
    EXPECT(MPI_Group_intersection(MPI_GROUP_NULL, world, &g), MPI_ERR_GROUP);
    EXPECT(MPI_Group_difference(MPI_GROUP_NULL, MPI_GROUP_NULL, &g), MPI_ERR_GROUP);
    EXPECT(MPI_Group_compare(world, MPI_GROUP_NULL, &n), MPI_ERR_GROUP);
#undef EXPECT
  }
  MPI_Group_free(&rev), MPI_Group_free(&odds), MPI_Group_free(&evens), MPI_Group_free(&world);
  CHECK(world == MPI_GROUP_NULL, "Group_free sets MPI_GROUP_NULL");
  if (rank == 0) printf("group: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
