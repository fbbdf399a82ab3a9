/* MPI-2/3 datatype constructors through point-to-point: resized, hindexed,
 * indexed_block, hindexed_block, dup and subarray (C and Fortran order) sent
 * to a contiguous receive (every element checked) and received back into the
 * layout (ints outside it untouched); extents and true extents; addresses;
 * names; argument errors with MPI_ERRORS_RETURN. */
#include <string.h>
#include "lz_test.h"

static int rank, next, prev;

/* Sends `count` elements of `t` over `src` (src[i] == rank * 100000 + i) to
 * the next rank, receives n ints contiguously from the previous one and checks
 * that they are prev's src[idx[0..n-1]], in order. */
static void check_send(MPI_Datatype t, int count, const int *src, int n, const int *idx, const char *what) {
  int *got = malloc(sizeof(int) * (size_t)(n + 1));
  MPI_Status st;
  MPI_Sendrecv(src, count, t, next, 11, got, n + 1, MPI_INT, prev, 11, MPI_COMM_WORLD, &st);
  int c;
  MPI_Get_count(&st, MPI_INT, &c);
  CHECK(c == n, "%s: received %d ints, expected %d", what, c, n);
  for (int i = 0; i < n; ++i)
    CHECK(got[i] == prev * 100000 + idx[i], "%s: element %d is %d, expected %d", what, i, got[i],
          prev * 100000 + idx[i]);
  free(got);
}

/* The reverse: n contiguous ints received into `count` elements of `t` over
 * a buffer of `len` ints filled with -1; exactly the ints idx[] are written. */
static void check_recv(MPI_Datatype t, int count, int len, int n, const int *idx, const char *what) {
  int *vals = malloc(sizeof(int) * (size_t)n), *buf = malloc(sizeof(int) * (size_t)len);
  char *hit = calloc((size_t)len, 1);
  for (int i = 0; i < n; ++i) vals[i] = rank * 100000 + 50000 + i;
  for (int i = 0; i < len; ++i) buf[i] = -1;
  MPI_Sendrecv(vals, n, MPI_INT, next, 12, buf, count, t, prev, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < n; ++i) {
    CHECK(buf[idx[i]] == prev * 100000 + 50000 + i, "%s: slot %d (element %d) is %d", what, idx[i], i, buf[idx[i]]);
    hit[idx[i]] = 1;
  }
  for (int i = 0; i < len; ++i) CHECK(hit[i] || buf[i] == -1, "%s: int %d outside the type was written", what, i);
  free(vals), free(buf), free(hit);
}

static void check_extent(MPI_Datatype t, MPI_Aint lb, MPI_Aint ext, MPI_Aint tlb, MPI_Aint text, int size,
                         const char *what) {
  MPI_Aint a, b;
  int s;
  MPI_Type_get_extent(t, &a, &b);
  CHECK(a == lb && b == ext, "%s: lb %ld extent %ld, expected %ld %ld", what, (long)a, (long)b, (long)lb, (long)ext);
  MPI_Type_get_true_extent(t, &a, &b);
  CHECK(a == tlb && b == text, "%s: true lb %ld true extent %ld, expected %ld %ld", what, (long)a, (long)b,
        (long)tlb, (long)text);
  MPI_Type_size(t, &s);
  CHECK(s == size, "%s: size %d, expected %d", what, s, size);
}

