/* Collective conformance through the MPI C binding: every collective, every
 * predefined op on every C type it is defined for, MPI_IN_PLACE, a
 * non-commutative user op, derived datatypes, on MPI_COMM_WORLD and on split
 * communicators. Every result is checked against a value computed locally;
 * rank 0 prints "checksum <hex>" over all results so that runs with
 * `--mca coll basic` and `--mca coll tuned,basic` can be compared exactly.
 * Exit status: 0 when every check passed. Uses only mpi.h. */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_errors = 0;
static uint64_t g_sum = 1469598103934665603ull; /* FNV-1a over every result */

static void hash(const void* p, size_t n) {
  const unsigned char* c = (const unsigned char*)p;
  for (size_t i = 0; i < n; ++i) g_sum = (g_sum ^ c[i]) * 1099511628211ull;
}

#define CHECK(cond, ...)                                                   \
  do {                                                                     \
    if (!(cond)) {                                                         \
      if (g_errors++ < 20) {                                               \
        int wr_;                                                           \
        MPI_Comm_rank(MPI_COMM_WORLD, &wr_);                               \
        fprintf(stderr, "rank %d: %s:%d: ", wr_, __FILE__, __LINE__);      \
        fprintf(stderr, __VA_ARGS__);                                      \
        fprintf(stderr, "\n");                                             \
      }                                                                    \
    }                                                                      \
  } while (0)

/* Input element i of rank r: small values so that SUM/PROD never overflow
 * the narrowest type and floating results are exact. */
static int val(int r, int i) { return (r * 7 + i * 3) % 5 + 1; }
static int bit_val(int r, int i) { return ((r + 1) * (i + 3)) & 0x7f; }

#define N 6

/* Hashes values, not bytes: long double has padding that arithmetic leaves undefined. */
#define HASH_VALUES(buf, n)                                     \
  do {                                                          \
    for (int h_ = 0; h_ < (n); ++h_) {                          \
      double d_ = (double)(buf)[h_];                            \
      hash(&d_, sizeof d_);                                     \
    }                                                           \
  } while (0)

/* One C type: every op it allows, through reduce, allreduce (and in place),
 * scan, exscan, reduce_scatter_block and reduce_scatter. `INTEGER` enables the
 * logical and bitwise ops. */
