/* Distributed graph topologies and neighbourhood collectives.
 *
 * Topologies, each spanning MPI_COMM_WORLD: a 2-D Cartesian grid from
 * MPI_Dims_create, not periodic and periodic (at np 4 and 8 a periodic
 * dimension of 2, at np 1 one of 1: both neighbours of a dimension are one
 * process); a graph ring whose nodes list each neighbour twice, interleaved,
 * plus a self-loop at node 0; distributed graphs with repeated edges, a
 * self-loop, a rank with no in-neighbours (0) and one with no out-neighbours
 * (the last), made by MPI_Dist_graph_create_adjacent (lists in the caller's
 * order, sources deliberately unsorted) and by MPI_Dist_graph_create (edges
 * named by other processes than their ends), weighted and not.
 *
 * Every rank derives every rank's neighbour lists from the same formulas,
 * checks the library's queries against its own (MPI_Cart_shift,
 * MPI_Graph_neighbors, MPI_Dist_graph_neighbors(_count), MPI_Topo_test),
 * then runs each neighbourhood collective, blocking, and all five
 * non-blocking ones at once beside a wildcard point-to-point exchange and an
 * MPI_Iallreduce on the same communicator, and with blocks of 128 KiB
 * (rendezvous) one of each in flight together. Values encode (sender, sender's
 * block, element): which block of a sender fills which receive block is
 * the standard's rule, computed here independently: in a Cartesian
 * dimension the sender's block 2d lands in block 2d+1 and 2d+1 in 2d
 * (MPI-4.0 errata of MPI-3.1 section 7.6); for graphs the k-th block sent
 * to a process fills the k-th block it receives from the sender. Gaps
 * between blocks and blocks of MPI_PROC_NULL neighbours must stay untouched.
 * Last, argument errors with MPI_ERRORS_RETURN. */
#include <stdlib.h>
#include <string.h>
#include "lz_test.h"

#define MAXN 8  /* neighbours of one process, at most */
#define MAXE 64 /* distributed graph edges */
#define BUF 64  /* ints in a receive buffer */

enum { CART, GRAPH, DIST_ADJ, DIST_GEN };
typedef struct {
  int kind, n, weighted;
  int dims[2], periods[2];
} Topo;
typedef struct {
  int nin, nout, in[MAXN], out[MAXN], inw[MAXN], outw[MAXN];
} Lists;

static const char *kind_name(const Topo *t) {
  static char s[64];
  const char *k[] = {"cart", "graph", "dist_graph_create_adjacent", "dist_graph_create"};
  snprintf(s, sizeof s, "%s%s%s", k[t->kind], t->kind == CART && t->periods[0] ? " periodic" : "",
           t->kind >= DIST_ADJ ? (t->weighted ? " weighted" : " unweighted") : "");
  return s;
}

/* The distributed graph: s -> s+1 twice and s -> s+3 once (mod n), and
 * 1 -> 1, but nothing from the last rank nor into rank 0. */
static int dist_edges(int n, int es[], int ed[]) {
  int m = 0;
  for (int s = 0; s < n - 1; ++s) {
    int ds[3] = {(s + 1) % n, (s + 3) % n, (s + 1) % n};
    for (int k = 0; k < 3; ++k)
      if (ds[k] != 0) {
        es[m] = s;
        ed[m++] = ds[k];
      }
    if (s == 1) {
      es[m] = 1;
      ed[m++] = 1;
    }
  }
  return m;
}
static int edge_weight(int e) { return 100 + e; }
/* MPI_Dist_graph_create: the process that names edge e. */
static int namer(int e, int n) { return (e * 5 + 1) % n; }

/* Sorts edge indices by (peer, naming process, position), the order
 * MPI_Dist_graph_create documents; peer[] is indexed by edge. */
static void sort_edges(int *idx, int m, const int *peer, int n) {
  for (int a = 1; a < m; ++a)
    for (int b = a; b > 0; --b) {
      int x = idx[b - 1], y = idx[b];
      int gt = peer[x] != peer[y] ? peer[x] > peer[y] : namer(x, n) != namer(y, n) ? namer(x, n) > namer(y, n) : x > y;
      if (!gt) break;
      idx[b - 1] = y;
      idx[b] = x;
    }
}

