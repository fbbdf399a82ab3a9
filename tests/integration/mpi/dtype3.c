/* Decoding datatypes and distributed arrays:
 * - MPI_Type_get_envelope / MPI_Type_get_contents for every constructor:
 *   the combiner and counts, then the type rebuilt from what get_contents
 *   returns must pack the same bytes as the original and travel the same
 *   (sent with the rebuilt type, received contiguously, compared with the
 *   original's pack of the sender's data); returned derived types are freed.
 * - MPI_Type_create_darray: block, cyclic, block-cyclic and none, C and
 *   Fortran order, 2-D and 3-D: rank 0 scatters a global array through each
 *   rank's darray type, every rank checks its part against an index map
 *   computed here element by element, and rank 0 gathers it back through the
 *   same types (every element back once). */
#include <string.h>
#include "lz_test.h"

#define BUF 4096
static int rank, size, next, prev;

/* Rebuilds a type from its envelope and contents. */
static MPI_Datatype rebuild(MPI_Datatype t, int *combiner_out) {
  int ni, na, nd, comb;
  MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
  *combiner_out = comb;
  int *iv = malloc(sizeof(int) * (size_t)(ni + 1));
  MPI_Aint *av = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
  MPI_Datatype *tv = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
  CHECK(MPI_Type_get_contents(t, ni, na, nd, iv, av, tv) == MPI_SUCCESS, "get_contents");
  MPI_Datatype r = MPI_DATATYPE_NULL;
  int n = iv[0];
  switch (comb) {
    case MPI_COMBINER_DUP: CHECK(ni == 0 && na == 0 && nd == 1, "dup envelope"); MPI_Type_dup(tv[0], &r); break;
    case MPI_COMBINER_CONTIGUOUS: CHECK(ni == 1 && nd == 1, "contiguous envelope"); MPI_Type_contiguous(n, tv[0], &r); break;
    case MPI_COMBINER_VECTOR: CHECK(ni == 3 && nd == 1, "vector envelope"); MPI_Type_vector(iv[0], iv[1], iv[2], tv[0], &r); break;
    case MPI_COMBINER_HVECTOR: CHECK(ni == 2 && na == 1, "hvector envelope"); MPI_Type_create_hvector(iv[0], iv[1], av[0], tv[0], &r); break;
    case MPI_COMBINER_INDEXED: CHECK(ni == 2 * n + 1, "indexed envelope"); MPI_Type_indexed(n, iv + 1, iv + 1 + n, tv[0], &r); break;
    case MPI_COMBINER_HINDEXED: CHECK(ni == n + 1 && na == n, "hindexed envelope"); MPI_Type_create_hindexed(n, iv + 1, av, tv[0], &r); break;
    case MPI_COMBINER_INDEXED_BLOCK: CHECK(ni == n + 2, "indexed_block envelope"); MPI_Type_create_indexed_block(n, iv[1], iv + 2, tv[0], &r); break;
    case MPI_COMBINER_HINDEXED_BLOCK: CHECK(ni == 2 && na == n, "hindexed_block envelope"); MPI_Type_create_hindexed_block(n, iv[1], av, tv[0], &r); break;
    case MPI_COMBINER_STRUCT: CHECK(ni == n + 1 && na == n && nd == n, "struct envelope"); MPI_Type_create_struct(n, iv + 1, av, tv, &r); break;
    case MPI_COMBINER_SUBARRAY: CHECK(ni == 3 * n + 2, "subarray envelope"); MPI_Type_create_subarray(n, iv + 1, iv + 1 + n, iv + 1 + 2 * n, iv[1 + 3 * n], tv[0], &r); break;
    case MPI_COMBINER_DARRAY: {
      int nd_ = iv[2];
      CHECK(ni == 4 * nd_ + 4, "darray envelope");
      MPI_Type_create_darray(iv[0], iv[1], nd_, iv + 3, iv + 3 + nd_, iv + 3 + 2 * nd_, iv + 3 + 3 * nd_, iv[3 + 4 * nd_], tv[0], &r);
      break;
    }
    case MPI_COMBINER_RESIZED: CHECK(ni == 0 && na == 2 && nd == 1, "resized envelope"); MPI_Type_create_resized(tv[0], av[0], av[1], &r); break;
    default: CHECK(0, "unexpected combiner %d", comb);
  }
  /* The contents' derived types are ours to free; predefined ones are not. */
  for (int i = 0; i < nd; ++i) {
    int a, b, c, k;
    MPI_Type_get_envelope(tv[i], &a, &b, &c, &k);
    if (k != MPI_COMBINER_NAMED) MPI_Type_free(&tv[i]);
  }
  free(iv), free(av), free(tv);
  MPI_Type_commit(&r);
  return r;
}