#define DEFINE_TYPE_TEST(NAME, T, MPIT, INTEGER)                                                        \
  static T NAME##_apply(int op, T a, T b) {                                                             \
    switch (op) {                                                                                       \
      case 0: return (T)(a + b);                                                                        \
      case 1: return (T)(a * b);                                                                        \
      case 2: return a > b ? a : b;                                                                     \
      case 3: return a < b ? a : b;                                                                     \
      case 4: return (T)(a && b);                                                                       \
      case 5: return (T)(a || b);                                                                       \
      case 6: return (T)(!a != !b);                                                                     \
      case 7: return (T)((long long)a & (long long)b);                                                  \
      case 8: return (T)((long long)a | (long long)b);                                                  \
      default: return (T)((long long)a ^ (long long)b);                                                 \
    }                                                                                                   \
  }                                                                                                     \
  static void NAME##_test(MPI_Comm comm) {                                                              \
    MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR}; \
    int rank, size;                                                                                     \
    MPI_Comm_rank(comm, &rank);                                                                         \
    MPI_Comm_size(comm, &size);                                                                         \
    int nops = (INTEGER) ? 10 : 4;                                                                      \
    T* in = malloc(sizeof(T) * N * size);                                                               \
    T* out = malloc(sizeof(T) * N * size);                                                              \
    T* exp = malloc(sizeof(T) * N * size);                                                              \
    int* counts = malloc(sizeof(int) * size);                                                           \
    for (int o = 0; o < nops; ++o) {                                                                    \
      int prod = (o == 1);                                                                              \
      for (int i = 0; i < N * size; ++i) in[i] = (T)(o >= 7 ? bit_val(rank, i) : (prod ? (val(rank, i) % 2 + 1) : val(rank, i) - (o >= 4 && o <= 6 && i % 3 == 0 ? val(rank, i) : 0))); \
      /* expected full reduction, and prefix for scan */                                                \
      for (int i = 0; i < N * size; ++i) {                                                              \
        T acc = 0, pre = 0;                                                                             \
        for (int r = 0; r < size; ++r) {                                                                \
          T x = (T)(o >= 7 ? bit_val(r, i) : (prod ? (val(r, i) % 2 + 1) : val(r, i) - (o >= 4 && o <= 6 && i % 3 == 0 ? val(r, i) : 0))); \
          acc = r == 0 ? x : NAME##_apply(o, acc, x);                                                   \
          if (r == rank) pre = acc;                                                                     \
        }                                                                                               \
        exp[i] = acc;                                                                                   \
        (void)pre;                                                                                      \
      }                                                                                                 \
      int root = size / 2;                                                                              \
      memset(out, 0, sizeof(T) * N * size);                                                             \
      MPI_Reduce(in, out, N, MPIT, ops[o], root, comm);                                                 \
      if (rank == root) {                                                                               \
        for (int i = 0; i < N; ++i) CHECK(out[i] == exp[i], #NAME " reduce op %d i %d", o, i);          \
        HASH_VALUES(out, N);                                                                       \
      }                                                                                                 \
      memset(out, 0, sizeof(T) * N * size);                                                             \
      MPI_Allreduce(in, out, N * size, MPIT, ops[o], comm);                                             \
      for (int i = 0; i < N * size; ++i) CHECK(out[i] == exp[i], #NAME " allreduce op %d i %d", o, i); \
      HASH_VALUES(out, N * size);                                                                  \
      memcpy(out, in, sizeof(T) * N * size);                                                            \
      MPI_Allreduce(MPI_IN_PLACE, out, N * size, MPIT, ops[o], comm);                                   \
      for (int i = 0; i < N * size; ++i) CHECK(out[i] == exp[i], #NAME " allreduce in place op %d", o); \
      memcpy(out, in, sizeof(T) * N);                                                                   \
      MPI_Reduce(rank == 0 ? MPI_IN_PLACE : in, rank == 0 ? out : NULL, N, MPIT, ops[o], 0, comm);      \
      if (rank == 0)                                                                                    \
        for (int i = 0; i < N; ++i) CHECK(out[i] == exp[i], #NAME " reduce in place op %d", o);         \
      MPI_Reduce_scatter_block(in, out, N, MPIT, ops[o], comm);                                         \
      for (int i = 0; i < N; ++i) CHECK(out[i] == exp[rank * N + i], #NAME " reduce_scatter_block op %d", o); \
      HASH_VALUES(out, N);                                                                         \
      for (int r = 0; r < size; ++r) counts[r] = r % 2 ? N : N / 2;                                     \
      MPI_Reduce_scatter(in, out, counts, MPIT, ops[o], comm);                                          \
      {                                                                                                 \
        int d = 0;                                                                                      \
        for (int r = 0; r < rank; ++r) d += counts[r];                                                  \
        for (int i = 0; i < counts[rank]; ++i) CHECK(out[i] == exp[d + i], #NAME " reduce_scatter op %d", o); \
        HASH_VALUES(out, counts[rank]);                                                            \
      }                                                                                                 \
      /* scan / exscan */                                                                               \
      MPI_Scan(in, out, N, MPIT, ops[o], comm);                                                         \
      for (int i = 0; i < N; ++i) {                                                                     \
        T acc = 0;                                                                                      \
        for (int r = 0; r <= rank; ++r) {                                                               \
          T x = (T)(o >= 7 ? bit_val(r, i) : (prod ? (val(r, i) % 2 + 1) : val(r, i) - (o >= 4 && o <= 6 && i % 3 == 0 ? val(r, i) : 0))); \
          acc = r == 0 ? x : NAME##_apply(o, acc, x);                                                   \
        }                                                                                               \
        CHECK(out[i] == acc, #NAME " scan op %d rank %d", o, rank);                                     \
      }                                                                                                 \
      HASH_VALUES(out, N);                                                                         \
      MPI_Exscan(in, out, N, MPIT, ops[o], comm);                                                       \
      if (rank > 0) {                                                                                   \
        for (int i = 0; i < N; ++i) {                                                                   \
          T acc = 0;                                                                                    \
          for (int r = 0; r < rank; ++r) {                                                              \
            T x = (T)(o >= 7 ? bit_val(r, i) : (prod ? (val(r, i) % 2 + 1) : val(r, i) - (o >= 4 && o <= 6 && i % 3 == 0 ? val(r, i) : 0))); \
            acc = r == 0 ? x : NAME##_apply(o, acc, x);                                                 \
          }                                                                                             \
          CHECK(out[i] == acc, #NAME " exscan op %d rank %d", o, rank);                                 \
        }                                                                                               \
        HASH_VALUES(out, N);                                                                       \
      }                                                                                                 \
    }                                                                                                   \
    free(in), free(out), free(exp), free(counts);                                                       \
  }

DEFINE_TYPE_TEST(schar, signed char, MPI_SIGNED_CHAR, 1)
DEFINE_TYPE_TEST(uchar, unsigned char, MPI_UNSIGNED_CHAR, 1)
DEFINE_TYPE_TEST(short_, short, MPI_SHORT, 1)
DEFINE_TYPE_TEST(ushort, unsigned short, MPI_UNSIGNED_SHORT, 1)
DEFINE_TYPE_TEST(int_, int, MPI_INT, 1)
DEFINE_TYPE_TEST(uint_, unsigned, MPI_UNSIGNED, 1)
DEFINE_TYPE_TEST(long_, long, MPI_LONG, 1)
DEFINE_TYPE_TEST(ulong, unsigned long, MPI_UNSIGNED_LONG, 1)
DEFINE_TYPE_TEST(llong, long long, MPI_LONG_LONG, 1)
DEFINE_TYPE_TEST(ullong, unsigned long long, MPI_UNSIGNED_LONG_LONG, 1)
DEFINE_TYPE_TEST(i8, int8_t, MPI_INT8_T, 1)
DEFINE_TYPE_TEST(i16, int16_t, MPI_INT16_T, 1)
DEFINE_TYPE_TEST(i32, int32_t, MPI_INT32_T, 1)
DEFINE_TYPE_TEST(i64, int64_t, MPI_INT64_T, 1)
DEFINE_TYPE_TEST(u8, uint8_t, MPI_UINT8_T, 1)
DEFINE_TYPE_TEST(u16, uint16_t, MPI_UINT16_T, 1)
DEFINE_TYPE_TEST(u32, uint32_t, MPI_UINT32_T, 1)
DEFINE_TYPE_TEST(u64, uint64_t, MPI_UINT64_T, 1)
DEFINE_TYPE_TEST(flt, float, MPI_FLOAT, 0)
DEFINE_TYPE_TEST(dbl, double, MPI_DOUBLE, 0)
DEFINE_TYPE_TEST(ldbl, long double, MPI_LONG_DOUBLE, 0)

/* Multi-language types: MAX/MIN/SUM/PROD and bitwise; C_BOOL: logical;
 * BYTE: bitwise. Checked through allreduce. */
static void misc_types_test(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Aint a = rank + 1, as;
  MPI_Allreduce(&a, &as, 1, MPI_AINT, MPI_SUM, comm);
  CHECK(as == (MPI_Aint)size * (size + 1) / 2, "MPI_AINT sum");
  MPI_Offset of = rank, om;
  MPI_Allreduce(&of, &om, 1, MPI_OFFSET, MPI_MAX, comm);
  CHECK(om == size - 1, "MPI_OFFSET max");
  MPI_Count c = 1 << (rank % 8), cb;
  MPI_Allreduce(&c, &cb, 1, MPI_COUNT, MPI_BOR, comm);
  CHECK(cb == (size >= 8 ? 255 : (1 << size) - 1), "MPI_COUNT bor");
  bool b = rank % 2 == 0, band, bor, bxor;
  MPI_Allreduce(&b, &band, 1, MPI_C_BOOL, MPI_LAND, comm);
  MPI_Allreduce(&b, &bor, 1, MPI_C_BOOL, MPI_LOR, comm);
  MPI_Allreduce(&b, &bxor, 1, MPI_C_BOOL, MPI_LXOR, comm);
  CHECK(band == (size == 1), "C_BOOL land");
  CHECK(bor == true, "C_BOOL lor");
  CHECK(bxor == ((size + 1) / 2) % 2, "C_BOOL lxor");
  unsigned char by = (unsigned char)(1u << (rank % 8)), bx;
  MPI_Allreduce(&by, &bx, 1, MPI_BYTE, MPI_BXOR, comm);
  unsigned char ex = 0;
  for (int r = 0; r < size; ++r) ex ^= (unsigned char)(1u << (r % 8));
  CHECK(bx == ex, "BYTE bxor");
  hash(&as, sizeof as), hash(&om, sizeof om), hash(&cb, sizeof cb), hash(&bx, 1);
}

/* MAXLOC / MINLOC on every pair type; ties resolve to the lowest index. */
#define DEFINE_LOC_TEST(NAME, V, MPIT)                                                         \
  static void NAME##_loc_test(MPI_Comm comm) {                                                 \
    struct { V v; int i; } in[3], out[3];                                                       \
    int rank, size;                                                                             \
    MPI_Comm_rank(comm, &rank);                                                                 \
    MPI_Comm_size(comm, &size);                                                                 \
    for (int k = 0; k < 3; ++k) { in[k].v = (V)((rank * (k + 2)) % 3); in[k].i = rank; }       \
    MPI_Allreduce(in, out, 3, MPIT, MPI_MAXLOC, comm);                                          \
    for (int k = 0; k < 3; ++k) {                                                               \
      V best = 0; int at = 0;                                                                   \
      for (int r = 0; r < size; ++r) { V x = (V)((r * (k + 2)) % 3); if (x > best) { best = x; at = r; } } \
      CHECK(out[k].v == best && out[k].i == at, #NAME " maxloc k %d", k);                      \
      hash(&out[k].i, sizeof(int));                                                             \
    }                                                                                           \
    MPI_Allreduce(in, out, 3, MPIT, MPI_MINLOC, comm);                                          \
    for (int k = 0; k < 3; ++k) CHECK(out[k].v == 0 && out[k].i == 0, #NAME " minloc k %d", k); \
  }
DEFINE_LOC_TEST(float_int, float, MPI_FLOAT_INT)
DEFINE_LOC_TEST(double_int, double, MPI_DOUBLE_INT)
DEFINE_LOC_TEST(long_int, long, MPI_LONG_INT)
DEFINE_LOC_TEST(two_int, int, MPI_2INT)
DEFINE_LOC_TEST(short_int, short, MPI_SHORT_INT)
DEFINE_LOC_TEST(long_double_int, long double, MPI_LONG_DOUBLE_INT)

/* 2x2 integer matrix product (mod 2^32): associative, not commutative. */
static void matmul(void* invec, void* inoutvec, int* len, MPI_Datatype* dt) {
  (void)dt;
  uint32_t* a = invec;
  uint32_t* b = inoutvec;
  for (int k = 0; k < *len; ++k, a += 4, b += 4) {
    uint32_t c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                     a[2] * b[1] + a[3] * b[3]};
    memcpy(b, c, sizeof c);
  }
}
static void mat_of(int r, int k, uint32_t m[4]) {
  m[0] = r + 1; m[1] = k + 2; m[2] = r * k + 1; m[3] = 3;
}
static void mat_prefix(int upto, int k, uint32_t acc[4]) { /* M0 * M1 * ... * M(upto-1) */
  mat_of(0, k, acc);
  for (int r = 1; r < upto; ++r) {
    uint32_t m[4];
    mat_of(r, k, m);
    int one = 1;
    matmul(acc, m, &one, NULL); /* m = acc * m */
    memcpy(acc, m, sizeof m);
  }
}

static void user_op_test(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Datatype mat;
  MPI_Type_contiguous(4, MPI_UINT32_T, &mat);
  MPI_Type_commit(&mat);
  MPI_Op op;
  MPI_Op_create(matmul, 0, &op);
  enum { K = 9 };
  uint32_t in[K][4], out[K][4], e[4];
  for (int k = 0; k < K; ++k) mat_of(rank, k, in[k]);
  for (int root = 0; root < size; root += (size > 2 ? size - 1 : 1)) {
    MPI_Reduce(in, out, K, mat, op, root, comm);
    if (rank == root)
      for (int k = 0; k < K; ++k) {
        mat_prefix(size, k, e);
        CHECK(memcmp(out[k], e, sizeof e) == 0, "noncommutative reduce root %d k %d", root, k);
      }
  }
  MPI_Allreduce(in, out, K, mat, op, comm);
  for (int k = 0; k < K; ++k) {
    mat_prefix(size, k, e);
    CHECK(memcmp(out[k], e, sizeof e) == 0, "noncommutative allreduce k %d", k);
  }
  hash(out, sizeof out);
  MPI_Scan(in, out, K, mat, op, comm);
  for (int k = 0; k < K; ++k) {
    mat_prefix(rank + 1, k, e);
    CHECK(memcmp(out[k], e, sizeof e) == 0, "noncommutative scan k %d", k);
  }
  MPI_Exscan(in, out, K, mat, op, comm);
  if (rank > 0)
    for (int k = 0; k < K; ++k) {
      mat_prefix(rank, k, e);
      CHECK(memcmp(out[k], e, sizeof e) == 0, "noncommutative exscan k %d", k);
    }
  MPI_Op_free(&op);
  MPI_Type_free(&mat);
}

static void data_movement_test(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int count = 0; count <= 2000; count = count ? count * 40 : 1) {
    int* mine = malloc(sizeof(int) * (count + 1));
    int* all = malloc(sizeof(int) * (count * size + 1));
    int* sendall = malloc(sizeof(int) * (count * size + 1));
    for (int i = 0; i < count; ++i) mine[i] = rank * 100000 + i;
    for (int root = 0; root < size; root += (size > 3 ? 3 : 1)) {
      int b[5] = {root, root + 1, root + 2, root + 3, root + 4};
      int got[5] = {0};
      if (rank == root) memcpy(got, b, sizeof b);
      MPI_Bcast(got, 5, MPI_INT, root, comm);
      CHECK(memcmp(got, b, sizeof b) == 0, "bcast root %d", root);
      MPI_Gather(mine, count, MPI_INT, all, count, MPI_INT, root, comm);
      if (rank == root)
        for (int r = 0; r < size; ++r)
          for (int i = 0; i < count; ++i) CHECK(all[r * count + i] == r * 100000 + i, "gather");
      for (int r = 0; r < size; ++r)
        for (int i = 0; i < count; ++i) sendall[r * count + i] = r * 100000 + i;
      memset(all, 0, sizeof(int) * count);
      MPI_Scatter(sendall, count, MPI_INT, rank == root ? MPI_IN_PLACE : all, count, MPI_INT, root, comm);
      if (rank != root)
        for (int i = 0; i < count; ++i) CHECK(all[i] == mine[i], "scatter");
    }
    memset(all, 0, sizeof(int) * count * size);
    MPI_Allgather(mine, count, MPI_INT, all, count, MPI_INT, comm);
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < count; ++i) CHECK(all[r * count + i] == r * 100000 + i, "allgather count %d", count);
    hash(all, sizeof(int) * count * size);
    memset(all, 0, sizeof(int) * count * size);
    memcpy(all + rank * count, mine, sizeof(int) * count);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, count, MPI_INT, comm);
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < count; ++i) CHECK(all[r * count + i] == r * 100000 + i, "allgather in place");
    /* v-variants: rank r has r % 3 * count / 3 + 1 elements, placed in reverse order */
    int* rc = malloc(sizeof(int) * size);
    int* dis = malloc(sizeof(int) * size);
    int total = 0;
    for (int r = size - 1; r >= 0; --r) { rc[r] = (r % 3) * count / 3 + 1; dis[r] = total; total += rc[r]; }
    int* v = malloc(sizeof(int) * total);
    int* mv = malloc(sizeof(int) * rc[rank]);
    for (int i = 0; i < rc[rank]; ++i) mv[i] = rank * 100000 + i;
    MPI_Allgatherv(mv, rc[rank], MPI_INT, v, rc, dis, MPI_INT, comm);
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < rc[r]; ++i) CHECK(v[dis[r] + i] == r * 100000 + i, "allgatherv");
    hash(v, sizeof(int) * total);
    memset(v, 0, sizeof(int) * total);
    MPI_Gatherv(mv, rc[rank], MPI_INT, v, rc, dis, MPI_INT, size - 1, comm);
    if (rank == size - 1)
      for (int r = 0; r < size; ++r)
        for (int i = 0; i < rc[r]; ++i) CHECK(v[dis[r] + i] == r * 100000 + i, "gatherv");
    memset(mv, 0, sizeof(int) * rc[rank]);
    if (rank == 0)
      for (int r = 0; r < size; ++r)
        for (int i = 0; i < rc[r]; ++i) v[dis[r] + i] = r * 100000 + i;
    MPI_Scatterv(v, rc, dis, MPI_INT, mv, rc[rank], MPI_INT, 0, comm);
    for (int i = 0; i < rc[rank]; ++i) CHECK(mv[i] == rank * 100000 + i, "scatterv");
    /* alltoall(v) */
    for (int d = 0; d < size; ++d)
      for (int i = 0; i < count; ++i) sendall[d * count + i] = rank * 1000000 + d * 1000 + i;
    MPI_Alltoall(sendall, count, MPI_INT, all, count, MPI_INT, comm);
    for (int s = 0; s < size; ++s)
      for (int i = 0; i < count; ++i) CHECK(all[s * count + i] == s * 1000000 + rank * 1000 + i, "alltoall");
    hash(all, sizeof(int) * count * size);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, sendall, count, MPI_INT, comm);
    for (int s = 0; s < size; ++s)
      for (int i = 0; i < count; ++i) CHECK(sendall[s * count + i] == s * 1000000 + rank * 1000 + i, "alltoall in place");
    int *sc = malloc(sizeof(int) * size), *sd = malloc(sizeof(int) * size), *rcv = malloc(sizeof(int) * size),
        *rd = malloc(sizeof(int) * size);
    int so = 0, ro = 0;
    for (int d = 0; d < size; ++d) {
      sc[d] = ((rank + d) % 3) * count / 2; sd[d] = so; so += sc[d];
      rcv[d] = ((rank + d) % 3) * count / 2; rd[d] = ro; ro += rcv[d];
    }
    int* vs = malloc(sizeof(int) * (so + 1));
    int* vr = malloc(sizeof(int) * (ro + 1));
    for (int d = 0; d < size; ++d)
      for (int i = 0; i < sc[d]; ++i) vs[sd[d] + i] = rank * 1000000 + d * 1000 + i;
    MPI_Alltoallv(vs, sc, sd, MPI_INT, vr, rcv, rd, MPI_INT, comm);
    for (int s = 0; s < size; ++s)
      for (int i = 0; i < rcv[s]; ++i) CHECK(vr[rd[s] + i] == s * 1000000 + rank * 1000 + i, "alltoallv");
    hash(vr, sizeof(int) * ro);
    free(sc), free(sd), free(rcv), free(rd), free(vs), free(vr);
    free(rc), free(dis), free(v), free(mv), free(mine), free(all), free(sendall);
  }
  /* Derived types: broadcast every other column of a 4x6 matrix. */
  double m[4][6];
  MPI_Datatype col;
  MPI_Type_vector(4, 1, 6, MPI_DOUBLE, &col);
  MPI_Type_commit(&col);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) m[i][j] = rank == 0 ? i * 10 + j : -1;
  MPI_Bcast(&m[0][1], 1, col, 0, comm);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) CHECK(m[i][j] == (rank == 0 || j == 1 ? i * 10 + j : -1), "bcast vector type");
  MPI_Type_free(&col);
  /* Large allreduce (Rabenseifner range). */
  int big = 40000;
  long long* x = malloc(sizeof(long long) * big);
  for (int i = 0; i < big; ++i) x[i] = rank + i;
  MPI_Allreduce(MPI_IN_PLACE, x, big, MPI_LONG_LONG, MPI_SUM, comm);
  for (int i = 0; i < big; ++i) CHECK(x[i] == (long long)size * (size - 1) / 2 + (long long)i * size, "big allreduce");
  hash(x, sizeof(long long) * big);
  free(x);
  MPI_Barrier(comm);
}