/* Rank r's neighbour lists in topology t, as the standard orders them. */
static void lists_of(const Topo *t, int r, Lists *l) {
  int n = t->n;
  l->nin = l->nout = 0;
  if (t->kind == CART) {
    int c[2] = {r / t->dims[1], r % t->dims[1]};
    for (int d = 0; d < 2; ++d)
      for (int disp = -1; disp <= 1; disp += 2) {
        int cc[2] = {c[0], c[1]}, nb;
        cc[d] += disp;
        if ((cc[d] < 0 || cc[d] >= t->dims[d]) && !t->periods[d]) {
          nb = MPI_PROC_NULL;
        } else {
          cc[d] = (cc[d] + t->dims[d]) % t->dims[d];
          nb = cc[0] * t->dims[1] + cc[1];
        }
        l->in[l->nin++] = nb;
        l->out[l->nout++] = nb;
      }
  } else if (t->kind == GRAPH) {
    int g[4] = {(r + 1) % n, (r - 1 + n) % n, (r + 1) % n, (r - 1 + n) % n};
    for (int k = 0; k < 4; ++k) l->in[l->nin++] = g[k];
    if (r == 0) l->in[l->nin++] = 0;
    l->nout = l->nin;
    memcpy(l->out, l->in, sizeof l->in);
  } else {
    int es[MAXE], ed[MAXE], m = dist_edges(n, es, ed), ein[MAXE], eout[MAXE], nin = 0, nout = 0;
    for (int e = 0; e < m; ++e) {
      if (ed[e] == r) ein[nin++] = e;
      if (es[e] == r) eout[nout++] = e;
    }
    if (t->kind == DIST_ADJ) { /* as given: sources in reverse edge order */
      for (int a = 0, b = nin - 1; a < b; ++a, --b) {
        int x = ein[a];
        ein[a] = ein[b];
        ein[b] = x;
      }
    } else {
      sort_edges(ein, nin, es, n);
      sort_edges(eout, nout, ed, n);
    }
    CHECK(nin <= MAXN && nout <= MAXN, "too many neighbours");
    for (int k = 0; k < nin; ++k) {
      l->in[k] = es[ein[k]];
      l->inw[k] = edge_weight(ein[k]);
    }
    for (int k = 0; k < nout; ++k) {
      l->out[k] = ed[eout[k]];
      l->outw[k] = edge_weight(eout[k]);
    }
    l->nin = nin;
    l->nout = nout;
  }
}

static MPI_Comm make_comm(const Topo *t, int me) {
  MPI_Comm c = MPI_COMM_NULL;
  Lists l;
  lists_of(t, me, &l);
  if (t->kind == CART) {
    CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, t->dims, t->periods, 1, &c) == MPI_SUCCESS, "Cart_create");
  } else if (t->kind == GRAPH) {
    int index[MAXN * 8], edges[MAXN * 8 * 8], ne = 0;
    for (int r = 0; r < t->n; ++r) {
      Lists x;
      lists_of(t, r, &x);
      for (int k = 0; k < x.nout; ++k) edges[ne++] = x.out[k];
      index[r] = ne;
    }
    CHECK(MPI_Graph_create(MPI_COMM_WORLD, t->n, index, edges, 1, &c) == MPI_SUCCESS, "Graph_create");
  } else if (t->kind == DIST_ADJ) {
    CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, l.nin, l.in, t->weighted ? l.inw : MPI_UNWEIGHTED, l.nout,
                                         l.out, t->weighted ? l.outw : MPI_UNWEIGHTED, MPI_INFO_NULL, 1,
                                         &c) == MPI_SUCCESS,
          "Dist_graph_create_adjacent");
  } else {
    /* This process's edges, consecutive ones of one source under one
     * entry; rank 0 starts with an entry of degree 0. */
    int es[MAXE], ed[MAXE], m = dist_edges(t->n, es, ed);
    int src[MAXE + 1], deg[MAXE + 1], dst[MAXE], w[MAXE], ns = 0, nd = 0, last = -1;
    if (me == 0) {
      src[ns] = t->n - 1;
      deg[ns++] = 0;
    }
    for (int e = 0; e < m; ++e) {
      if (namer(e, t->n) != me) continue;
      if (last >= 0 && es[last] == es[e] && src[ns - 1] == es[e] && deg[ns - 1] > 0) {
        ++deg[ns - 1];
      } else {
        src[ns] = es[e];
        deg[ns++] = 1;
      }
      dst[nd] = ed[e];
      w[nd++] = edge_weight(e);
      last = e;
    }
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "some_hint", "ignored");
    CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, ns, src, deg, dst, t->weighted ? w : MPI_UNWEIGHTED, info, 1, &c) ==
              MPI_SUCCESS,
          "Dist_graph_create");
    MPI_Info_free(&info);
  }
  CHECK(c != MPI_COMM_NULL, "%s: no communicator", kind_name(t));
  return c;
}

