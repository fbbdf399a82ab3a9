/* The rest of MPI-3.1's datatype calls:
 * - the _x calls: MPI_Type_size_x, _get_extent_x, _get_true_extent_x agree
 *   with the int/Aint calls; MPI_Get_elements_x of a received struct
 *   message (whole and truncated at an element boundary).
 * - MPI_Status_set_elements(_x) and MPI_Status_set_cancelled: what
 *   MPI_Get_count, MPI_Get_elements and MPI_Test_cancelled read back, for a
 *   basic type, a struct of mixed types and a pair type.
 * - the Fortran 90 parameterized types and MPI_Type_match_size: which type,
 *   its envelope and contents (combiner F90_*, p and r), the same handle for
 *   the same arguments, refused arguments; an MPI_Allreduce(MPI_SUM) in each.
 * - datatype attributes: copy callbacks on MPI_Type_dup (MPI_TYPE_DUP_FN,
 *   MPI_TYPE_NULL_COPY_FN, one of ours), delete callbacks on MPI_Type_free,
 *   MPI_Type_delete_attr and on replacing a value, a keyval of another kind
 *   (a communicator's) refused with MPI_ERR_KEYVAL, attributes on a
 *   predefined type, and a freed keyval that lives until its last use.
 * - C99's complex types and C++'s bool and complex types (usable from C):
 *   sizes and names, MPI_SUM and MPI_PROD over every rank (exact in
 *   binary), a ring of long double complex, MPI_LOR/MPI_LAND on
 *   MPI_CXX_BOOL, MPI_MAX refused with MPI_ERR_OP, external32 sizes. */
#include <complex.h>
#include <stdbool.h>
#include <string.h>
#include "lz_test.h"

static int rank, size, next, prev;

static int err_class(int rc) {
  int c;
  MPI_Error_class(rc, &c);
  return c;
}

static void x_calls(void) {
  struct s { double d; int i[3]; char c; } sb[4], rb[4];
  int bl[3] = {1, 3, 1};
  MPI_Aint disp[3] = {offsetof(struct s, d), offsetof(struct s, i), offsetof(struct s, c)};
  MPI_Datatype tys[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR}, st;
  MPI_Type_create_struct(3, bl, disp, tys, &st);
  MPI_Type_commit(&st);
  int isz;
  MPI_Count csz, clb, cext, ctlb, ctext;
  MPI_Aint lb, ext, tlb, text;
  MPI_Type_size(st, &isz);
  MPI_Type_size_x(st, &csz);
  MPI_Type_get_extent(st, &lb, &ext);
  MPI_Type_get_extent_x(st, &clb, &cext);
  MPI_Type_get_true_extent(st, &tlb, &text);
  MPI_Type_get_true_extent_x(st, &ctlb, &ctext);
  CHECK(csz == isz && csz == 8 + 12 + 1, "size_x %lld, size %d", csz, isz);
  CHECK(clb == lb && cext == ext && ctlb == tlb && ctext == text, "extent_x %lld %lld / %ld %ld", clb, cext,
        (long)lb, (long)ext);
  for (int k = 0; k < 4; ++k) sb[k] = (struct s){rank + k, {k, k + 1, k + 2}, (char)('a' + k)};
  MPI_Status status;
  MPI_Sendrecv(sb, 4, st, next, 7, rb, 4, st, prev, 7, MPI_COMM_WORLD, &status);
  MPI_Count n;
  CHECK(MPI_Get_elements_x(&status, st, &n) == MPI_SUCCESS && n == 4 * 5, "get_elements_x %lld", n);
  CHECK(rb[3].d == prev + 3 && rb[3].i[2] == 5 && rb[3].c == 'd', "struct received");
  /* Two whole elements and the double of the third: 11 basic elements. */
  MPI_Sendrecv(sb, 2 * isz + 8, MPI_BYTE, next, 8, rb, 4, st, prev, 8, MPI_COMM_WORLD, &status);
  CHECK(MPI_Get_elements_x(&status, st, &n) == MPI_SUCCESS && n == 11, "truncated get_elements_x %lld", n);
  int cnt;
  MPI_Get_count(&status, st, &cnt);
  CHECK(cnt == MPI_UNDEFINED, "get_count of a partial struct: %d", cnt);
  MPI_Type_free(&st);
}

