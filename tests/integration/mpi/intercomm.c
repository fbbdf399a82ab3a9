/* Intercommunicators. The world splits into two groups of unequal size,
 * interleaved (A: world ranks with rank % 3 == 0, B: the rest), and
 * MPI_Intercomm_create joins them with A's leader at its local rank 0 and
 * B's at its last local rank. Then, checked on both sides:
 * - sizes, ranks, MPI_Comm_test_inter, the remote group;
 * - point-to-point both ways from MPI_ANY_SOURCE (the status names remote
 *   ranks), a rendezvous-sized message, MPI_PROC_NULL;
 * - every collective with MPI_ROOT / MPI_PROC_NULL roots rooted in each
 *   group, and the non-blocking forms;
 * - MPI_Intercomm_merge with high = 0/1 both ways and with equal values;
 * - MPI_Comm_dup (attributes and congruence), MPI_Comm_idup (not blocking:
 *   a synchronous message is taken while it is in flight), MPI_Comm_split
 *   and MPI_Comm_create on the intercommunicator (intercommunicators, or
 *   MPI_COMM_NULL where a side is empty);
 * - errors through MPI_ERRORS_RETURN: intracommunicator-only calls on it
 *   and intercommunicator-only calls on an intracommunicator (MPI_ERR_COMM),
 *   leaders out of range (MPI_ERR_RANK), a bad root (MPI_ERR_ROOT). */
#include <string.h>
#include "lz_test.h"

static int rank, size;
static int in_a;           /* this process is in group A */
static int na, nb;         /* group sizes */
static int a_world[64], b_world[64];
static int lrank, lsize, rsize;
static const int *my_world_list, *remote_world_list;

static void expect_err(int err, int cls, const char *what) {
  int c = MPI_SUCCESS;
  if (err != MPI_SUCCESS) MPI_Error_class(err, &c);
  CHECK(c == cls, "%s: error class %d, expected %d", what, c, cls);
}

/* The world ranks of `g`'s members, compared with `want`. */
static void check_group(MPI_Group g, const int *want, int n, const char *what) {
  int gs;
  MPI_Group_size(g, &gs);
  CHECK(gs == n, "%s: group size %d, expected %d", what, gs, n);
  MPI_Group wg;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  for (int i = 0; i < n; ++i) {
    int w;
    MPI_Group_translate_ranks(g, 1, &i, wg, &w);
    CHECK(w == want[i], "%s: member %d is world %d, expected %d", what, i, w, want[i]);
  }
  MPI_Group_free(&wg);
}

/* Traffic both ways over intercommunicator `ic` whose groups are `mine` and
 * `theirs` (world ranks by rank): each process sends its world rank to
 * every remote process; each receives from MPI_ANY_SOURCE and checks. */
static void exchange(MPI_Comm ic, const int *mine, int nmine, const int *theirs, int ntheirs, int tag,
                     const char *what) {
  int r;
  MPI_Comm_rank(ic, &r);
  MPI_Request req[64];
  int out[64];
  for (int j = 0; j < ntheirs; ++j) {
    out[j] = mine[r] * 1000 + j;
    MPI_Isend(&out[j], 1, MPI_INT, j, tag, ic, &req[j]);
  }
  int seen[64] = {0};
  for (int k = 0; k < ntheirs; ++k) {
    int v = -1;
    MPI_Status st;
    MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, tag, ic, &st);
    CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < ntheirs, "%s: source %d", what, st.MPI_SOURCE);
    CHECK(v == theirs[st.MPI_SOURCE] * 1000 + r, "%s: %d from remote rank %d (world %d)", what, v, st.MPI_SOURCE,
          theirs[st.MPI_SOURCE]);
    CHECK(!seen[st.MPI_SOURCE], "%s: two messages from remote rank %d", what, st.MPI_SOURCE);
    seen[st.MPI_SOURCE] = 1;
  }
  MPI_Waitall(ntheirs, req, MPI_STATUSES_IGNORE);
  (void)nmine;
}

static long sum_of(const int *w, int n) {
  long s = 0;
  for (int i = 0; i < n; ++i) s += w[i];
  return s;
}