/* `t` (built by `expect_comb`) against the type rebuilt from its contents. */
static void round_trip(MPI_Datatype t, int expect_comb, const char *what) {
  MPI_Type_commit(&t);
  int comb;
  MPI_Datatype r = rebuild(t, &comb);
  CHECK(comb == expect_comb, "%s: combiner %d, expected %d", what, comb, expect_comb);
  int s1, s2;
  MPI_Aint lb1, ext1, lb2, ext2;
  MPI_Type_size(t, &s1), MPI_Type_size(r, &s2);
  MPI_Type_get_extent(t, &lb1, &ext1), MPI_Type_get_extent(r, &lb2, &ext2);
  CHECK(s1 == s2 && lb1 == lb2 && ext1 == ext2, "%s: size/lb/extent %d %ld %ld rebuilt as %d %ld %ld", what, s1,
        (long)lb1, (long)ext1, s2, (long)lb2, (long)ext2);
  CHECK(s1 > 0, "%s: an empty type tests nothing", what);
  /* Two elements over a buffer of distinct ints, the base far enough in for
   * negative lower bounds. */
  static int src[BUF], mine[BUF];
  int *base = src + BUF / 4, *pbase = mine + BUF / 4;
  for (int i = 0; i < BUF; ++i) src[i] = rank * 100000 + i, mine[i] = prev * 100000 + i;
  char *p1 = malloc((size_t)s1 * 2), *p2 = malloc((size_t)s1 * 2), *got = malloc((size_t)s1 * 2 + 4);
  int pos = 0;
  MPI_Pack(base, 2, t, p1, s1 * 2, &pos, MPI_COMM_WORLD);
  pos = 0;
  MPI_Pack(base, 2, r, p2, s1 * 2, &pos, MPI_COMM_WORLD);
  CHECK(memcmp(p1, p2, (size_t)s1 * 2) == 0, "%s: the rebuilt type packs other bytes", what);
  /* Travel: sent with the rebuilt type, compared with what the original
   * packs of the sender's buffer. */
  MPI_Status st;
  MPI_Sendrecv(base, 2, r, next, 5, got, s1 * 2 + 4, MPI_BYTE, prev, 5, MPI_COMM_WORLD, &st);
  int c;
  MPI_Get_count(&st, MPI_BYTE, &c);
  CHECK(c == s1 * 2, "%s: received %d bytes, expected %d", what, c, s1 * 2);
  pos = 0;
  MPI_Pack(pbase, 2, t, p1, s1 * 2, &pos, MPI_COMM_WORLD);
  CHECK(memcmp(p1, got, (size_t)s1 * 2) == 0, "%s: the rebuilt type sent other bytes", what);
  free(p1), free(p2), free(got);
  MPI_Type_free(&r);
  MPI_Type_free(&t);
}

