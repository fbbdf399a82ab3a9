/* Communicators and groups: split (even/odd, reversed keys, MPI_UNDEFINED),
 * dup, create from a group, compare, group incl/excl/translate, and traffic
 * on each new communicator that must not mix with MPI_COMM_WORLD's. */
#include "lz_test.h"

static void ring_check(MPI_Comm c, int tag) {
  int r, n;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &n);
  int out = r * 1000 + tag, in = -1;
  MPI_Sendrecv(&out, 1, MPI_INT, (r + 1) % n, tag, &in, 1, MPI_INT, (r + n - 1) % n, tag, c, MPI_STATUS_IGNORE);
  CHECK(in == ((r + n - 1) % n) * 1000 + tag, "ring on a communicator: got %d", in);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* A world message posted early with a wildcard must not catch sub-communicator traffic. */
  MPI_Request wild;
  int wildval = -1;
  MPI_Irecv(&wildval, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &wild);

  MPI_Comm split, rev, dup, none, created;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split);
  int sr, ss;
  MPI_Comm_rank(split, &sr);
  MPI_Comm_size(split, &ss);
  CHECK(sr == rank / 2 && ss == (size + 1 - rank % 2) / 2, "split rank %d size %d", sr, ss);
  ring_check(split, 1);

  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
  int rr;
  MPI_Comm_rank(rev, &rr);
  CHECK(rr == size - 1 - rank, "reversed-key split gave rank %d", rr);
  ring_check(rev, 2);

  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &none);
  CHECK((rank == 0) == (none == MPI_COMM_NULL), "MPI_UNDEFINED color");
  if (none != MPI_COMM_NULL) MPI_Comm_free(&none);

  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int result;
  MPI_Comm_compare(MPI_COMM_WORLD, dup, &result);
  CHECK(result == MPI_CONGRUENT, "compare(world, dup) = %d", result);
  MPI_Comm_compare(dup, dup, &result);
  CHECK(result == MPI_IDENT, "compare(dup, dup) = %d", result);
  MPI_Comm_compare(MPI_COMM_WORLD, rev, &result);
  CHECK(result == (size == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "compare(world, rev) = %d", result);
  if (size > 1) {
    MPI_Comm_compare(MPI_COMM_WORLD, split, &result);
    CHECK(result == MPI_UNEQUAL, "compare(world, split) = %d", result);
  }
  ring_check(dup, 3);

  /* Groups */
  MPI_Group world, evens, odds, g;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int gs, gr;
  MPI_Group_size(world, &gs);
  MPI_Group_rank(world, &gr);
  CHECK(gs == size && gr == rank, "world group %d/%d", gs, gr);
  int *ev = malloc(sizeof(int) * (size_t)size), ne = 0;
  for (int i = 0; i < size; i += 2) ev[ne++] = i;
  MPI_Group_incl(world, ne, ev, &evens);
  MPI_Group_excl(world, ne, ev, &odds);
  MPI_Group_size(evens, &gs);
  CHECK(gs == ne, "incl size %d", gs);
  MPI_Group_rank(odds, &gr);
  CHECK(gr == (rank % 2 ? rank / 2 : MPI_UNDEFINED), "excl rank %d", gr);
  int *tr = malloc(sizeof(int) * (size_t)size), *all = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; ++i) all[i] = i;
  MPI_Group_translate_ranks(world, size, all, evens, tr);
  for (int i = 0; i < size; ++i) CHECK(tr[i] == (i % 2 ? MPI_UNDEFINED : i / 2), "translate %d -> %d", i, tr[i]);
  MPI_Comm_create(MPI_COMM_WORLD, evens, &created);
  CHECK((rank % 2 == 0) == (created != MPI_COMM_NULL), "Comm_create membership");
  if (created != MPI_COMM_NULL) {
    MPI_Comm_group(created, &g);
    MPI_Group_size(g, &gs);
    CHECK(gs == ne, "created size %d", gs);
    MPI_Group_free(&g);
    ring_check(created, 4);
    MPI_Comm_free(&created);
  }
  MPI_Group_size(MPI_GROUP_EMPTY, &gs);
  CHECK(gs == 0, "empty group size %d", gs);
  MPI_Group_free(&evens);
  MPI_Group_free(&odds);
  MPI_Group_free(&world);
  free(ev), free(tr), free(all);

  /* Many dup/free cycles: context ids keep agreeing. */
  for (int i = 0; i < 50; ++i) {
    MPI_Comm c;
    MPI_Comm_dup(i % 2 ? split : MPI_COMM_WORLD, &c);
    ring_check(c, 5);
    MPI_Comm_free(&c);
  }
  CHECK(dup != MPI_COMM_NULL, "dup");
  MPI_Comm_free(&dup);
  MPI_Comm_free(&split);
  MPI_Comm_free(&rev);

  /* Now the world wildcard gets its message, and only it. */
  int v = 4242;
  MPI_Send(&v, 1, MPI_INT, (rank + 1) % size, 9, MPI_COMM_WORLD);
  MPI_Status st;
  MPI_Wait(&wild, &st);
  CHECK(wildval == 4242 && st.MPI_TAG == 9, "world wildcard receive got %d tag %d", wildval, st.MPI_TAG);
  if (rank == 0) printf("comm: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