/* Digit strings as (value, length) pairs of longs: (a, la) o (b, lb) =
 * (a * 10^lb + b, la + lb), associative and not commutative, so a
 * reduction shows the order it applied the contributions in. */
static void concat(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  long *a = in, *b = inout;
  for (int i = 0; i + 1 < *len; i += 2) {
    long p = 1;
    for (long k = 0; k < b[i + 1]; ++k) p *= 10;
    b[i] = a[i] * p + b[i];
    b[i + 1] += a[i + 1];
  }
}

/* The digits 0 .. n-1 in rank order. */
static long digits(int n) {
  long v = 0;
  for (int j = 0; j < n; ++j) v = v * 10 + j;
  return v;
}

/* Every collective on `ic`, rooted once in each group. */
static void collectives(MPI_Comm ic) {
  const int *rw = remote_world_list;
  const int me = my_world_list[lrank];
  MPI_Barrier(ic);

  /* Bcast: from A's local rank 0, then from B's last rank. */
  for (int from_a = 1; from_a >= 0; --from_a) {
    const int root_local = from_a ? 0 : nb - 1;
    const int root_in_mine = (in_a == from_a);
    int root = root_in_mine ? (lrank == root_local ? MPI_ROOT : MPI_PROC_NULL) : root_local;
    long buf[3] = {-1, -1, -1};
    if (root == MPI_ROOT) buf[0] = 11, buf[1] = 22 + from_a, buf[2] = 33;
    MPI_Bcast(buf, 3, MPI_LONG, root, ic);
    if (!root_in_mine)
      CHECK(buf[0] == 11 && buf[1] == 22 + from_a && buf[2] == 33, "bcast from %s: %ld %ld %ld", from_a ? "A" : "B",
            buf[0], buf[1], buf[2]);
    else if (root == MPI_PROC_NULL)
      CHECK(buf[0] == -1, "bcast: a non-root of the root's group was written");

    /* Gather / gatherv of world ranks at the root. */
    int g[64], gv[256];
    for (int i = 0; i < 64; ++i) g[i] = -1;
    for (int i = 0; i < 256; ++i) gv[i] = -1;
    int counts[64], displs[64];
    for (int j = 0, d = 0; j < rsize; ++j) counts[j] = j % 3 + 1, displs[j] = d, d += counts[j] + 1;
    int mine3[3] = {me, me + 1, me + 2};
    MPI_Gather(&me, 1, MPI_INT, g, 1, MPI_INT, root, ic);
    MPI_Gatherv(mine3, lrank % 3 + 1, MPI_INT, gv, counts, displs, MPI_INT, root, ic);
    if (root == MPI_ROOT) {
      for (int j = 0; j < rsize; ++j) {
        CHECK(g[j] == rw[j], "gather: slot %d holds %d, expected %d", j, g[j], rw[j]);
        for (int e = 0; e < counts[j]; ++e)
          CHECK(gv[displs[j] + e] == rw[j] + e, "gatherv: slot %d.%d holds %d", j, e, gv[displs[j] + e]);
        CHECK(gv[displs[j] + counts[j]] == -1, "gatherv: the gap after slot %d was written", j);
      }
    }

    /* Scatter / scatterv: remote rank j gets 7000 + j (and j % 3 + 1 values). */
    int s[64], sv[256];
    for (int j = 0; j < rsize; ++j) s[j] = 7000 + j;
    for (int i = 0; i < 256; ++i) sv[i] = 9000 + i;
    int got = -1, gotv[3] = {-1, -1, -1};
    MPI_Scatter(s, 1, MPI_INT, &got, 1, MPI_INT, root, ic);
    MPI_Scatterv(sv, counts, displs, MPI_INT, gotv, lrank % 3 + 1, MPI_INT, root, ic);
    if (!root_in_mine) {
      CHECK(got == 7000 + lrank, "scatter: got %d", got);
      int d = 0;
      for (int j = 0; j < lrank; ++j) d += j % 3 + 1 + 1;
      for (int e = 0; e < lrank % 3 + 1; ++e) CHECK(gotv[e] == 9000 + d + e, "scatterv: element %d is %d", e, gotv[e]);
    }

    /* Reduce: the root gets the sum and the maximum of the other group's world ranks. */
    long val[2] = {me, me}, red[2] = {-1, -1};
    MPI_Reduce(val, red, 1, MPI_LONG, MPI_SUM, root, ic);
    MPI_Reduce(val + 1, red + 1, 1, MPI_LONG, MPI_MAX, root, ic);
    if (root == MPI_ROOT) {
      long mx = 0;
      for (int j = 0; j < rsize; ++j) mx = rw[j] > mx ? rw[j] : mx;
      CHECK(red[0] == sum_of(rw, rsize) && red[1] == mx, "reduce: %ld %ld", red[0], red[1]);
    }
  }

  /* Allgather(v): every remote world rank, in remote rank order. */
  int ag[64], agv[256];
  MPI_Allgather(&me, 1, MPI_INT, ag, 1, MPI_INT, ic);
  for (int j = 0; j < rsize; ++j) CHECK(ag[j] == rw[j], "allgather: slot %d is %d", j, ag[j]);
  int counts[64], displs[64], mine3[3] = {me, -me, me * 2};
  for (int j = 0, d = 0; j < rsize; ++j) counts[j] = j % 3 + 1, displs[j] = d, d += counts[j];
  MPI_Allgatherv(mine3, lrank % 3 + 1, MPI_INT, agv, counts, displs, MPI_INT, ic);
  for (int j = 0; j < rsize; ++j) {
    int want[3] = {rw[j], -rw[j], rw[j] * 2};
    for (int e = 0; e < counts[j]; ++e)
      CHECK(agv[displs[j] + e] == want[e], "allgatherv: %d.%d is %d", j, e, agv[displs[j] + e]);
  }

  /* Alltoall(v,w): to remote rank j, me * 100 + j. */
  int sa[64], ra[64];
  for (int j = 0; j < rsize; ++j) sa[j] = me * 100 + j;
  MPI_Alltoall(sa, 1, MPI_INT, ra, 1, MPI_INT, ic);
  for (int j = 0; j < rsize; ++j) CHECK(ra[j] == rw[j] * 100 + lrank, "alltoall: from %d got %d", j, ra[j]);
  int sc[64], sd[64], rc[64], rd[64], sbig[256], rbig[256];
  for (int j = 0, d = 0; j < rsize; ++j) {
    sc[j] = lrank % 2 + 1;   /* what I send to each: my count */
    sd[j] = d;
    for (int e = 0; e < sc[j]; ++e) sbig[d + e] = me * 100 + j * 10 + e;
    d += sc[j];
  }
  for (int j = 0, d = 0; j < rsize; ++j) rc[j] = j % 2 + 1, rd[j] = d, d += rc[j];
  MPI_Alltoallv(sbig, sc, sd, MPI_INT, rbig, rc, rd, MPI_INT, ic);
  for (int j = 0; j < rsize; ++j)
    for (int e = 0; e < rc[j]; ++e)
      CHECK(rbig[rd[j] + e] == rw[j] * 100 + lrank * 10 + e, "alltoallv: %d.%d is %d", j, e, rbig[rd[j] + e]);
  MPI_Datatype st[64], rt[64];
  int wsd[64], wrd[64], one[64];
  for (int j = 0; j < rsize; ++j) st[j] = rt[j] = MPI_INT, wsd[j] = wrd[j] = (int)(j * sizeof(int)), one[j] = 1;
  for (int j = 0; j < rsize; ++j) ra[j] = -1;
  MPI_Alltoallw(sa, one, wsd, st, ra, one, wrd, rt, ic);
  for (int j = 0; j < rsize; ++j) CHECK(ra[j] == rw[j] * 100 + lrank, "alltoallw: from %d got %d", j, ra[j]);

  /* Allreduce: each group gets the other's sum; a non-commutative op sees
   * the other group's contributions in its rank order. */
  long v = me, sum = -1;
  MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, ic);
  CHECK(sum == sum_of(rw, rsize), "allreduce: %ld, expected %ld", sum, sum_of(rw, rsize));
  MPI_Op cat;
  MPI_Op_create(concat, 0, &cat);
  long dig[2] = {lrank % 10, 1}, dres[2] = {-1, -1};
  MPI_Allreduce(dig, dres, 2, MPI_LONG, cat, ic);
  CHECK(dres[0] == digits(rsize) && dres[1] == rsize, "allreduce in rank order: %ld (%ld digits)", dres[0], dres[1]);
  dres[0] = dres[1] = -1;
  int croot = in_a ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  MPI_Reduce(dig, dres, 2, MPI_LONG, cat, croot, ic);
  if (croot == MPI_ROOT) CHECK(dres[0] == digits(rsize), "reduce in rank order: %ld", dres[0]);
  MPI_Op_free(&cat);

  /* Reduce_scatter: 12 elements both sides, element k of each process's
   * vector is world + k; local rank i keeps its block of the other
   * group's sums. */
  enum { T = 12 };
  int rcounts[64], before = 0;
  for (int i = 0; i < lsize; ++i) {
    rcounts[i] = T / lsize + (i < T % lsize);
    if (i < lrank) before += rcounts[i];
  }
  long vec[T], out[T];
  for (int k = 0; k < T; ++k) vec[k] = me + k, out[k] = -1;
  MPI_Reduce_scatter(vec, out, rcounts, MPI_LONG, MPI_SUM, ic);
  for (int e = 0; e < rcounts[lrank]; ++e)
    CHECK(out[e] == sum_of(rw, rsize) + (long)rsize * (before + e), "reduce_scatter: element %d is %ld", e, out[e]);
  /* Reduce_scatter_block: blocks of the remote size, na * nb elements. */
  long bvec[256], bout[64];
  for (int k = 0; k < na * nb; ++k) bvec[k] = me + k;
  MPI_Reduce_scatter_block(bvec, bout, rsize, MPI_LONG, MPI_SUM, ic);
  for (int e = 0; e < rsize; ++e)
    CHECK(bout[e] == sum_of(rw, rsize) + (long)rsize * (lrank * rsize + e), "reduce_scatter_block: %d is %ld", e,
          bout[e]);

  /* Non-blocking forms, several in flight at once. */
  MPI_Request rq[4];
  long ib = in_a ? 5 : -1, iar = -1, ivv = me;
  int ia2a[64];
  int iroot = in_a ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  MPI_Ibarrier(ic, &rq[0]);
  MPI_Ibcast(&ib, 1, MPI_LONG, iroot, ic, &rq[1]);
  MPI_Iallreduce(&ivv, &iar, 1, MPI_LONG, MPI_SUM, ic, &rq[2]);
  MPI_Ialltoall(sa, 1, MPI_INT, ia2a, 1, MPI_INT, ic, &rq[3]);
  MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
  if (!in_a) CHECK(ib == 5, "ibcast: %ld", ib);
  CHECK(iar == sum_of(rw, rsize), "iallreduce: %ld", iar);
  for (int j = 0; j < rsize; ++j) CHECK(ia2a[j] == rw[j] * 100 + lrank, "ialltoall: from %d got %d", j, ia2a[j]);
}