static void suite(MPI_Comm comm) {
  schar_test(comm); uchar_test(comm); short__test(comm); ushort_test(comm); int__test(comm); uint__test(comm);
  long__test(comm); ulong_test(comm); llong_test(comm); ullong_test(comm); i8_test(comm); i16_test(comm);
  i32_test(comm); i64_test(comm); u8_test(comm); u16_test(comm); u32_test(comm); u64_test(comm);
  flt_test(comm); dbl_test(comm); ldbl_test(comm);
  misc_types_test(comm);
  float_int_loc_test(comm); double_int_loc_test(comm); long_int_loc_test(comm); two_int_loc_test(comm);
  short_int_loc_test(comm); long_double_int_loc_test(comm);
  user_op_test(comm);
  data_movement_test(comm);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  suite(MPI_COMM_WORLD);
  /* Split communicators: thirds (non-contiguous members, reversed key order). */
  MPI_Comm third;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 3, size - rank, &third);
  suite(third);
  MPI_Comm_free(&third);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  suite(dup);
  MPI_Comm_free(&dup);
  int total = 0;
  MPI_Allreduce(&g_errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  /* Fold every rank's checksum into rank 0's line. */
  uint64_t* sums = rank == 0 ? malloc(sizeof(uint64_t) * size) : NULL;
  MPI_Gather(&g_sum, 1, MPI_UINT64_T, sums, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    uint64_t s = 0;
    for (int r = 0; r < size; ++r) s = s * 31 + sums[r];
    printf("checksum %016llx errors %d\n", (unsigned long long)s, total);
    free(sums);
  }
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