/* The library's view of the topology against ours. */
static void check_queries(const Topo *t, MPI_Comm c, int me, const Lists *l) {
  int status = -1, e;
  MPI_Topo_test(c, &status);
  int expect = t->kind == CART ? MPI_CART : t->kind == GRAPH ? MPI_GRAPH : MPI_DIST_GRAPH;
  CHECK(status == expect, "%s: Topo_test %d, expected %d", kind_name(t), status, expect);
  if (t->kind == CART) {
    for (int d = 0; d < 2; ++d) {
      int s, de;
      MPI_Cart_shift(c, d, 1, &s, &de);
      CHECK(s == l->in[2 * d] && de == l->in[2 * d + 1], "%s: shift %d: %d %d, expected %d %d", kind_name(t), d, s, de,
            l->in[2 * d], l->in[2 * d + 1]);
    }
  } else if (t->kind == GRAPH) {
    int cnt = -1, nb[MAXN];
    MPI_Graph_neighbors_count(c, me, &cnt);
    CHECK(cnt == l->nin, "graph: %d neighbours, expected %d", cnt, l->nin);
    MPI_Graph_neighbors(c, me, MAXN, nb);
    for (int k = 0; k < cnt; ++k)
      CHECK(nb[k] == l->in[k], "graph: neighbour %d is %d, expected %d", k, nb[k], l->in[k]);
  } else {
    int in = -1, out = -1, weighted = -1;
    e = MPI_Dist_graph_neighbors_count(c, &in, &out, &weighted);
    CHECK(e == MPI_SUCCESS && in == l->nin && out == l->nout && weighted == t->weighted,
          "%s: neighbors_count %d %d %d, expected %d %d %d", kind_name(t), in, out, weighted, l->nin, l->nout,
          t->weighted);
    int s[MAXN], sw[MAXN], d[MAXN], dw[MAXN];
    for (int k = 0; k < MAXN; ++k) s[k] = sw[k] = d[k] = dw[k] = -9;
    e = MPI_Dist_graph_neighbors(c, MAXN, s, sw, MAXN, d, dw);
    CHECK(e == MPI_SUCCESS, "Dist_graph_neighbors");
    for (int k = 0; k < MAXN; ++k) {
      CHECK(s[k] == (k < l->nin ? l->in[k] : -9), "%s: sources[%d] = %d, expected %d", kind_name(t), k, s[k],
            k < l->nin ? l->in[k] : -9);
      CHECK(d[k] == (k < l->nout ? l->out[k] : -9), "%s: destinations[%d] = %d, expected %d", kind_name(t), k, d[k],
            k < l->nout ? l->out[k] : -9);
      int ew = t->weighted && k < l->nin ? l->inw[k] : -9, ow = t->weighted && k < l->nout ? l->outw[k] : -9;
      CHECK(sw[k] == ew, "%s: sourceweights[%d] = %d, expected %d", kind_name(t), k, sw[k], ew);
      CHECK(dw[k] == ow, "%s: destweights[%d] = %d, expected %d", kind_name(t), k, dw[k], ow);
    }
    /* fewer than there are: the first ones */
    if (l->nin > 1) {
      int s1[MAXN] = {-9, -9};
      MPI_Dist_graph_neighbors(c, 1, s1, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED);
      CHECK(s1[0] == l->in[0] && s1[1] == -9, "%s: maxindegree 1 gave %d %d", kind_name(t), s1[0], s1[1]);
    }
  }
  MPI_Comm dup;
  MPI_Comm_dup(c, &dup);
  MPI_Topo_test(dup, &status);
  CHECK(status == expect, "%s: Topo_test on a dup %d", kind_name(t), status);
  MPI_Comm_free(&dup);
}