/* The merged intracommunicator's world ranks: `first` group then the other. */
static void check_merge(MPI_Comm ic, int high, int first_is_a, const char *what) {
  MPI_Comm m;
  MPI_Intercomm_merge(ic, high, &m);
  int flag = 1, ms, mr;
  MPI_Comm_test_inter(m, &flag);
  CHECK(!flag, "%s: the merged communicator is an intercommunicator", what);
  MPI_Comm_size(m, &ms);
  MPI_Comm_rank(m, &mr);
  CHECK(ms == size, "%s: size %d", what, ms);
  int want[128], n = 0;
  const int *f = first_is_a ? a_world : b_world, *s = first_is_a ? b_world : a_world;
  int nf = first_is_a ? na : nb, ns = first_is_a ? nb : na;
  for (int i = 0; i < nf; ++i) want[n++] = f[i];
  for (int i = 0; i < ns; ++i) want[n++] = s[i];
  MPI_Group g;
  MPI_Comm_group(m, &g);
  check_group(g, want, n, what);
  MPI_Group_free(&g);
  CHECK(want[mr] == rank, "%s: my rank %d is world %d", what, mr, want[mr]);
  long v = rank, sum = 0;
  MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, m);
  CHECK(sum == (long)size * (size - 1) / 2, "%s: allreduce %ld", what, sum);
  MPI_Comm_free(&m);
}

