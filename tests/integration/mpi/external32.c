/* MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size: every
 * basic C type and a derived one packed as "external32", printed as hex
 * (one line per type: the bytes MPICH packs on this machine must be the
 * same, which mpi.external32.vs_mpich compares), then unpacked and compared
 * with the original. `external32 all` adds what MPICH 4.0.2 cannot pack
 * here: MPI_WCHAR (an assertion fails in MPI_Pack_external), a derived
 * struct type (MPI_Pack_external_size dies of an illegal instruction) and
 * the pair types (packed as nothing). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <stddef.h>
#include <mpi.h>

static int failures = 0;

static int extent_fn(MPI_Datatype dt, MPI_Aint *extent, void *extra) {
  MPI_Aint lb;
  (void)extra;
  return MPI_Type_get_extent(dt, &lb, extent);
}

/* Packs `value`, prints the bytes and unpacks them into `back`, whose first
 * `native` bytes must equal the value's (0: the caller compares values). */
static void one_into(const char *name, MPI_Datatype dt, const void *value, size_t native, unsigned char *back) {
  unsigned char out[64];
  MPI_Aint size = -1, pos = 0, upos = 0;
  MPI_Pack_external_size("external32", 1, dt, &size);
  MPI_Pack_external("external32", value, 1, dt, out, sizeof out, &pos);
  printf("%s %ld:", name, (long)size);
  for (MPI_Aint i = 0; i < pos; ++i) printf(" %02x", out[i]);
  printf("\n");
  if (pos != size) {
    printf("  position %ld != size %ld\n", (long)pos, (long)size);
    ++failures;
  }
  memset(back, 0, 64);
  MPI_Unpack_external("external32", out, pos, &upos, back, 1, dt);
  if (upos != pos || (native != 0 && memcmp(back, value, native) != 0)) {
    fprintf(stderr, "%s: unpacked value differs from the original\n", name);
    ++failures;
  }
}

static void one(const char *name, MPI_Datatype dt, const void *value, size_t native) {
  unsigned char back[64];
  one_into(name, dt, value, native, back);
}

/* Compared as values, not bytes: x87 long double leaves 6 of its 16 bytes
 * undefined (an assignment need not clear them, memset or not). */