static void status_set(void) {
  MPI_Status s;
  memset(&s, 0, sizeof s);
  int n, flag;
  CHECK(MPI_Status_set_elements(&s, MPI_INT, 5) == MPI_SUCCESS, "set_elements");
  MPI_Get_count(&s, MPI_INT, &n);
  CHECK(n == 5, "count after set_elements(5 ints): %d", n);
  MPI_Get_elements(&s, MPI_INT, &n);
  CHECK(n == 5, "elements after set_elements: %d", n);
  /* A struct of a double and two ints: 3 elements per item. 7 elements are
   * two items and a double. */
  int bl[2] = {1, 2};
  MPI_Aint disp[2] = {0, 8};
  MPI_Datatype tys[2] = {MPI_DOUBLE, MPI_INT}, st;
  MPI_Type_create_struct(2, bl, disp, tys, &st);
  MPI_Type_commit(&st);
  MPI_Count x;
  CHECK(MPI_Status_set_elements_x(&s, st, 7) == MPI_SUCCESS, "set_elements_x");
  MPI_Get_elements_x(&s, st, &x);
  CHECK(x == 7, "elements_x after set_elements_x(7): %lld", x);
  MPI_Get_count(&s, st, &n);
  CHECK(n == MPI_UNDEFINED, "count of 7 elements of a 3-element type: %d", n);
  MPI_Status_set_elements_x(&s, st, 6);
  MPI_Get_count(&s, st, &n);
  CHECK(n == 2, "count of 6 elements: %d", n);
  MPI_Type_free(&st);
  /* A pair type counts two elements per item. */
  MPI_Status_set_elements(&s, MPI_DOUBLE_INT, 4);
  MPI_Get_count(&s, MPI_DOUBLE_INT, &n);
  CHECK(n == 2, "count of 4 elements of MPI_DOUBLE_INT: %d", n);
  MPI_Status_set_elements(&s, MPI_DOUBLE_INT, 3);
  MPI_Get_elements(&s, MPI_DOUBLE_INT, &n);
  CHECK(n == 3, "3 elements of MPI_DOUBLE_INT read back: %d", n);
  MPI_Status_set_cancelled(&s, 1);
  MPI_Test_cancelled(&s, &flag);
  CHECK(flag, "set_cancelled(1)");
  MPI_Status_set_cancelled(&s, 0);
  MPI_Test_cancelled(&s, &flag);
  CHECK(!flag, "set_cancelled(0)");
  CHECK(err_class(MPI_Status_set_elements(&s, MPI_INT, -1)) == MPI_ERR_COUNT, "negative count refused");
  CHECK(err_class(MPI_Status_set_elements(MPI_STATUS_IGNORE, MPI_INT, 1)) == MPI_ERR_ARG, "MPI_STATUS_IGNORE");
}

static void check_f90(MPI_Datatype t, int combiner, int ni, const int *ints, MPI_Datatype same_as, const char *what) {
  int a, b, c, comb, iv[2];
  MPI_Type_get_envelope(t, &a, &b, &c, &comb);
  CHECK(comb == combiner && a == ni && b == 0 && c == 0, "%s: envelope %d %d %d combiner %d", what, a, b, c, comb);
  MPI_Type_get_contents(t, 2, 0, 0, iv, NULL, NULL);
  for (int i = 0; i < ni; ++i) CHECK(iv[i] == ints[i], "%s: contents[%d] %d, expected %d", what, i, iv[i], ints[i]);
  int s1, s2;
  MPI_Type_size(t, &s1);
  MPI_Type_size(same_as, &s2);
  CHECK(s1 == s2, "%s: size %d, expected %d", what, s1, s2);
}