static void check_name(MPI_Datatype t, const char *expect) {
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK(MPI_Type_get_name(t, name, &len) == MPI_SUCCESS, "Type_get_name");
  CHECK(strcmp(name, expect) == 0 && len == (int)strlen(expect), "name '%s' (%d), expected '%s'", name, len, expect);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  next = (rank + 1) % size, prev = (rank + size - 1) % size;
  enum { N = 4 * 5 * 6 * 2 };
  int *src = malloc(sizeof(int) * N);
  for (int i = 0; i < N; ++i) src[i] = rank * 100000 + i;

  /* ---- addresses */
  MPI_Aint a0, a5;
  MPI_Get_address(&src[0], &a0);
  MPI_Get_address(&src[5], &a5);
  CHECK(MPI_Aint_diff(a5, a0) == 5 * (MPI_Aint)sizeof(int), "Aint_diff %ld", (long)MPI_Aint_diff(a5, a0));
  CHECK(MPI_Aint_add(a0, 5 * sizeof(int)) == a5, "Aint_add");
  CHECK((int *)MPI_Aint_add(a0, 3 * sizeof(int)) == &src[3], "Aint_add is an address");

  /* ---- resized: every third int, as an array of 4 */
  {
    MPI_Datatype t;
    MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &t);
    MPI_Type_commit(&t);
    check_extent(t, 0, 12, 0, 4, 4, "resized int");
    int idx[4] = {0, 3, 6, 9};
    check_send(t, 4, src, 4, idx, "resized int");
    check_recv(t, 4, 12, 4, idx, "resized int");
    /* resized with a negative lower bound: element i is at i*8 bytes, data at offset 0 */
    MPI_Datatype u;
    MPI_Type_create_resized(MPI_INT, -4, 8, &u);
    MPI_Type_commit(&u);
    check_extent(u, -4, 8, 0, 4, 4, "resized lb -4");
    int idx2[3] = {0, 2, 4};
    check_send(u, 3, src, 3, idx2, "resized lb -4");
    /* a vector of the resized type strides by its extent: 2 blocks of 2, stride 3 */
    MPI_Datatype v;
    MPI_Type_vector(2, 2, 3, t, &v);
    MPI_Type_commit(&v);
    check_extent(v, 0, 5 * 12, 0, 4 * 12 + 4, 16, "vector of resized");
    int idx3[4] = {0, 3, 9, 12};
    check_send(v, 1, src, 4, idx3, "vector of resized");
    MPI_Type_free(&v), MPI_Type_free(&u), MPI_Type_free(&t);
  }

  /* ---- hindexed: byte displacements */
  {
    int bl[3] = {2, 1, 3};
    MPI_Aint d[3] = {40, 4, 20};
    MPI_Datatype t;
    MPI_Type_create_hindexed(3, bl, d, MPI_INT, &t);
    MPI_Type_commit(&t);
    check_extent(t, 4, 44, 4, 44, 24, "hindexed");
    int idx[6] = {10, 11, 1, 5, 6, 7};
    check_send(t, 1, src, 6, idx, "hindexed");
    check_recv(t, 1, 12, 6, idx, "hindexed");
    /* two elements: the second starts one extent (44 bytes = 11 ints) later */
    int idx2[12] = {10, 11, 1, 5, 6, 7, 21, 22, 12, 16, 17, 18};
    check_send(t, 2, src, 12, idx2, "hindexed x2");
    MPI_Type_free(&t);
  }

  /* ---- indexed_block: blocks of 2 ints at int displacements */
  {
    int d[3] = {7, 1, 4};
    MPI_Datatype t;
    MPI_Type_create_indexed_block(3, 2, d, MPI_INT, &t);
    MPI_Type_commit(&t);
    check_extent(t, 4, 32, 4, 32, 24, "indexed_block");
    int idx[6] = {7, 8, 1, 2, 4, 5};
    check_send(t, 1, src, 6, idx, "indexed_block");
    check_recv(t, 1, 10, 6, idx, "indexed_block");
    MPI_Type_free(&t);
  }

  /* ---- hindexed_block: single ints at byte displacements, and dup */
  {
    MPI_Aint d[4] = {24, 0, 8, 36};
    MPI_Datatype t, t2;
    MPI_Type_create_hindexed_block(4, 1, d, MPI_INT, &t);
    MPI_Type_commit(&t);
    check_extent(t, 0, 40, 0, 40, 16, "hindexed_block");
    int idx[4] = {6, 0, 2, 9};
    check_send(t, 1, src, 4, idx, "hindexed_block");
    check_recv(t, 1, 10, 4, idx, "hindexed_block");
    /* a dup of a committed type is committed and equal */
    MPI_Type_dup(t, &t2);
    check_extent(t2, 0, 40, 0, 40, 16, "dup");
    check_send(t2, 1, src, 4, idx, "dup");
    check_recv(t2, 1, 10, 4, idx, "dup");
    MPI_Type_free(&t);
    check_send(t2, 1, src, 4, idx, "dup after freeing the original");
    MPI_Type_free(&t2);
    MPI_Datatype di;
    MPI_Type_dup(MPI_INT, &di);
    check_extent(di, 0, sizeof(int), 0, sizeof(int), sizeof(int), "dup of MPI_INT");
    int one[1] = {3};
    check_send(di, 1, src + 3, 1, one, "dup of MPI_INT");
    MPI_Type_free(&di);
  }

  /* ---- subarray, C order: [4][5][6], the block [1..2][1..3][3..4] */
  {
    int sizes[3] = {4, 5, 6}, sub[3] = {2, 3, 2}, starts[3] = {1, 1, 3};
    MPI_Datatype t;
    MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    int idx[2 * 12], n = 0;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 2; ++k) idx[n++] = (1 + i) * 30 + (1 + j) * 6 + (3 + k);
    check_extent(t, 0, 120 * 4, idx[0] * 4, (idx[11] - idx[0] + 1) * 4, 48, "subarray C");
    check_send(t, 1, src, 12, idx, "subarray C");
    check_recv(t, 1, 120, 12, idx, "subarray C");
    for (int i = 0; i < 12; ++i) idx[12 + i] = idx[i] + 120; /* the next array */
    check_send(t, 2, src, 24, idx, "subarray C x2");
    check_recv(t, 2, 240, 24, idx, "subarray C x2");
    MPI_Type_free(&t);
  }
  /* ---- subarray, Fortran order: A(4,5,6) column-major, the block A(2:3, 0:2, 5) */
  {
    int sizes[3] = {4, 5, 6}, sub[3] = {2, 3, 1}, starts[3] = {2, 0, 5};
    MPI_Datatype t;
    MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_INT, &t);
    MPI_Type_commit(&t);
    int idx[6], n = 0;
    for (int k = 0; k < 1; ++k)
      for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 2; ++i) idx[n++] = (2 + i) + (0 + j) * 4 + (5 + k) * 20;
    check_extent(t, 0, 120 * 4, idx[0] * 4, (idx[5] - idx[0] + 1) * 4, 24, "subarray Fortran");
    check_send(t, 1, src, 6, idx, "subarray Fortran");
    check_recv(t, 1, 120, 6, idx, "subarray Fortran");
    MPI_Type_free(&t);
  }
  /* ---- subarray of the whole array is contiguous; 1-d subarray of doubles */
  {
    int sizes[2] = {3, 4}, starts[2] = {0, 0};
    MPI_Datatype t;
    MPI_Type_create_subarray(2, sizes, sizes, starts, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    int idx[12];
    for (int i = 0; i < 12; ++i) idx[i] = i;
    check_extent(t, 0, 48, 0, 48, 48, "whole subarray");
    check_send(t, 1, src, 12, idx, "whole subarray");
    MPI_Type_free(&t);
    int n1 = 10, s1 = 4, st1 = 3;
    MPI_Type_create_subarray(1, &n1, &s1, &st1, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    check_extent(t, 0, 80, 24, 32, 32, "1-d subarray");
    double dv[10], got[4];
    for (int i = 0; i < 10; ++i) dv[i] = rank + i * 0.25;
    MPI_Sendrecv(dv, 1, t, next, 13, got, 4, MPI_DOUBLE, prev, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 4; ++i) CHECK(got[i] == prev + (3 + i) * 0.25, "1-d subarray element %d", i);
    MPI_Type_free(&t);
  }

  /* ---- names */
  {
    check_name(MPI_INT, "MPI_INT");
    check_name(MPI_DOUBLE, "MPI_DOUBLE");
    check_name(MPI_2INT, "MPI_2INT");
    MPI_Datatype t;
    MPI_Type_contiguous(3, MPI_INT, &t);
    check_name(t, "");
    MPI_Type_set_name(t, "three ints");
    check_name(t, "three ints");
    char longname[100];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    MPI_Type_set_name(t, longname);
    longname[MPI_MAX_OBJECT_NAME - 1] = '\0';
    check_name(t, longname);
    MPI_Datatype d;
    MPI_Type_dup(t, &d);
    check_name(d, "");
    MPI_Type_free(&d), MPI_Type_free(&t);
  }

  /* ---- argument errors */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int bl[1] = {1}, d[1] = {0}, cls, e;
    MPI_Aint ad[1] = {0};
    char name[MPI_MAX_OBJECT_NAME];
    int len;
#define EXPECT(call, cls_expected)                                                                   \
  do {                                                                                               \
    e = (call);                                                                                      \
    MPI_Error_class(e, &cls);                                                                        \
    CHECK(e != MPI_SUCCESS && cls == (cls_expected), "%s returned %d (class %d), expected class %d", \
          #call, e, cls, cls_expected);                                                              \
  } while (0)
    EXPECT(MPI_Type_create_hindexed(-1, bl, ad, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_create_hindexed(1, bl, ad, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    EXPECT(MPI_Type_create_indexed_block(-2, 1, d, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_create_indexed_block(1, -1, d, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT(MPI_Type_create_hindexed_block(1, 1, ad, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    EXPECT(MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 4, &t), MPI_ERR_TYPE);
    EXPECT(MPI_Type_dup(MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    EXPECT(MPI_Type_get_true_extent(MPI_DATATYPE_NULL, ad, ad), MPI_ERR_TYPE);
    EXPECT(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len), MPI_ERR_TYPE);
    EXPECT(MPI_Type_set_name(MPI_INT, NULL), MPI_ERR_ARG);
    int sizes[2] = {4, 5}, sub[2] = {2, 6}, starts[2] = {0, 0};
    EXPECT(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    sub[1] = 2, starts[0] = 3;
    EXPECT(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    starts[0] = 0;
    EXPECT(MPI_Type_create_subarray(2, sizes, sub, starts, 12345, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT(MPI_Type_create_subarray(0, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    CHECK(t == MPI_DATATYPE_NULL, "a failed constructor set newtype");
    /* still usable after the errors */
    CHECK(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t) == MPI_SUCCESS, "subarray");
    MPI_Type_free(&t);
#undef EXPECT
  }
  free(src);
  if (rank == 0) printf("dtype2: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