#define ONE(name, dt, ctype, v)                                              \
  do {                                                                       \
    ctype x_ = (v), y_;                                                      \
    unsigned char back_[64];                                                 \
    one_into(name, dt, &x_, 0, back_);                                       \
    memcpy(&y_, back_, sizeof y_);                                           \
    if (!(y_ == x_)) {                                                       \
      fprintf(stderr, "%s: unpacked value differs from the original\n", name); \
      ++failures;                                                            \
    }                                                                        \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  ONE("CHAR", MPI_CHAR, char, 'A');
  ONE("SIGNED_CHAR", MPI_SIGNED_CHAR, signed char, -5);
  ONE("UNSIGNED_CHAR", MPI_UNSIGNED_CHAR, unsigned char, 200);
  ONE("BYTE", MPI_BYTE, unsigned char, 0x7f);
  ONE("SHORT", MPI_SHORT, short, -1234);
  ONE("UNSIGNED_SHORT", MPI_UNSIGNED_SHORT, unsigned short, 54321);
  ONE("INT", MPI_INT, int, -123456789);
  ONE("UNSIGNED", MPI_UNSIGNED, unsigned, 4000000000u);
  ONE("LONG", MPI_LONG, long, -1234567L);
  ONE("UNSIGNED_LONG", MPI_UNSIGNED_LONG, unsigned long, 3000000000ul);
  ONE("LONG_LONG", MPI_LONG_LONG, long long, -1234567890123LL);
  ONE("UNSIGNED_LONG_LONG", MPI_UNSIGNED_LONG_LONG, unsigned long long, 12345678901234567890ull);
  ONE("FLOAT", MPI_FLOAT, float, 3.25f);
  ONE("DOUBLE", MPI_DOUBLE, double, -1.0e100);
  ONE("LONG_DOUBLE", MPI_LONG_DOUBLE, long double, 1.5L);
  ONE("LONG_DOUBLE_NEG", MPI_LONG_DOUBLE, long double, -2.75e300L);
  ONE("LONG_DOUBLE_SMALL", MPI_LONG_DOUBLE, long double, 3.0e-4000L);
  ONE("C_BOOL", MPI_C_BOOL, _Bool, 1);
  ONE("INT8_T", MPI_INT8_T, int8_t, -100);
  ONE("INT16_T", MPI_INT16_T, int16_t, -30000);
  ONE("INT32_T", MPI_INT32_T, int32_t, -2000000000);
  ONE("INT64_T", MPI_INT64_T, int64_t, -9000000000000000000LL);
  ONE("UINT8_T", MPI_UINT8_T, uint8_t, 250);
  ONE("UINT16_T", MPI_UINT16_T, uint16_t, 65000);
  ONE("UINT32_T", MPI_UINT32_T, uint32_t, 4000000001u);
  ONE("UINT64_T", MPI_UINT64_T, uint64_t, 18000000000000000000ull);
  ONE("AINT", MPI_AINT, MPI_Aint, -77);
  ONE("OFFSET", MPI_OFFSET, MPI_Offset, 1LL << 40);
  ONE("COUNT", MPI_COUNT, MPI_Count, -(1LL << 35));
  if (argc > 1 && strcmp(argv[1], "all") == 0) { /* a derived type: { int; double; char[3] } twice */
    struct s { int i; double d; char c[3]; } v[2] = {{7, 0.5, "ab"}, {-8, -0.25, "cd"}}, w[2];
    int bl[3] = {1, 1, 3};
    MPI_Aint dis[3] = {offsetof(struct s, i), offsetof(struct s, d), offsetof(struct s, c)};
    MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, st, two;
    unsigned char out[128];
    MPI_Aint size = 0, pos = 0, upos = 0;
    MPI_Type_create_struct(3, bl, dis, ty, &st);
    MPI_Type_create_resized(st, 0, sizeof(struct s), &two);
    MPI_Type_commit(&two);
    MPI_Pack_external_size("external32", 2, two, &size);
    MPI_Pack_external("external32", v, 2, two, out, sizeof out, &pos);
    printf("STRUCT_X2 %ld:", (long)size);
    for (MPI_Aint i = 0; i < pos; ++i) printf(" %02x", out[i]);
    printf("\n");
    memset(w, 0, sizeof w);
    MPI_Unpack_external("external32", out, pos, &upos, w, 2, two);
    if (w[0].i != 7 || w[0].d != 0.5 || strcmp(w[0].c, "ab") || w[1].i != -8 || w[1].d != -0.25 ||
        strcmp(w[1].c, "cd")) {
      fprintf(stderr, "STRUCT_X2: unpacked value differs\n");
      ++failures;
    }
    MPI_Type_free(&two);
    MPI_Type_free(&st);
  }
  if (argc > 1 && strcmp(argv[1], "all") == 0) {
    ONE("WCHAR", MPI_WCHAR, wchar_t, 0x3a9);
    struct { float v; int i; } fi = {1.5f, -3};
    struct { double v; int i; } di = {-2.5, 4};
    struct { long v; int i; } li = {-5, 6};
    struct { short v; int i; } si = {-7, 8};
    int ii[2] = {9, -10};
    one("FLOAT_INT", MPI_FLOAT_INT, &fi, 8);
    one("DOUBLE_INT", MPI_DOUBLE_INT, &di, 12);
    one("LONG_INT", MPI_LONG_INT, &li, 12);
    one("SHORT_INT", MPI_SHORT_INT, &si, 2); /* the padding after the short is not data */
    one("2INT", MPI_2INT, ii, 8);
  }
  { /* errors: another representation, a buffer too small */
    int rc, cls, x = 1;
    unsigned char out[2];
    MPI_Aint pos = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Pack_external("native", &x, 1, MPI_INT, out, sizeof out, &pos);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_UNSUPPORTED_DATAREP) { fprintf(stderr, "datarep native: class %d\n", cls); ++failures; }
    rc = MPI_Pack_external("external32", &x, 1, MPI_INT, out, sizeof out, &pos);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_TRUNCATE || pos != 0) { fprintf(stderr, "too small: class %d\n", cls); ++failures; }
    /* representations for MPI-IO: a new name once; the predefined ones never */
    rc = MPI_Register_datarep("lz_test_rep", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, extent_fn, NULL);
    if (rc != MPI_SUCCESS) { fprintf(stderr, "register: %d\n", rc); ++failures; }
    rc = MPI_Register_datarep("lz_test_rep", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, extent_fn, NULL);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_DUP_DATAREP) { fprintf(stderr, "register twice: class %d\n", cls); ++failures; }
    rc = MPI_Register_datarep("external32", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, extent_fn, NULL);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_DUP_DATAREP) { fprintf(stderr, "register external32: class %d\n", cls); ++failures; }
  }
  fprintf(stderr, failures ? "external32: %d failure(s)\n" : "external32: round trip ok\n", failures);
  MPI_Finalize();
  return failures != 0;
}