/* ---- the collectives ---------------------------------------------------- */

typedef struct {
  const Topo *t;
  MPI_Comm comm;
  int me;
  Lists l;
  int jof[MAXN]; /* the sender's block that fills my block i */
} Ctx;

static void init_ctx(Ctx *x, const Topo *t, MPI_Comm c, int me) {
  x->t = t;
  x->comm = c;
  x->me = me;
  lists_of(t, me, &x->l);
  for (int i = 0; i < x->l.nin; ++i) {
    int src = x->l.in[i];
    x->jof[i] = -1;
    if (src == MPI_PROC_NULL) continue;
    if (t->kind == CART) {
      x->jof[i] = i ^ 1;
      continue;
    }
    int k = 0;
    for (int q = 0; q < i; ++q) k += x->l.in[q] == src;
    Lists theirs;
    lists_of(t, src, &theirs);
    for (int j = 0; j < theirs.nout; ++j)
      if (theirs.out[j] == me && k-- == 0) x->jof[i] = j;
    CHECK(x->jof[i] >= 0, "%s: %d lists %d as a source, not the other way", kind_name(t), me, src);
  }
}

static int code(int src, int block, int e) { return src * 10000 + block * 100 + e; }

static void compare(const Ctx *x, const char *what, const int *got, const int *expect, int n) {
  for (int k = 0; k < n; ++k)
    CHECK(got[k] == expect[k], "%s, %s: recvbuf[%d] = %d, expected %d", kind_name(x->t), what, k, got[k], expect[k]);
}

static void fill(int *b, int n, int v) {
  for (int k = 0; k < n; ++k) b[k] = v;
}

typedef struct {
  int s[BUF], r[BUF], expect[BUF];
  int sc[MAXN], sd[MAXN], rc[MAXN], rd[MAXN];
  MPI_Aint swd[MAXN], rwd[MAXN];
  MPI_Datatype st[MAXN], rt[MAXN];
} Bufs;

static MPI_Datatype pair_type;

/* allgather: 3 ints, src*10000 + e */
static void prep_allgather(const Ctx *x, Bufs *b) {
  fill(b->r, BUF, -1);
  fill(b->expect, BUF, -1);
  for (int e = 0; e < 3; ++e) b->s[e] = code(x->me, 0, e);
  for (int i = 0; i < x->l.nin; ++i)
    if (x->l.in[i] != MPI_PROC_NULL)
      for (int e = 0; e < 3; ++e) b->expect[3 * i + e] = code(x->l.in[i], 0, e);
}
/* allgatherv: 1 + src%3 ints from each, blocks 5 apart from 1 */
static void prep_allgatherv(const Ctx *x, Bufs *b) {
  fill(b->r, BUF, -1);
  fill(b->expect, BUF, -1);
  b->sc[0] = 1 + x->me % 3;
  for (int e = 0; e < b->sc[0]; ++e) b->s[e] = code(x->me, 0, e);
  for (int i = 0; i < x->l.nin; ++i) {
    int src = x->l.in[i];
    b->rd[i] = 5 * i + 1;
    b->rc[i] = src == MPI_PROC_NULL ? 2 : 1 + src % 3;
    if (src != MPI_PROC_NULL)
      for (int e = 0; e < b->rc[i]; ++e) b->expect[b->rd[i] + e] = code(src, 0, e);
  }
}
/* alltoall: 2 ints per block */
static void prep_alltoall(const Ctx *x, Bufs *b) {
  fill(b->r, BUF, -1);
  fill(b->expect, BUF, -1);
  for (int j = 0; j < x->l.nout; ++j)
    for (int e = 0; e < 2; ++e) b->s[2 * j + e] = code(x->me, j, e);
  for (int i = 0; i < x->l.nin; ++i)
    if (x->l.in[i] != MPI_PROC_NULL)
      for (int e = 0; e < 2; ++e) b->expect[2 * i + e] = code(x->l.in[i], x->jof[i], e);
}
/* alltoallv: block j of sender s is 1 + (s+j)%3 ints; send blocks in
 * reverse order in the send buffer, receive blocks 4 apart from 1 */