static void f90_types(void) {
  MPI_Datatype r8, r8b, r4, c16, i4, i8, t;
  CHECK(MPI_Type_create_f90_real(15, 300, &r8) == MPI_SUCCESS, "f90_real(15, 300)");
  check_f90(r8, MPI_COMBINER_F90_REAL, 2, (int[]){15, 300}, MPI_REAL8, "f90_real(15, 300)");
  MPI_Type_create_f90_real(15, 300, &r8b);
  CHECK(r8 == r8b, "the same handle for the same p and r");
  MPI_Type_create_f90_real(6, MPI_UNDEFINED, &r4);
  check_f90(r4, MPI_COMBINER_F90_REAL, 2, (int[]){6, MPI_UNDEFINED}, MPI_REAL4, "f90_real(6, UNDEFINED)");
  MPI_Type_create_f90_complex(10, MPI_UNDEFINED, &c16);
  check_f90(c16, MPI_COMBINER_F90_COMPLEX, 2, (int[]){10, MPI_UNDEFINED}, MPI_DOUBLE_COMPLEX, "f90_complex(10)");
  MPI_Type_create_f90_integer(9, &i4);
  check_f90(i4, MPI_COMBINER_F90_INTEGER, 1, (int[]){9}, MPI_INTEGER4, "f90_integer(9)");
  MPI_Type_create_f90_integer(10, &i8);
  check_f90(i8, MPI_COMBINER_F90_INTEGER, 1, (int[]){10}, MPI_INTEGER8, "f90_integer(10)");
  CHECK(err_class(MPI_Type_create_f90_real(40, MPI_UNDEFINED, &t)) == MPI_ERR_ARG, "precision 40 refused");
  CHECK(err_class(MPI_Type_create_f90_real(17, MPI_UNDEFINED, &t)) == MPI_ERR_ARG, "precision 17 (REAL(10)) refused");
  MPI_Datatype r16, c32;
  CHECK(MPI_Type_create_f90_real(30, MPI_UNDEFINED, &r16) == MPI_SUCCESS, "f90_real(30)");
  check_f90(r16, MPI_COMBINER_F90_REAL, 2, (int[]){30, MPI_UNDEFINED}, MPI_REAL16, "f90_real(30)");
  CHECK(MPI_Type_create_f90_complex(25, 4000, &c32) == MPI_SUCCESS, "f90_complex(25, 4000)");
  check_f90(c32, MPI_COMBINER_F90_COMPLEX, 2, (int[]){25, 4000}, MPI_COMPLEX32, "f90_complex(25, 4000)");
  CHECK(err_class(MPI_Type_create_f90_real(MPI_UNDEFINED, 4000, &t)) == MPI_ERR_ARG, "range 4000 (REAL(10)) refused");
  MPI_Datatype i16;
  CHECK(MPI_Type_create_f90_integer(19, &i16) == MPI_SUCCESS, "f90_integer(19)");
  check_f90(i16, MPI_COMBINER_F90_INTEGER, 1, (int[]){19}, MPI_INTEGER16, "f90_integer(19)");
  CHECK(err_class(MPI_Type_create_f90_integer(39, &t)) == MPI_ERR_ARG, "range 39 refused");
  CHECK(err_class(MPI_Type_free(&r8)) == MPI_ERR_TYPE, "an f90 type cannot be freed");
  /* They reduce as the types they stand for. */
  double d = rank + 0.5, dsum = 0;
  long long l = 1LL << 40, lsum = 0;
  MPI_Allreduce(&d, &dsum, 1, r8b, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&l, &lsum, 1, i8, MPI_SUM, MPI_COMM_WORLD);
  CHECK(dsum == size * (size - 1) / 2.0 + size * 0.5, "allreduce in f90 real: %g", dsum);
  CHECK(lsum == (long long)size << 40, "allreduce in f90 integer: %lld", lsum);
  MPI_Datatype m;
  MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m);
  CHECK(m == MPI_REAL8, "match_size(REAL, 8)");
  MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 2, &m);
  CHECK(m == MPI_INTEGER2, "match_size(INTEGER, 2)");
  MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &m);
  CHECK(m == MPI_DOUBLE_COMPLEX, "match_size(COMPLEX, 16)");
  MPI_Type_match_size(MPI_TYPECLASS_REAL, 16, &m);
  CHECK(m == MPI_REAL16, "match_size(REAL, 16)");
  MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 32, &m);
  CHECK(m == MPI_COMPLEX32, "match_size(COMPLEX, 32)");
  CHECK(err_class(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &m)) == MPI_ERR_ARG, "match_size(REAL, 3) refused");
  CHECK(err_class(MPI_Type_match_size(99, 4, &m)) == MPI_ERR_ARG, "typeclass 99 refused");
}