static int copied;
static int copy_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag) {
  (void)c, (void)k, (void)extra;
  ++copied;
  *(void **)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2 && size <= 64, "run with 2 to 64 ranks");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  in_a = rank % 3 == 0;
  na = nb = 0;
  for (int w = 0; w < size; ++w) {
    if (w % 3 == 0) a_world[na++] = w;
    else b_world[nb++] = w;
  }
  MPI_Comm local;
  MPI_Comm_split(MPI_COMM_WORLD, in_a, rank, &local);
  MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
  MPI_Comm_rank(local, &lrank);
  MPI_Comm_size(local, &lsize);
  my_world_list = in_a ? a_world : b_world;
  remote_world_list = in_a ? b_world : a_world;
  CHECK(lsize == (in_a ? na : nb), "local size %d", lsize);

  /* Errors first, before anything is in flight. */
  int err;
  MPI_Comm bad = MPI_COMM_NULL;
  err = MPI_Intercomm_create(local, lsize, MPI_COMM_WORLD, 0, 5, &bad);
  expect_err(err, MPI_ERR_RANK, "local_leader out of range");
  CHECK(bad == MPI_COMM_NULL, "a failed create returned a communicator");
  err = MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, size + 3, 5, &bad);
  expect_err(err, MPI_ERR_RANK, "remote_leader out of range (both leaders)");
  err = MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &bad);
  expect_err(err, MPI_ERR_COMM, "MPI_Intercomm_merge on an intracommunicator");
  int rs = -1;
  err = MPI_Comm_remote_size(local, &rs);
  expect_err(err, MPI_ERR_COMM, "MPI_Comm_remote_size on an intracommunicator");
  int flag = 1;
  MPI_Comm_test_inter(MPI_COMM_WORLD, &flag);
  CHECK(!flag, "MPI_COMM_WORLD is an intercommunicator");

  /* A's leader: local 0 (world 0); B's: its last local rank. */
  const int a_leader_world = a_world[0], b_leader_world = b_world[nb - 1];
  MPI_Comm ic;
  err = MPI_Intercomm_create(local, in_a ? 0 : nb - 1, MPI_COMM_WORLD, in_a ? b_leader_world : a_leader_world, 42,
                             &ic);
  CHECK(err == MPI_SUCCESS, "MPI_Intercomm_create failed: %d", err);
  MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
  MPI_Comm_test_inter(ic, &flag);
  CHECK(flag, "MPI_Comm_test_inter: false on an intercommunicator");
  int r, s;
  MPI_Comm_rank(ic, &r);
  MPI_Comm_size(ic, &s);
  MPI_Comm_remote_size(ic, &rsize);
  CHECK(r == lrank && s == lsize, "rank %d size %d, expected the local group's %d %d", r, s, lrank, lsize);
  CHECK(rsize == (in_a ? nb : na), "remote size %d", rsize);
  MPI_Group g;
  MPI_Comm_remote_group(ic, &g);
  check_group(g, remote_world_list, rsize, "remote group");
  MPI_Group_free(&g);
  MPI_Comm_group(ic, &g);
  check_group(g, my_world_list, lsize, "local group");
  MPI_Group_free(&g);

  /* Point-to-point both ways, a large message, MPI_PROC_NULL. */
  exchange(ic, my_world_list, lsize, remote_world_list, rsize, 3, "p2p");
  enum { BIG = 1 << 20 };
  unsigned char *big = malloc(BIG);
  if (lrank == 0) {
    if (in_a) {
      for (long i = 0; i < BIG; ++i) big[i] = lz_pattern(rank, 1, i);
      MPI_Send(big, BIG, MPI_BYTE, 0, 9, ic);
    } else {
      MPI_Status st;
      memset(big, 0, BIG);
      MPI_Recv(big, BIG, MPI_BYTE, MPI_ANY_SOURCE, 9, ic, &st);
      CHECK(st.MPI_SOURCE == 0, "large message from remote rank %d", st.MPI_SOURCE);
      for (long i = 0; i < BIG; ++i) CHECK(big[i] == lz_pattern(a_world[0], 1, i), "large message: byte %ld", i);
    }
  }
  free(big);
  MPI_Status pst;
  int pv = 5;
  MPI_Send(&pv, 1, MPI_INT, MPI_PROC_NULL, 0, ic);
  MPI_Recv(&pv, 1, MPI_INT, MPI_PROC_NULL, 0, ic, &pst);
  CHECK(pst.MPI_SOURCE == MPI_PROC_NULL && pv == 5, "receive from MPI_PROC_NULL");

  collectives(ic);

  /* Merge: the group passing high = 0 first; with equal values, A (world 0). */
  check_merge(ic, in_a ? 0 : 1, 1, "merge A low");
  check_merge(ic, in_a ? 1 : 0, 0, "merge B low");
  check_merge(ic, 0, 1, "merge both low");
  check_merge(ic, 1, 1, "merge both high");

  /* Dup: congruent, with the attributes; names are local and not copied. */
  int key;
  MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL);
  static int attr_value = 77;
  MPI_Comm_set_attr(ic, key, &attr_value);
  MPI_Comm_set_name(ic, "the intercomm");
  MPI_Comm d;
  MPI_Comm_dup(ic, &d);
  int res;
  MPI_Comm_compare(ic, d, &res);
  CHECK(res == MPI_CONGRUENT, "compare(ic, dup) = %d", res);
  MPI_Comm_compare(ic, local, &res);
  CHECK(res == MPI_UNEQUAL, "compare(ic, local) = %d", res);
  void *got;
  MPI_Comm_get_attr(d, key, &got, &flag);
  CHECK(flag && got == &attr_value && copied == 1, "dup: attribute not copied");
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  MPI_Comm_get_name(ic, name, &len);
  CHECK(strcmp(name, "the intercomm") == 0, "name %s", name);
  MPI_Comm_test_inter(d, &flag);
  CHECK(flag, "the dup is not an intercommunicator");
  exchange(d, my_world_list, lsize, remote_world_list, rsize, 3, "p2p on the dup");
  /* Idup does not block: A starts it, then takes a synchronous message B's
   * rank 0 sends before B starts its own (a blocking idup would hang). */
  MPI_Comm di;
  MPI_Request rq;
  if (in_a) {
    MPI_Comm_idup(ic, &di, &rq);
    int x = -1;
    MPI_Recv(&x, 1, MPI_INT, 0, 8, ic, MPI_STATUS_IGNORE);
    CHECK(x == 88, "message beside the idup: %d", x);
  } else {
    int x = 88;
    if (lrank == 0)
      for (int j = 0; j < rsize; ++j) MPI_Ssend(&x, 1, MPI_INT, j, 8, ic);
    MPI_Comm_idup(ic, &di, &rq);
  }
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  MPI_Comm_compare(ic, di, &res);
  CHECK(res == MPI_CONGRUENT, "compare(ic, idup) = %d", res);
  long v = rank, sum = 0;
  MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, di);
  CHECK(sum == sum_of(remote_world_list, rsize), "allreduce on the idup: %ld", sum);
  MPI_Comm_free(&di);
  collectives(d);
  MPI_Comm_free(&d);

  /* Split by the parity of the local rank, in reverse order of it. */
  MPI_Comm sp;
  MPI_Comm_split(ic, lrank % 2, -lrank, &sp);
  {
    int lw[64], rw[64], nl = 0, nr = 0;
    for (int i = lsize - 1; i >= 0; --i)
      if (i % 2 == lrank % 2) lw[nl++] = my_world_list[i];
    for (int i = rsize - 1; i >= 0; --i)
      if (i % 2 == lrank % 2) rw[nr++] = remote_world_list[i];
    if (nr == 0) {
      CHECK(sp == MPI_COMM_NULL, "split: a color with no remote members gave a communicator");
    } else {
      CHECK(sp != MPI_COMM_NULL, "split: MPI_COMM_NULL");
      MPI_Comm_test_inter(sp, &flag);
      CHECK(flag, "split: not an intercommunicator");
      MPI_Comm_group(sp, &g);
      check_group(g, lw, nl, "split local group");
      MPI_Group_free(&g);
      MPI_Comm_remote_group(sp, &g);
      check_group(g, rw, nr, "split remote group");
      MPI_Group_free(&g);
      exchange(sp, lw, nl, rw, nr, 4, "p2p on the split");
      long sv = rank, ssum = -1;
      MPI_Allreduce(&sv, &ssum, 1, MPI_LONG, MPI_SUM, sp);
      CHECK(ssum == sum_of(rw, nr), "split: allreduce %ld", ssum);
      MPI_Comm_free(&sp);
    }
  }

  /* Create over each group without its local rank 0 (whole group when alone). */
  MPI_Group lg, sub;
  MPI_Comm_group(ic, &lg);
  int zero = 0;
  if (lsize > 1) MPI_Group_excl(lg, 1, &zero, &sub);
  else sub = lg;
  MPI_Comm cr;
  MPI_Comm_create(ic, sub, &cr);
  {
    const int lo = lsize > 1 ? 1 : 0, ro = rsize > 1 ? 1 : 0;
    if (lrank < lo) {
      CHECK(cr == MPI_COMM_NULL, "create: a process outside the group got a communicator");
    } else {
      CHECK(cr != MPI_COMM_NULL, "create: MPI_COMM_NULL");
      int crs, crr;
      MPI_Comm_size(cr, &crs);
      MPI_Comm_rank(cr, &crr);
      MPI_Comm_remote_size(cr, &rs);
      CHECK(crs == lsize - lo && crr == lrank - lo && rs == rsize - ro, "create: size %d rank %d remote %d", crs, crr,
            rs);
      exchange(cr, my_world_list + lo, lsize - lo, remote_world_list + ro, rsize - ro, 5, "p2p on the created");
      MPI_Comm_free(&cr);
    }
  }
  if (sub != lg) MPI_Group_free(&sub);
  MPI_Group_free(&lg);

  /* Errors on the intercommunicator. */
  long x = 1, y = 0;
  expect_err(MPI_Scan(&x, &y, 1, MPI_LONG, MPI_SUM, ic), MPI_ERR_COMM, "MPI_Scan on an intercommunicator");
  expect_err(MPI_Exscan(&x, &y, 1, MPI_LONG, MPI_SUM, ic), MPI_ERR_COMM, "MPI_Exscan on an intercommunicator");
  int dims[1] = {lsize}, periods[1] = {0};
  MPI_Comm cart;
  expect_err(MPI_Cart_create(ic, 1, dims, periods, 0, &cart), MPI_ERR_COMM, "MPI_Cart_create on an intercommunicator");
  expect_err(MPI_Intercomm_create(ic, 0, MPI_COMM_WORLD, 0, 1, &bad), MPI_ERR_COMM,
             "MPI_Intercomm_create with an intercommunicator as local_comm");
  expect_err(MPI_Send(&x, 1, MPI_LONG, rsize, 0, ic), MPI_ERR_RANK, "send to a rank past the remote group");
  expect_err(MPI_Bcast(&x, 1, MPI_LONG, rsize, ic), MPI_ERR_ROOT, "bcast with a root past the remote group");
  expect_err(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_LONG, MPI_SUM, ic), MPI_ERR_BUFFER, "MPI_IN_PLACE on an intercommunicator");

  MPI_Comm_free(&ic);
  MPI_Comm_free_keyval(&key);
  MPI_Comm_free(&local);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("intercomm: ok (A %d, B %d)\n", na, nb);
  MPI_Finalize();
  return 0;
}