static int vcount(int s, int j) { return 1 + (s + j) % 3; }
static void prep_alltoallv(const Ctx *x, Bufs *b) {
  fill(b->r, BUF, -1);
  fill(b->expect, BUF, -1);
  for (int j = 0; j < x->l.nout; ++j) {
    b->sc[j] = vcount(x->me, j);
    b->sd[j] = 4 * (x->l.nout - 1 - j);
    for (int e = 0; e < b->sc[j]; ++e) b->s[b->sd[j] + e] = code(x->me, j, e);
  }
  for (int i = 0; i < x->l.nin; ++i) {
    int src = x->l.in[i];
    b->rd[i] = 4 * i + 1;
    b->rc[i] = src == MPI_PROC_NULL ? 3 : vcount(src, x->jof[i]);
    if (src != MPI_PROC_NULL)
      for (int e = 0; e < b->rc[i]; ++e) b->expect[b->rd[i] + e] = code(src, x->jof[i], e);
  }
}
/* alltoallw: block j of sender s is 2 or 4 ints sent as MPI_INT, received
 * as MPI_INT in even blocks and as pairs of ints in odd ones; byte
 * displacements */
static int wcount(int s, int j) { return 2 * (1 + (s + j) % 2); }
static void prep_alltoallw(const Ctx *x, Bufs *b) {
  fill(b->r, BUF, -1);
  fill(b->expect, BUF, -1);
  for (int j = 0; j < x->l.nout; ++j) {
    int at = 5 * (x->l.nout - 1 - j);
    b->sc[j] = wcount(x->me, j);
    b->swd[j] = (MPI_Aint)(at * (int)sizeof(int));
    b->st[j] = MPI_INT;
    for (int e = 0; e < b->sc[j]; ++e) b->s[at + e] = code(x->me, j, e);
  }
  for (int i = 0; i < x->l.nin; ++i) {
    int src = x->l.in[i], n = src == MPI_PROC_NULL ? 2 : wcount(src, x->jof[i]), at = 5 * i + 1;
    b->rwd[i] = (MPI_Aint)(at * (int)sizeof(int));
    b->rt[i] = i % 2 ? pair_type : MPI_INT;
    b->rc[i] = i % 2 ? n / 2 : n;
    if (src != MPI_PROC_NULL)
      for (int e = 0; e < n; ++e) b->expect[at + e] = code(src, x->jof[i], e);
  }
}

enum { AG, AGV, A2A, A2AV, A2AW, NCOLL };
static const char *coll_name[NCOLL] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};

static void prep(const Ctx *x, int which, Bufs *b) {
  switch (which) {
    case AG: prep_allgather(x, b); break;
    case AGV: prep_allgatherv(x, b); break;
    case A2A: prep_alltoall(x, b); break;
    case A2AV: prep_alltoallv(x, b); break;
    default: prep_alltoallw(x, b); break;
  }
}

/* Runs collective `which`: blocking when rq is NULL. */
static int call(const Ctx *x, int which, Bufs *b, MPI_Request *rq) {
  MPI_Comm c = x->comm;
  switch (which) {
    case AG:
      return rq ? MPI_Ineighbor_allgather(b->s, 3, MPI_INT, b->r, 3, MPI_INT, c, rq)
                : MPI_Neighbor_allgather(b->s, 3, MPI_INT, b->r, 3, MPI_INT, c);
    case AGV:
      return rq ? MPI_Ineighbor_allgatherv(b->s, b->sc[0], MPI_INT, b->r, b->rc, b->rd, MPI_INT, c, rq)
                : MPI_Neighbor_allgatherv(b->s, b->sc[0], MPI_INT, b->r, b->rc, b->rd, MPI_INT, c);
    case A2A:
      return rq ? MPI_Ineighbor_alltoall(b->s, 2, MPI_INT, b->r, 2, MPI_INT, c, rq)
                : MPI_Neighbor_alltoall(b->s, 2, MPI_INT, b->r, 2, MPI_INT, c);
    case A2AV:
      return rq ? MPI_Ineighbor_alltoallv(b->s, b->sc, b->sd, MPI_INT, b->r, b->rc, b->rd, MPI_INT, c, rq)
                : MPI_Neighbor_alltoallv(b->s, b->sc, b->sd, MPI_INT, b->r, b->rc, b->rd, MPI_INT, c);
    default:
      return rq ? MPI_Ineighbor_alltoallw(b->s, b->sc, b->swd, b->st, b->r, b->rc, b->rwd, b->rt, c, rq)
                : MPI_Neighbor_alltoallw(b->s, b->sc, b->swd, b->st, b->r, b->rc, b->rwd, b->rt, c);
  }
}

