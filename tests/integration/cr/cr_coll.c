/* Every blocking collective that coll/tuned's algorithm parameters cover,
 * each iteration, small and large, for the checkpoint/restart test over
 * forced algorithms (cr_coll_test.sh). Usage: cr_coll ITERATIONS
 *
 * Each iteration runs: barrier; bcast of 8 B and of 1 MiB + 24 B from roots
 * that change with the iteration; allreduce (sum) of 1, 1000 and 131077
 * doubles; allreduce of 1, 1000 and 20001 elements of a non-commutative user
 * op; reduce (sum) of 1 and 100003 doubles and of 1000 non-commutative
 * elements to changing roots; allgather of 16 B and 64 KiB per rank (the
 * sum allreduces and the allgathers in place every other iteration: both
 * buffer paths); alltoall of 8 B and 64 KiB per pair; an alltoallv of
 * uneven blocks; reduce_scatter_block (sum) of 1 and 20000 doubles and of
 * 500 non-commutative elements per rank; a reduce_scatter of uneven blocks;
 * a scan of the non-commutative op and an exscan (sum). The sizes lie on
 * both sides of the automatic choice's switch points (but allreduce_ring_min:
 * 4 MiB), and the small ones below what a forced algorithm can serve
 * (Rabenseifner's and the ring's counts, the scatter's one byte per rank),
 * which then falls back.
 *
 * The non-commutative op composes affine maps x -> a*x + b modulo 2^64
 * (associative, not commutative): rank order errors show. Every value is an
 * integer (doubles below 2^20, so every sum of them is exact), so every
 * result is bitwise the same whatever algorithm computed it, and each one is
 * checked element by element against what the ranks' data give (MPI_Abort
 * with a message on a mismatch). The data of every call depend on the
 * iteration and on a state every rank holds the same (g), into which the
 * results that are the same on every rank are folded; every result goes into
 * the rank's checksum (h). Rank 0 prints "result <n>", a digest of g and of
 * every rank's h.
 *
 * Each iteration one rank (it % size) sleeps 20 ms (cr_pace.h: no more once
 * CR_ITER_RELEASE's file exists) before one of the collectives (a different
 * one as the iterations go), while the others are blocked inside that
 * collective's algorithm waiting for it: a checkpoint then lands in the
 * middle of a collective, in whatever phase the others reached. After the
 * last iteration the ranks wait for that file before they end (the test
 * releases the job after its last checkpoint).
 *
 * With CR_COLL_TRACE set rank 0 says on stderr as each iteration starts
 * ("iteration N") and when it holds at the end ("iteration ITERS: holding"). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cr_pace.h"

static int rank, size, iter, call;
static uint64_t g, h; /* g: the same on every rank; h: this rank's checksum */

static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
static uint64_t fold(const void* buf, size_t bytes) {
  const unsigned char* p = buf;
  uint64_t d = 1469598103934665603ull ^ bytes;
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    d = (d ^ w) * 1099511628211ull;
  }
  for (; i < bytes; ++i) d = (d ^ p[i]) * 1099511628211ull;
  return d;
}
/* A result: into h, and into g when every rank has the same one. */
static void fold_local(const void* buf, size_t bytes) { h = mix(h ^ fold(buf, bytes)); }
static void fold_global(const void* buf, size_t bytes) {
  const uint64_t d = fold(buf, bytes);
  h = mix(h ^ d);
  g = mix(g ^ d);
}

/* Rank r's data for the current call: element i is s + i*b (b odd, both from
 * g, the iteration, the call and r); as a double its top 20 bits. */