static int copies, deletes;
static int my_copy(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag) {
  (void)t, (void)k;
  ++copies;
  *(void **)out = (char *)in + *(int *)extra; /* a different value, to tell it was ours */
  *flag = 1;
  return MPI_SUCCESS;
}
static int my_delete(MPI_Datatype t, int k, void *val, void *extra) {
  (void)t, (void)k, (void)val, (void)extra;
  ++deletes;
  return MPI_SUCCESS;
}

static void attributes(void) {
  static int step = 100;
  int kdup, knull, kmine, kcomm, flag;
  char base[256];
  void *v;
  MPI_Type_create_keyval(MPI_TYPE_DUP_FN, my_delete, &kdup, NULL);
  MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &knull, NULL);
  MPI_Type_create_keyval(my_copy, my_delete, &kmine, &step);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kcomm, NULL);
  MPI_Datatype t, d;
  MPI_Type_contiguous(3, MPI_INT, &t);
  MPI_Type_set_attr(t, kdup, base);
  MPI_Type_set_attr(t, knull, base + 1);
  MPI_Type_set_attr(t, kmine, base + 2);
  MPI_Type_get_attr(t, kmine, &v, &flag);
  CHECK(flag && v == base + 2, "get_attr after set_attr");
  MPI_Type_dup(t, &d);
  CHECK(copies == 1, "one copy callback of ours ran on dup: %d", copies);
  MPI_Type_get_attr(d, kdup, &v, &flag);
  CHECK(flag && v == base, "MPI_TYPE_DUP_FN copied the value");
  MPI_Type_get_attr(d, knull, &v, &flag);
  CHECK(!flag, "MPI_TYPE_NULL_COPY_FN copied nothing");
  MPI_Type_get_attr(d, kmine, &v, &flag);
  CHECK(flag && v == base + 2 + step, "our copy callback's value: %p", v);
  /* Replacing a value deletes the old one first. */
  MPI_Type_set_attr(d, kmine, base + 3);
  CHECK(deletes == 1, "set_attr over a value ran its delete callback: %d", deletes);
  MPI_Type_delete_attr(d, kmine);
  CHECK(deletes == 2, "delete_attr ran the delete callback: %d", deletes);
  MPI_Type_get_attr(d, kmine, &v, &flag);
  CHECK(!flag, "no value after delete_attr");
  CHECK(err_class(MPI_Type_delete_attr(d, kmine)) == MPI_ERR_ARG, "delete_attr of an absent attribute");
  /* A communicator's keyval is no datatype keyval, and the reverse. */
  CHECK(err_class(MPI_Type_set_attr(t, kcomm, base)) == MPI_ERR_KEYVAL, "comm keyval on a type refused");
  CHECK(err_class(MPI_Comm_set_attr(MPI_COMM_WORLD, kdup, base)) == MPI_ERR_KEYVAL, "type keyval on a comm refused");
  /* Freeing the keyval keeps it alive for the attributes that use it. */
  MPI_Type_free_keyval(&kmine);
  CHECK(kmine == MPI_KEYVAL_INVALID, "free_keyval resets the handle");
  MPI_Type_free(&t); /* kdup and the first type's kmine value: two deletes */
  CHECK(deletes == 4, "MPI_Type_free ran each delete callback: %d", deletes);
  MPI_Type_free(&d); /* kdup's copy */
  CHECK(deletes == 5, "the dup's delete callbacks: %d", deletes);
  /* Attributes on a predefined type. */
  MPI_Type_set_attr(MPI_DOUBLE, knull, base + 9);
  MPI_Type_get_attr(MPI_DOUBLE, knull, &v, &flag);
  CHECK(flag && v == base + 9, "attribute on MPI_DOUBLE");
  MPI_Type_delete_attr(MPI_DOUBLE, knull);
  MPI_Type_free_keyval(&kdup);
  MPI_Type_free_keyval(&knull);
  MPI_Comm_free_keyval(&kcomm);
  CHECK(err_class(MPI_Type_free_keyval(&kdup)) == MPI_ERR_KEYVAL, "freeing MPI_KEYVAL_INVALID refused");
}