static void run_collectives(const Ctx *x) {
  static Bufs b[NCOLL];
  char what[64];
  /* blocking, one after the other */
  for (int k = 0; k < NCOLL; ++k) {
    prep(x, k, &b[k]);
    CHECK(call(x, k, &b[k], NULL) == MPI_SUCCESS, "%s: MPI_Neighbor_%s", kind_name(x->t), coll_name[k]);
    snprintf(what, sizeof what, "MPI_Neighbor_%s", coll_name[k]);
    compare(x, what, b[k].r, b[k].expect, BUF);
  }
  /* non-blocking, all at once, beside a wildcard receive of user traffic
   * on the same communicator (which must not take a neighbour message) and
   * an MPI_Iallreduce */
  int size, got = -1, mine = x->me * 7 + 3, sum = -1;
  MPI_Comm_size(x->comm, &size);
  MPI_Request rq[NCOLL + 3];
  MPI_Status st[NCOLL + 3];
  CHECK(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, x->comm, &rq[NCOLL]) == MPI_SUCCESS, "Irecv");
  for (int k = 0; k < NCOLL; ++k) {
    prep(x, k, &b[k]);
    CHECK(call(x, k, &b[k], &rq[k]) == MPI_SUCCESS, "%s: MPI_Ineighbor_%s", kind_name(x->t), coll_name[k]);
  }
  MPI_Iallreduce(&x->me, &sum, 1, MPI_INT, MPI_SUM, x->comm, &rq[NCOLL + 1]);
  MPI_Isend(&mine, 1, MPI_INT, (x->me + 1) % size, 9, x->comm, &rq[NCOLL + 2]);
  CHECK(MPI_Waitall(NCOLL + 3, rq, st) == MPI_SUCCESS, "Waitall");
  for (int k = 0; k < NCOLL; ++k) {
    snprintf(what, sizeof what, "MPI_Ineighbor_%s", coll_name[k]);
    compare(x, what, b[k].r, b[k].expect, BUF);
  }
  int left = (x->me - 1 + size) % size;
  CHECK(got == left * 7 + 3 && st[NCOLL].MPI_SOURCE == left && st[NCOLL].MPI_TAG == 9,
        "%s: the wildcard receive got %d from %d tag %d, expected %d from %d tag 9", kind_name(x->t), got,
        st[NCOLL].MPI_SOURCE, st[NCOLL].MPI_TAG, left * 7 + 3, left);
  CHECK(sum == size * (size - 1) / 2, "Iallreduce beside them: %d", sum);
}

/* Blocks of 128 KiB (rendezvous on every transport): an
 * MPI_Ineighbor_alltoall in flight while an MPI_Neighbor_alltoall runs on
 * the same communicator; repeated neighbours must still pair up as above. */
#define LARGE (1 << 15)
static int large_code(int src, int block, int e) { return (src * 10 + block) * 100000 + e; }
static void check_large(const Ctx *x) {
  size_t n = (size_t)LARGE * MAXN;
  int *s = malloc(n * sizeof(int)), *r1 = malloc(n * sizeof(int)), *r2 = malloc(n * sizeof(int));
  CHECK(s && r1 && r2, "malloc");
  for (int j = 0; j < x->l.nout; ++j)
    for (int e = 0; e < LARGE; ++e) s[(size_t)j * LARGE + e] = large_code(x->me, j, e);
  for (size_t k = 0; k < n; ++k) r1[k] = r2[k] = -1;
  MPI_Request rq;
  CHECK(MPI_Ineighbor_alltoall(s, LARGE, MPI_INT, r1, LARGE, MPI_INT, x->comm, &rq) == MPI_SUCCESS,
        "Ineighbor_alltoall");
  CHECK(MPI_Neighbor_alltoall(s, LARGE, MPI_INT, r2, LARGE, MPI_INT, x->comm) == MPI_SUCCESS, "Neighbor_alltoall");
  CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait");
  for (int i = 0; i < x->l.nin; ++i)
    for (int e = 0; e < LARGE; ++e) {
      size_t k = (size_t)i * LARGE + e;
      int expect = x->l.in[i] == MPI_PROC_NULL ? -1 : large_code(x->l.in[i], x->jof[i], e);
      CHECK(r1[k] == expect && r2[k] == expect,
            "%s, large alltoall: block %d [%d] = %d (non-blocking) %d (blocking), expected %d", kind_name(x->t), i, e,
            r1[k], r2[k], expect);
    }
  free(s);
  free(r1);
  free(r2);
}