static void envelopes(void) {
  int ni, na, nd, comb;
  MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb);
  CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0, "MPI_INT: combiner %d", comb);

  MPI_Datatype vec, t;
  MPI_Type_vector(3, 2, 4, MPI_INT, &vec);  /* reused below as an inner type */
  MPI_Type_dup(vec, &t);
  round_trip(t, MPI_COMBINER_DUP, "dup");
  MPI_Type_contiguous(3, MPI_INT, &t);
  round_trip(t, MPI_COMBINER_CONTIGUOUS, "contiguous");
  MPI_Type_vector(3, 2, 4, MPI_INT, &t);
  round_trip(t, MPI_COMBINER_VECTOR, "vector");
  MPI_Type_create_hvector(3, 2, 44, vec, &t);
  round_trip(t, MPI_COMBINER_HVECTOR, "hvector of a vector");
  int bl[3] = {2, 1, 3}, di[3] = {0, 5, 9};
  MPI_Type_indexed(3, bl, di, MPI_INT, &t);
  round_trip(t, MPI_COMBINER_INDEXED, "indexed");
  MPI_Aint ad[3] = {4, 24, 60};
  MPI_Type_create_hindexed(3, bl, ad, MPI_INT, &t);
  round_trip(t, MPI_COMBINER_HINDEXED, "hindexed");
  int db[3] = {1, 4, 8};
  MPI_Type_create_indexed_block(3, 2, db, MPI_INT, &t);
  round_trip(t, MPI_COMBINER_INDEXED_BLOCK, "indexed_block");
  MPI_Type_create_hindexed_block(3, 2, ad, MPI_INT, &t);
  round_trip(t, MPI_COMBINER_HINDEXED_BLOCK, "hindexed_block");
  int sbl[3] = {1, 1, 2};
  MPI_Aint sd[3] = {0, 8, 60};
  MPI_Datatype sty[3] = {MPI_INT, vec, MPI_INT};
  MPI_Type_create_struct(3, sbl, sd, sty, &t);
  round_trip(t, MPI_COMBINER_STRUCT, "struct with a vector");
  int sz[2] = {6, 5}, sub[2] = {3, 2}, st[2] = {1, 2};
  MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &t);
  round_trip(t, MPI_COMBINER_SUBARRAY, "subarray C");
  MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_FORTRAN, MPI_INT, &t);
  round_trip(t, MPI_COMBINER_SUBARRAY, "subarray Fortran");
  int gs[2] = {6, 5}, dist[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK}, darg[2] = {2, MPI_DISTRIBUTE_DFLT_DARG},
      ps[2] = {1, 1};
  MPI_Type_create_darray(1, 0, 2, gs, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_INT, &t);
  round_trip(t, MPI_COMBINER_DARRAY, "darray");
  MPI_Type_create_resized(vec, -8, 64, &t);
  round_trip(t, MPI_COMBINER_RESIZED, "resized vector");

  /* A decoded inner type is a reference of its own: it outlives the user's. */
  MPI_Datatype outer, inner;
  MPI_Type_contiguous(2, vec, &outer);
  MPI_Type_free(&vec);
  int iv[1];
  MPI_Aint av[1];
  MPI_Type_get_contents(outer, 1, 0, 1, iv, av, &inner);
  MPI_Type_get_envelope(inner, &ni, &na, &nd, &comb);
  CHECK(comb == MPI_COMBINER_VECTOR && iv[0] == 2, "inner of contiguous: combiner %d count %d", comb, iv[0]);
  int is;
  MPI_Type_size(inner, &is);
  CHECK(is == 6 * (int)sizeof(int), "inner vector size %d", is);
  MPI_Type_free(&inner);
  MPI_Type_free(&outer);

  /* Errors: a predefined type has no contents, short arrays are refused. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(MPI_Type_get_contents(MPI_INT, 0, 0, 0, iv, av, &inner) != MPI_SUCCESS, "contents of MPI_INT");
  MPI_Type_contiguous(2, MPI_INT, &t);
  CHECK(MPI_Type_get_contents(t, 0, 0, 1, iv, av, &inner) != MPI_SUCCESS, "max_integers 0 accepted");
  MPI_Type_free(&t);
  int bad_ps[2] = {2, 2};
  CHECK(MPI_Type_create_darray(3, 0, 2, gs, dist, darg, bad_ps, MPI_ORDER_C, MPI_INT, &t) != MPI_SUCCESS,
        "a 2x2 grid for 3 processes accepted");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- darray ---- */

static int owns(int g, int gsize, int distrib, int darg, int p, int c) {
  if (distrib == MPI_DISTRIBUTE_NONE) return 1;
  if (distrib == MPI_DISTRIBUTE_BLOCK) return g / (darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + p - 1) / p : darg) == c;
  return (g / (darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg)) % p == c;
}

/* The global offsets of rank r's local array, in local order; returns n. */
static int index_map(int r, int nd, const int *gs, const int *dist, const int *darg, const int *ps, int order,
                     long *map) {
  int coords[3], rem = r;
  for (int d = nd - 1; d >= 0; --d) coords[d] = rem % ps[d], rem /= ps[d];
  int own[3][64], cnt[3] = {1, 1, 1};
  for (int d = 0; d < 3; ++d) own[d][0] = 0;
  for (int d = 0; d < nd; ++d) {
    cnt[d] = 0;
    for (int g = 0; g < gs[d]; ++g)
      if (owns(g, gs[d], dist[d], darg[d], ps[d], coords[d])) own[d][cnt[d]++] = g;
  }
  int g3[3] = {gs[0], nd > 1 ? gs[1] : 1, nd > 2 ? gs[2] : 1};
  int n = 0;
  /* C: the last dimension varies fastest; Fortran: the first. */
  for (int a = 0; a < cnt[order == MPI_ORDER_C ? 0 : 2]; ++a)
    for (int b = 0; b < cnt[1]; ++b)
      for (int c = 0; c < cnt[order == MPI_ORDER_C ? 2 : 0]; ++c) {
        int i = order == MPI_ORDER_C ? own[0][a] : own[0][c], j = own[1][b], k = order == MPI_ORDER_C ? own[2][c] : own[2][a];
        map[n++] = order == MPI_ORDER_C ? ((long)i * g3[1] + j) * g3[2] + k : ((long)k * g3[1] + j) * g3[0] + i;
      }
  return n;
}