static void check_named(MPI_Datatype t, const char *name, int size_expected) {
  char got[MPI_MAX_OBJECT_NAME];
  int len, sz, ni, na, nd, comb;
  MPI_Type_get_name(t, got, &len);
  CHECK(strcmp(got, name) == 0, "name %s, expected %s", got, name);
  MPI_Type_size(t, &sz);
  CHECK(sz == size_expected, "%s: size %d, expected %d", name, sz, size_expected);
  MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
  CHECK(comb == MPI_COMBINER_NAMED, "%s: combiner %d", name, comb);
}

/* Sum and product over all ranks of z(rank) = (1 + rank % 3) + (rank % 2)i,
 * computed here in long double: every part of every partial result is a
 * small integer, exact in float, whatever the reduction's order. */
static void expected_sum_prod(long double complex *sum, long double complex *prod) {
  *sum = 0;
  *prod = 1;
  for (int r = 0; r < size; ++r) {
    long double complex z = (1 + r % 3) + (r % 2) * I;
    *sum += z;
    *prod *= z;
  }
}

#define COMPLEX_REDUCE(CTYPE, MPITYPE)                                                        \
  do {                                                                                        \
    CTYPE v[2] = {(1 + rank % 3) + (rank % 2) * I, (1 + rank % 3) + (rank % 2) * I}, r[2];    \
    long double complex es, ep;                                                               \
    expected_sum_prod(&es, &ep);                                                              \
    CHECK(MPI_Allreduce(v, r, 1, MPITYPE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS, #MPITYPE); \
    CHECK(r[0] == (CTYPE)es, #MPITYPE " sum (%Lg,%Lg)", creall(r[0]), cimagl(r[0]));          \
    CHECK(MPI_Allreduce(v, r, 2, MPITYPE, MPI_PROD, MPI_COMM_WORLD) == MPI_SUCCESS, #MPITYPE); \
    CHECK(r[0] == (CTYPE)ep && r[1] == (CTYPE)ep, #MPITYPE " prod (%Lg,%Lg)", creall(r[1]),   \
          cimagl(r[1]));                                                                      \
    int rc = MPI_Allreduce(v, r, 1, MPITYPE, MPI_MAX, MPI_COMM_WORLD);                        \
    CHECK(err_class(rc) == MPI_ERR_OP, #MPITYPE " MPI_MAX: class %d", err_class(rc));         \
  } while (0)

static void complex_types(void) {
  check_named(MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX", (int)sizeof(float complex)); /* a synonym: one name */
  check_named(MPI_C_COMPLEX, "MPI_C_COMPLEX", (int)sizeof(float complex));
  check_named(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", (int)sizeof(double complex));
  check_named(MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", (int)sizeof(long double complex));
  check_named(MPI_CXX_BOOL, "MPI_CXX_BOOL", 1);
  check_named(MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", (int)sizeof(float complex));
  check_named(MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", (int)sizeof(double complex));
  check_named(MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", (int)sizeof(long double complex));
  check_named(MPI_REAL16, "MPI_REAL16", 16);
  check_named(MPI_COMPLEX8, "MPI_COMPLEX8", 8);
  check_named(MPI_COMPLEX16, "MPI_COMPLEX16", 16);
  check_named(MPI_COMPLEX32, "MPI_COMPLEX32", 32);

  COMPLEX_REDUCE(float complex, MPI_C_FLOAT_COMPLEX);
  COMPLEX_REDUCE(double complex, MPI_C_DOUBLE_COMPLEX);
  COMPLEX_REDUCE(long double complex, MPI_C_LONG_DOUBLE_COMPLEX);
  COMPLEX_REDUCE(float complex, MPI_CXX_FLOAT_COMPLEX);
  COMPLEX_REDUCE(double complex, MPI_CXX_DOUBLE_COMPLEX);
  COMPLEX_REDUCE(long double complex, MPI_CXX_LONG_DOUBLE_COMPLEX);
  COMPLEX_REDUCE(float complex, MPI_COMPLEX8);
  COMPLEX_REDUCE(double complex, MPI_COMPLEX16);

  /* REAL16 and COMPLEX32 are binary128 (GCC's __float128): 1 + (rank+1)
   * 2^-80 per rank sums exactly in binary128 (113-bit significand), while a
   * double or x87 sum would lose the small parts. */
  const __float128 tiny = (__float128)1 / ((__float128)(1ULL << 40) * (__float128)(1ULL << 40));
  __float128 q = 1 + (rank + 1) * tiny, qs = 0;
  MPI_Allreduce(&q, &qs, 1, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD);
  CHECK(qs == size + (size * (size + 1) / 2) * tiny, "REAL16 sum: %.20g + %g * 2^-80", (double)qs,
        (double)((qs - size) / tiny));
  __float128 z[2] = {1 + rank % 3, rank % 2}, zp[2];
  MPI_Allreduce(z, zp, 1, MPI_COMPLEX32, MPI_PROD, MPI_COMM_WORLD);
  long double complex es, ep;
  expected_sum_prod(&es, &ep);
  CHECK((long double)zp[0] == creall(ep) && (long double)zp[1] == cimagl(ep), "COMPLEX32 product (%Lg,%Lg)",
        (long double)zp[0], (long double)zp[1]);
  int rc = MPI_Allreduce(z, zp, 1, MPI_COMPLEX32, MPI_MAX, MPI_COMM_WORLD);
  CHECK(err_class(rc) == MPI_ERR_OP, "COMPLEX32 MPI_MAX: class %d", err_class(rc));

  /* A ring of long double complex: each rank receives its predecessor's. */
  long double complex out[3], in[3];
  for (int i = 0; i < 3; ++i) out[i] = (rank * 10 + i) + (rank - i) * 0.5L * I;
  MPI_Sendrecv(out, 3, MPI_C_LONG_DOUBLE_COMPLEX, next, 7, in, 3, MPI_C_LONG_DOUBLE_COMPLEX, prev, 7, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  for (int i = 0; i < 3; ++i)
    CHECK(in[i] == (prev * 10 + i) + (prev - i) * 0.5L * I, "ring element %d from %d", i, prev);

  /* C++'s bool from C: one byte, 0 or 1. */
  bool b = rank == 0, any, all;
  MPI_Allreduce(&b, &any, 1, MPI_CXX_BOOL, MPI_LOR, MPI_COMM_WORLD);
  MPI_Allreduce(&b, &all, 1, MPI_CXX_BOOL, MPI_LAND, MPI_COMM_WORLD);
  CHECK(any && all == (size == 1), "MPI_CXX_BOOL lor %d land %d", any, all);

  MPI_Aint ext;
  MPI_Pack_external_size("external32", 2, MPI_C_DOUBLE_COMPLEX, &ext);
  CHECK(ext == 32, "external32 size of 2 MPI_C_DOUBLE_COMPLEX: %ld", (long)ext);
  MPI_Pack_external_size("external32", 1, MPI_C_LONG_DOUBLE_COMPLEX, &ext);
  CHECK(ext == 32, "external32 size of MPI_C_LONG_DOUBLE_COMPLEX: %ld", (long)ext);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  x_calls();
  status_set();
  f90_types();
  attributes();
  complex_types();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("dtype4: ok\n");
  MPI_Finalize();
  return 0;
}