static void check_topology(const Topo *t, int me) {
  MPI_Comm c = make_comm(t, me);
  Ctx x;
  init_ctx(&x, t, c, me);
  check_queries(t, c, me, &x.l);
  run_collectives(&x);
  check_large(&x);
  MPI_Comm_free(&c);
}

/* ---- errors ----------------------------------------------------------------- */

static void expect_class(int e, int cls, const char *what) {
  int got = -1;
  MPI_Error_class(e, &got);
  CHECK(got == cls, "%s: class %d, expected %d", what, got, cls);
}

static void check_errors(int me, int size) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int buf[4] = {0}, in = 0, out = 0, w = 0, e;
  MPI_Comm c = MPI_COMM_WORLD;
  expect_class(MPI_Neighbor_allgather(buf, 1, MPI_INT, buf + 1, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY,
               "Neighbor_allgather without a topology");
  MPI_Request r = MPI_REQUEST_NULL;
  expect_class(MPI_Ineighbor_alltoall(buf, 1, MPI_INT, buf + 1, 1, MPI_INT, MPI_COMM_WORLD, &r), MPI_ERR_TOPOLOGY,
               "Ineighbor_alltoall without a topology");
  CHECK(r == MPI_REQUEST_NULL, "a failed Ineighbor_alltoall left a request");
  expect_class(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &in, &out, &w), MPI_ERR_TOPOLOGY,
               "Dist_graph_neighbors_count without a topology");

  /* create_adjacent: a rank outside the communicator, a negative degree,
   * MPI_UNWEIGHTED on one side only, MPI_WEIGHTS_EMPTY for edges, a negative weight */
  int bad[1] = {size}, okr[1] = {me}, wt[1] = {1}, neg[1] = {-1};
  e = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, bad, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                     0, &c);
  expect_class(e, MPI_ERR_RANK, "create_adjacent with source = size");
  CHECK(c == MPI_COMM_NULL, "a failed create_adjacent gave a communicator");
  expect_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 1, neg, MPI_UNWEIGHTED,
                                              MPI_INFO_NULL, 0, &c),
               MPI_ERR_RANK, "create_adjacent with destination -1");
  expect_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, okr, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED,
                                              MPI_INFO_NULL, 0, &c),
               MPI_ERR_ARG, "create_adjacent with indegree -1");
  expect_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, okr, MPI_UNWEIGHTED, 1, okr, wt, MPI_INFO_NULL, 0,
                                              &c),
               MPI_ERR_ARG, "create_adjacent with MPI_UNWEIGHTED for the sources only");
  expect_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, okr, MPI_WEIGHTS_EMPTY, 1, okr, wt, MPI_INFO_NULL, 0,
                                              &c),
               MPI_ERR_ARG, "create_adjacent with MPI_WEIGHTS_EMPTY for one source");
  expect_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, okr, neg, 1, okr, wt, MPI_INFO_NULL, 0, &c),
               MPI_ERR_ARG, "create_adjacent with weight -1");
  CHECK(c == MPI_COMM_NULL, "a failed create_adjacent gave a communicator");

  /* create: every rank names a bad edge; then only rank 0 does (the others
   * learn it in the exchange and fail too instead of waiting); a negative
   * degree; MPI_UNWEIGHTED on rank 0 only */
  int one[1] = {1}, mdeg[1] = {-1}, to_bad[1] = {size};
  expect_class(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, okr, one, to_bad, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
               MPI_ERR_RANK, "create with destination = size");
  CHECK(c == MPI_COMM_NULL, "a failed create gave a communicator");
  e = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, me == 0 ? bad : okr, one, okr, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
  expect_class(e, me == 0 ? MPI_ERR_RANK : MPI_ERR_ARG, "create with a bad source on rank 0 only");
  CHECK(c == MPI_COMM_NULL, "a failed create gave a communicator");
  expect_class(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, okr, mdeg, okr, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
               MPI_ERR_ARG, "create with degree -1");
  if (size > 1) {
    e = MPI_Dist_graph_create(MPI_COMM_WORLD, 1, okr, one, okr, me == 0 ? MPI_UNWEIGHTED : wt, MPI_INFO_NULL, 0, &c);
    expect_class(e, MPI_ERR_ARG, "create with MPI_UNWEIGHTED on rank 0 only");
    CHECK(c == MPI_COMM_NULL, "a failed create gave a communicator");
  }

  /* a real dist graph (a self-loop each): wrong-kind queries, bad collective arguments */
  MPI_Comm g;
  CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, okr, MPI_UNWEIGHTED, 1, okr, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                       0, &g) == MPI_SUCCESS,
        "create_adjacent of self-loops");
  expect_class(MPI_Graph_neighbors_count(g, me, &in), MPI_ERR_TOPOLOGY, "Graph_neighbors_count on a dist graph");
  expect_class(MPI_Cart_shift(g, 0, 1, &in, &out), MPI_ERR_TOPOLOGY, "Cart_shift on a dist graph");
  int sc[1] = {-1}, sd[1] = {0}, rc[1] = {1}, rd[1] = {0};
  expect_class(MPI_Neighbor_alltoallv(buf, sc, sd, MPI_INT, buf + 2, rc, rd, MPI_INT, g), MPI_ERR_COUNT,
               "Neighbor_alltoallv with sendcounts[0] = -1");
  expect_class(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, buf, 1, MPI_INT, g), MPI_ERR_BUFFER,
               "Neighbor_allgather in place");
  expect_class(MPI_Ineighbor_allgather(buf, 1, MPI_INT, buf + 1, 1, MPI_INT, g, NULL), MPI_ERR_ARG,
               "Ineighbor_allgather with a NULL request");
  expect_class(MPI_Neighbor_alltoall(buf, 1, MPI_DATATYPE_NULL, buf + 1, 1, MPI_INT, g), MPI_ERR_TYPE,
               "Neighbor_alltoall with MPI_DATATYPE_NULL");
  MPI_Datatype types[1] = {MPI_INT};
  MPI_Aint ad[1] = {0};
  expect_class(MPI_Neighbor_alltoallw(buf, rc, ad, types, buf + 2, rc, NULL, types, g), MPI_ERR_ARG,
               "Neighbor_alltoallw with NULL rdispls");
  /* and still works */
  buf[0] = me + 40;
  buf[1] = -1;
  CHECK(MPI_Neighbor_allgather(buf, 1, MPI_INT, buf + 1, 1, MPI_INT, g) == MPI_SUCCESS && buf[1] == me + 40,
        "a self-loop allgather after errors: %d", buf[1]);
  MPI_Comm_free(&g);

  /* a Cartesian communicator is not a dist graph */
  int dims[1] = {size}, per[1] = {1};
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &cart);
  int s1[1];
  expect_class(MPI_Dist_graph_neighbors(cart, 1, s1, MPI_UNWEIGHTED, 1, s1, MPI_UNWEIGHTED), MPI_ERR_TOPOLOGY,
               "Dist_graph_neighbors on a cart");
  MPI_Comm_free(&cart);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= MAXN, "at most %d ranks", MAXN);
  MPI_Type_contiguous(2, MPI_INT, &pair_type);
  MPI_Type_commit(&pair_type);

  for (int periodic = 0; periodic <= 1; ++periodic) {
    Topo t = {CART, size, 0, {0, 0}, {periodic, periodic}};
    MPI_Dims_create(size, 2, t.dims);
    check_topology(&t, me);
  }
  {
    Topo t = {GRAPH, size, 0, {0, 0}, {0, 0}};
    check_topology(&t, me);
  }
  for (int kind = DIST_ADJ; kind <= DIST_GEN; ++kind)
    for (int weighted = 0; weighted <= 1; ++weighted) {
      Topo t = {kind, size, weighted, {0, 0}, {0, 0}};
      check_topology(&t, me);
    }
  check_errors(me, size);

  MPI_Type_free(&pair_type);
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) printf("neighbor: ok (%d ranks)\n", size);
  MPI_Finalize();
  return 0;
}