static void darray_case(int nd, const int *gs, const int *dist, const int *darg, const int *ps, int order,
                        const char *what) {
  long total = 1;
  for (int d = 0; d < nd; ++d) total *= gs[d];
  long *map = malloc(sizeof(long) * (size_t)total);
  int n = index_map(rank, nd, gs, dist, darg, ps, order, map);
  MPI_Datatype mine;
  CHECK(MPI_Type_create_darray(size, rank, nd, gs, dist, darg, ps, order, MPI_INT, &mine) == MPI_SUCCESS, "%s", what);
  MPI_Type_commit(&mine);
  int s;
  MPI_Aint lb, ext;
  MPI_Type_size(mine, &s);
  MPI_Type_get_extent(mine, &lb, &ext);
  CHECK(s == n * (int)sizeof(int) && lb == 0 && ext == total * (long)sizeof(int),
        "%s: size %d lb %ld extent %ld, expected %d 0 %ld", what, s, (long)lb, (long)ext, n * (int)sizeof(int),
        total * (long)sizeof(int));
  int *local = malloc(sizeof(int) * (size_t)(n + 1));
  MPI_Request rq;
  MPI_Irecv(local, n + 1, MPI_INT, 0, 21, MPI_COMM_WORLD, &rq);
  int *global = NULL, *back = NULL;
  MPI_Datatype *types = NULL;
  if (rank == 0) {
    global = malloc(sizeof(int) * (size_t)total), back = malloc(sizeof(int) * (size_t)total);
    types = malloc(sizeof(MPI_Datatype) * (size_t)size);
    for (long i = 0; i < total; ++i) global[i] = 1000 + (int)i, back[i] = -1;
    for (int r = 0; r < size; ++r) {
      MPI_Type_create_darray(size, r, nd, gs, dist, darg, ps, order, MPI_INT, &types[r]);
      MPI_Type_commit(&types[r]);
      MPI_Send(global, 1, types[r], r, 21, MPI_COMM_WORLD);
    }
  }
  MPI_Status st;
  MPI_Wait(&rq, &st);
  int c;
  MPI_Get_count(&st, MPI_INT, &c);
  CHECK(c == n, "%s: received %d ints, expected %d", what, c, n);
  for (int i = 0; i < n; ++i)
    CHECK(local[i] == 1000 + map[i], "%s: local %d is %d, expected global %ld", what, i, local[i], map[i]);
  /* Back the other way: every element written exactly once. */
  MPI_Isend(local, n, MPI_INT, 0, 22, MPI_COMM_WORLD, &rq);
  if (rank == 0) {
    long seen = 0;
    for (int r = 0; r < size; ++r) {
      int rn;
      MPI_Type_size(types[r], &rn);
      seen += rn / (int)sizeof(int);
      MPI_Recv(back, 1, types[r], r, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Type_free(&types[r]);
    }
    CHECK(seen == total, "%s: the ranks own %ld elements of %ld", what, seen, total);
    for (long i = 0; i < total; ++i) CHECK(back[i] == global[i], "%s: gathered element %ld is %d", what, i, back[i]);
    free(global), free(back), free(types);
  }
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  MPI_Type_free(&mine);
  free(local), free(map);
}

static void darrays(void) {
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE, D = MPI_DISTRIBUTE_DFLT_DARG;
  for (int o = 0; o < 2; ++o) {
    int order = o ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
    int gs[3] = {9, 7, 4};
    { int d[2] = {B, B}, a[2] = {D, D}; darray_case(2, gs, d, a, dims, order, "block x block"); }
    { int d[2] = {C, C}, a[2] = {D, D}; darray_case(2, gs, d, a, dims, order, "cyclic x cyclic"); }
    { int d[2] = {C, C}, a[2] = {2, 3}; darray_case(2, gs, d, a, dims, order, "block-cyclic x block-cyclic"); }
    { int d[2] = {B, C}, a[2] = {9, 2}; darray_case(2, gs, d, a, dims, order, "block(9) x block-cyclic"); }
    { int ps[2] = {size, 1}, d[2] = {C, N}, a[2] = {2, D}; darray_case(2, gs, d, a, ps, order, "block-cyclic x none"); }
    { int ps[3] = {dims[0], dims[1], 1}, d[3] = {B, C, N}, a[3] = {D, 2, D};
      darray_case(3, gs, d, a, ps, order, "3-D block x block-cyclic x none"); }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  envelopes();
  darrays();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("dtype3: ok\n");
  MPI_Finalize();
  return 0;
}