typedef struct {
  uint64_t s, b;
} gen_t;
static gen_t gen(int r) {
  const uint64_t seed = mix(g ^ ((uint64_t)iter << 32) ^ ((uint64_t)call << 16));
  gen_t q = {mix(seed ^ (uint64_t)(r + 1)), mix(seed + 0x51ed270b27c0ffeeull * (uint64_t)(r + 1)) | 1};
  return q;
}
static inline uint64_t u64(gen_t q, size_t i) { return q.s + (uint64_t)i * q.b; }
static inline double dbl(gen_t q, size_t i) { return (double)(u64(q, i) >> 44); }
typedef struct {
  uint64_t a, b;
} affine_t; /* x -> a*x + b */
static inline affine_t aff(gen_t q, size_t i) {
  const uint64_t x = u64(q, i);
  affine_t f = {((x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull) | 1, x};
  return f;
}
/* u then v: (u o v)(x) = u(v(x)) = u.a*v.a*x + u.a*v.b + u.b */
static inline affine_t compose(affine_t u, affine_t v) {
  affine_t f = {u.a * v.a, u.a * v.b + u.b};
  return f;
}
/* ea[i] = rank 0's map o rank 1's o ... o rank last's, at elements first + i. */
static void expect_composed(affine_t* ea, size_t n, size_t first, int last) {
  gen_t q = gen(0);
  for (size_t i = 0; i < n; ++i) ea[i] = aff(q, first + i);
  for (int r = 1; r <= last; ++r) {
    q = gen(r);
    for (size_t i = 0; i < n; ++i) ea[i] = compose(ea[i], aff(q, first + i));
  }
}
static void affine_op(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  const affine_t* u = in;
  affine_t* v = inout;
  for (int i = 0; i < *len; ++i) v[i] = compose(u[i], v[i]);
}

static void die(const char* what, size_t i, unsigned long long got, unsigned long long want) {
  fprintf(stderr, "rank %d iteration %d call %d: %s: element %zu is %llu, expected %llu\n", rank, iter, call, what, i,
          got, want);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 2);
}
static void check_dbl(const char* what, const double* got, const double* want, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (got[i] != want[i]) {
      fprintf(stderr, "rank %d iteration %d call %d: %s: element %zu is %.17g, expected %.17g\n", rank, iter, call,
              what, i, got[i], want[i]);
      fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
}
static void check_u64(const char* what, const uint64_t* got, const uint64_t* want, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (got[i] != want[i]) die(what, i, got[i], want[i]);
}
static void check_aff(const char* what, const affine_t* got, const affine_t* want, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (got[i].a != want[i].a || got[i].b != want[i].b) die(what, i, got[i].b, want[i].b); /* (b shown) */
}

/* Before each collective: the next call, and this iteration's sleeper sleeps
 * before its chosen one: rank iter % size before call iter % NCALLS, so every
 * call in NCALLS iterations, every rank before every call in size * NCALLS
 * (NCALLS is prime). */
#define NCALLS 23
static void enter(void) {
  ++call;
  if (rank == iter % size && call == iter % NCALLS) cr_pace();
}

static void* xmalloc(size_t bytes) {
  void* p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  return p;
}

/* The sizes (elements). */
enum {
  kBcastBig = (1 << 17) + 3,     /* 1 MiB + 24 B of doubles */
  kAllreduceBig = (1 << 17) + 5, /* 1 MiB + 40 B of doubles */
  kAllreduceNcBig = 20001,       /* 320 KB of affine maps */
  kReduceBig = 100003,           /* 800 KB of doubles */
  kGatherBig = 8192,             /* 64 KiB of uint64 per rank */
  kAlltoallBig = 8192,           /* 64 KiB of uint64 per pair */
  kRsbBig = 20000,               /* doubles per rank */
  kRsbNc = 500,                  /* affine maps per rank */
};

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 100;
  const MPI_Comm w = MPI_COMM_WORLD;
  MPI_Datatype affine_type;
  MPI_Type_contiguous(2, MPI_UINT64_T, &affine_type);
  MPI_Type_commit(&affine_type);
  MPI_Op nc;
  MPI_Op_create(affine_op, 0, &nc);

  /* Scratch buffers sized for the largest call. */
  size_t most = kAllreduceBig;
  if ((size_t)kGatherBig * size > most) most = (size_t)kGatherBig * size;
  if ((size_t)kAlltoallBig * size > most) most = (size_t)kAlltoallBig * size;
  if ((size_t)kRsbBig * size > most) most = (size_t)kRsbBig * size;
  if ((size_t)kAllreduceNcBig * 2 > most) most = (size_t)kAllreduceNcBig * 2;
  if ((size_t)kRsbNc * size * 2 > most) most = (size_t)kRsbNc * size * 2;
  const size_t vv_most = (size_t)size * 200; /* alltoallv and reduce_scatter blocks */
  if (vv_most > most) most = vv_most;
  uint64_t* sb = xmalloc(most * 8);
  uint64_t* rb = xmalloc(most * 8);
  uint64_t* ex = xmalloc(most * 8);
  double *sd = (double*)sb, *rd = (double*)rb, *ed = (double*)ex;
  affine_t *sa = (affine_t*)sb, *ra = (affine_t*)rb, *ea = (affine_t*)ex;
  int* scounts = xmalloc(sizeof(int) * size * 4);
  int *sdispls = scounts + size, *rcounts = scounts + 2 * size, *rdispls = scounts + 3 * size;

  g = 0x6c617a6172757321ull;
  h = mix((uint64_t)rank);
  const int trace = getenv("CR_COLL_TRACE") != NULL && rank == 0;
  for (iter = 0; iter < iters; ++iter) {
    if (trace) fprintf(stderr, "iteration %d\n", iter);
    call = -1;
    gen_t q;
    int root;

    /* barrier */
    enter();
    MPI_Barrier(w);

    /* bcast: 8 B, then 1 MiB + 24 B, from roots that move */
    enter();
    root = iter % size;
    q = gen(root);
    sb[0] = rank == root ? u64(q, 0) : 0;
    MPI_Bcast(sb, 1, MPI_UINT64_T, root, w);
    if (sb[0] != u64(q, 0)) die("bcast 8 B", 0, sb[0], u64(q, 0));
    fold_global(sb, 8);
    enter();
    root = (iter + 1) % size;
    q = gen(root);
    for (size_t i = 0; i < kBcastBig; ++i) sd[i] = rank == root ? dbl(q, i) : -1.0;
    MPI_Bcast(sd, kBcastBig, MPI_DOUBLE, root, w);
    for (size_t i = 0; i < kBcastBig; ++i)
      if (sd[i] != dbl(q, i)) die("bcast 1 MiB", i, (unsigned long long)sd[i], (unsigned long long)dbl(q, i));
    fold_global(sd, kBcastBig * 8);

    /* allreduce (sum of doubles): 1, 1000, 131077 */
    static const int ar_n[3] = {1, 1000, kAllreduceBig};
    for (int k = 0; k < 3; ++k) {
      enter();
      const size_t n = ar_n[k];
      for (size_t i = 0; i < n; ++i) ed[i] = 0;
      for (int r = 0; r < size; ++r) {
        q = gen(r);
        for (size_t i = 0; i < n; ++i) ed[i] += dbl(q, i);
      }
      q = gen(rank);
      if ((iter + k) % 2) {
        for (size_t i = 0; i < n; ++i) rd[i] = dbl(q, i);
        MPI_Allreduce(MPI_IN_PLACE, rd, (int)n, MPI_DOUBLE, MPI_SUM, w);
      } else {
        for (size_t i = 0; i < n; ++i) sd[i] = dbl(q, i);
        MPI_Allreduce(sd, rd, (int)n, MPI_DOUBLE, MPI_SUM, w);
      }
      check_dbl("allreduce sum", rd, ed, n);
      fold_global(rd, n * 8);
    }
    /* allreduce of the non-commutative op: 1, 1000, 20001 */
    static const int arnc_n[3] = {1, 1000, kAllreduceNcBig};
    for (int k = 0; k < 3; ++k) {
      enter();
      const size_t n = arnc_n[k];
      expect_composed(ea, n, 0, size - 1);
      q = gen(rank);
      for (size_t i = 0; i < n; ++i) sa[i] = aff(q, i);
      MPI_Allreduce(sa, ra, (int)n, affine_type, nc, w);
      check_aff("allreduce non-commutative", ra, ea, n);
      fold_global(ra, n * 16);
    }

    /* reduce to moving roots: sum of 1 and 100003 doubles, 1000 affine maps */
    static const int rd_n[2] = {1, kReduceBig};
    for (int k = 0; k < 2; ++k) {
      enter();
      const size_t n = rd_n[k];
      root = (iter + 2 + k) % size;
      q = gen(rank);
      for (size_t i = 0; i < n; ++i) sd[i] = dbl(q, i);
      MPI_Reduce(sd, rd, (int)n, MPI_DOUBLE, MPI_SUM, root, w);
      if (rank == root) {
        for (size_t i = 0; i < n; ++i) ed[i] = 0;
        for (int r = 0; r < size; ++r) {
          q = gen(r);
          for (size_t i = 0; i < n; ++i) ed[i] += dbl(q, i);
        }
        check_dbl("reduce sum", rd, ed, n);
        fold_local(rd, n * 8);
      }
    }
    enter();
    {
      const size_t n = 1000;
      root = (iter + 1) % size;
      q = gen(rank);
      for (size_t i = 0; i < n; ++i) sa[i] = aff(q, i);
      MPI_Reduce(sa, ra, (int)n, affine_type, nc, root, w);
      if (rank == root) {
        expect_composed(ea, n, 0, size - 1);
        check_aff("reduce non-commutative", ra, ea, n);
        fold_local(ra, n * 16);
      }
    }

    /* allgather: 16 B, then 64 KiB, per rank */
    static const int ag_n[2] = {2, kGatherBig};
    for (int k = 0; k < 2; ++k) {
      enter();
      const size_t n = ag_n[k];
      for (int r = 0; r < size; ++r) {
        q = gen(r);
        for (size_t i = 0; i < n; ++i) ex[r * n + i] = u64(q, i);
      }
      q = gen(rank);
      if ((iter + k) % 2) {
        for (size_t i = 0; i < n * size; ++i) rb[i] = 0;
        for (size_t i = 0; i < n; ++i) rb[rank * n + i] = u64(q, i);
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, (int)n, MPI_UINT64_T, w);
      } else {
        for (size_t i = 0; i < n; ++i) sb[i] = u64(q, i);
        MPI_Allgather(sb, (int)n, MPI_UINT64_T, rb, (int)n, MPI_UINT64_T, w);
      }
      check_u64("allgather", rb, ex, n * size);
      fold_global(rb, n * size * 8);
    }

    /* alltoall: 8 B, then 64 KiB, per pair */
    static const int a2a_n[2] = {1, kAlltoallBig};
    for (int k = 0; k < 2; ++k) {
      enter();
      const size_t n = a2a_n[k];
      q = gen(rank);
      for (size_t i = 0; i < n * size; ++i) sb[i] = u64(q, i);
      for (int r = 0; r < size; ++r) {
        q = gen(r);
        for (size_t i = 0; i < n; ++i) ex[r * n + i] = u64(q, rank * n + i);
      }
      MPI_Alltoall(sb, (int)n, MPI_UINT64_T, rb, (int)n, MPI_UINT64_T, w);
      check_u64("alltoall", rb, ex, n * size);
      fold_local(rb, n * size * 8);
    }
    /* alltoallv: rank s sends rank d 1 + (3s + 5d + iter) % 64 words */
    enter();
    {
#define VCOUNT(s, d) (1 + (3 * (s) + 5 * (d) + iter) % 64)
      int so = 0, ro = 0;
      for (int r = 0; r < size; ++r) {
        scounts[r] = VCOUNT(rank, r), sdispls[r] = so, so += scounts[r];
        rcounts[r] = VCOUNT(r, rank), rdispls[r] = ro, ro += rcounts[r];
      }
      q = gen(rank);
      for (int i = 0; i < so; ++i) sb[i] = u64(q, i);
      for (int r = 0; r < size; ++r) {
        int off = 0; /* where rank r's block for this rank starts in its send buffer */
        for (int d = 0; d < rank; ++d) off += VCOUNT(r, d);
        q = gen(r);
        for (int i = 0; i < rcounts[r]; ++i) ex[rdispls[r] + i] = u64(q, off + i);
      }
      MPI_Alltoallv(sb, scounts, sdispls, MPI_UINT64_T, rb, rcounts, rdispls, MPI_UINT64_T, w);
      check_u64("alltoallv", rb, ex, ro);
      fold_local(rb, (size_t)ro * 8);
    }

    /* reduce_scatter_block: sum of 1 and 20000 doubles, 500 affine maps, per rank */
    static const int rsb_n[2] = {1, kRsbBig};
    for (int k = 0; k < 2; ++k) {
      enter();
      const size_t n = rsb_n[k];
      q = gen(rank);
      for (size_t i = 0; i < n * size; ++i) sd[i] = dbl(q, i);
      for (size_t i = 0; i < n; ++i) ed[i] = 0;
      for (int r = 0; r < size; ++r) {
        q = gen(r);
        for (size_t i = 0; i < n; ++i) ed[i] += dbl(q, rank * n + i);
      }
      MPI_Reduce_scatter_block(sd, rd, (int)n, MPI_DOUBLE, MPI_SUM, w);
      check_dbl("reduce_scatter_block sum", rd, ed, n);
      fold_local(rd, n * 8);
    }
    enter();
    {
      const size_t n = kRsbNc;
      q = gen(rank);
      for (size_t i = 0; i < n * size; ++i) sa[i] = aff(q, i);
      expect_composed(ea, n, rank * n, size - 1);
      MPI_Reduce_scatter_block(sa, ra, (int)n, affine_type, nc, w);
      check_aff("reduce_scatter_block non-commutative", ra, ea, n);
      fold_local(ra, n * 16);
    }
    /* reduce_scatter (uint64 sum): rank r gets 1 + (7r + iter) % 200 words */
    enter();
    {
      int total = 0, mine = 0;
      for (int r = 0; r < size; ++r) {
        rcounts[r] = 1 + (7 * r + iter) % 200;
        if (r == rank) mine = total;
        total += rcounts[r];
      }
      q = gen(rank);
      for (int i = 0; i < total; ++i) sb[i] = u64(q, i);
      for (int i = 0; i < rcounts[rank]; ++i) ex[i] = 0;
      for (int r = 0; r < size; ++r) {
        q = gen(r);
        for (int i = 0; i < rcounts[rank]; ++i) ex[i] += u64(q, mine + i);
      }
      MPI_Reduce_scatter(sb, rb, rcounts, MPI_UINT64_T, MPI_SUM, w);
      check_u64("reduce_scatter", rb, ex, rcounts[rank]);
      fold_local(rb, (size_t)rcounts[rank] * 8);
    }

    /* scan of the non-commutative op (100 maps); exscan (uint64 sum, 100 words) */
    enter();
    {
      const size_t n = 100;
      expect_composed(ea, n, 0, rank);
      q = gen(rank);
      for (size_t i = 0; i < n; ++i) sa[i] = aff(q, i);
      MPI_Scan(sa, ra, (int)n, affine_type, nc, w);
      check_aff("scan non-commutative", ra, ea, n);
      fold_local(ra, n * 16);
    }
    enter();
    {
      const size_t n = 100;
      for (size_t i = 0; i < n; ++i) ex[i] = 0;
      for (int r = 0; r < rank; ++r) {
        q = gen(r);
        for (size_t i = 0; i < n; ++i) ex[i] += u64(q, i);
      }
      q = gen(rank);
      for (size_t i = 0; i < n; ++i) sb[i] = u64(q, i);
      MPI_Exscan(sb, rb, (int)n, MPI_UINT64_T, MPI_SUM, w);
      if (rank > 0) {
        check_u64("exscan", rb, ex, n);
        fold_local(rb, n * 8);
      }
    }
    if (call + 1 != NCALLS) {
      fprintf(stderr, "cr_coll: %d calls per iteration, NCALLS says %d\n", call + 1, NCALLS);
      MPI_Abort(w, 4);
    }
    g = mix(g ^ (uint64_t)iter);
  }

  /* A job with pauses holds here until they are released: it never ends
   * before the checkpoints its test takes, however few its iterations. */
  const char* release = getenv("CR_ITER_RELEASE");
  if (trace && release != NULL && access(release, F_OK) != 0) fprintf(stderr, "iteration %d: holding\n", iters);
  while (release != NULL && access(release, F_OK) != 0) cr_pace();

  uint64_t* all = rank == 0 ? xmalloc(8 * (size_t)size) : NULL;
  MPI_Gather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, w);
  if (rank == 0) {
    uint64_t result = g;
    for (int r = 0; r < size; ++r) result = mix(result ^ all[r]);
    printf("result %llu\n", (unsigned long long)result);
    free(all);
  }
  MPI_Op_free(&nc);
  MPI_Type_free(&affine_type);
  free(scounts);
  free(ex);
  free(rb);
  free(sb);
  MPI_Finalize();
  return 0;
}
