/* Data representations (MPI-3.1 13.5): views with datarep "native",
 * "internal" and "external32".
 *  - external32.out: each rank's region holds ints (written collectively
 *    from a memory vector), doubles (write_at) and shorts (write, individual
 *    pointer), each under an external32 view of its type; read back under
 *    external32, then as plain bytes under "native": every value is
 *    big-endian (two's complement, IEEE 754), byte for byte as computed here
 *    and as MPI_Pack_external("external32") gives. MPI_File_get_type_extent
 *    under external32 (and native).
 *  - native.out: ints and doubles under "native" are their memory bytes.
 *  - internal.tmp: written and read back under "internal" (its bytes are the
 *    implementation's own: deleted on close).
 * get_view gives back each datarep. Any np >= 1.
 * (MPI_Register_datarep: file_datarep_user.c.) */
#include <stdint.h>
#include <stdlib.h>

#include "io_test.h"

#define NI 6
#define ND 4
#define NS 3
#define REG (NI * 4 + ND * 8 + NS * 2) /* a rank's external32 bytes */

static int rank, size;

static int ival(int r, int i) {
  static const int base[NI] = {0, 1, -1, 0x12345678, -2147483647 - 1, 2147483647};
  return base[i] ^ (r << 8);
}
static double dval(int r, int i) {
  static const double base[ND] = {1.5, -2.25, 1e300, -3.0e-310 /* subnormal */};
  return base[i] * (r + 1);
}
static short sval(int r, int i) { return (short)(-30000 + 1000 * i + 7 * r); }

/* Big-endian bytes of n-byte integers / IEEE doubles. */
static void be_put(unsigned char* out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
}
static void region_external32(unsigned char* e, int r) {
  for (int i = 0; i < NI; ++i) be_put(e + 4 * i, (uint32_t)ival(r, i), 4);
  for (int i = 0; i < ND; ++i) {
    double d = dval(r, i);
    uint64_t u;
    memcpy(&u, &d, 8);
    be_put(e + NI * 4 + 8 * i, u, 8);
  }
  for (int i = 0; i < NS; ++i) be_put(e + NI * 4 + ND * 8 + 2 * i, (uint16_t)sval(r, i), 2);
}

static void check_extent(MPI_File fh, MPI_Datatype t, MPI_Aint expect, const char* what) {
  MPI_Aint ext = -1;
  CHECK_MPI(MPI_File_get_type_extent(fh, t, &ext));
  CHECK(ext == expect, "MPI_File_get_type_extent(%s): %ld, expected %ld", what, (long)ext, (long)expect);
}

static void external32(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_datarep.external32.out");
  io_remove(MPI_COMM_WORLD, path);
  int ints[2 * NI], gi[NI];
  double dbls[ND], gd[ND];
  short shs[NS], gs[NS];
  for (int i = 0; i < NI; ++i) ints[2 * i] = ival(rank, i), ints[2 * i + 1] = -5;
  for (int i = 0; i < ND; ++i) dbls[i] = dval(rank, i);
  for (int i = 0; i < NS; ++i) shs[i] = sval(rank, i);
  MPI_Datatype every_other, three_shorts;
  CHECK_MPI(MPI_Type_vector(NI, 1, 2, MPI_INT, &every_other));
  CHECK_MPI(MPI_Type_commit(&every_other));
  CHECK_MPI(MPI_Type_contiguous(3, MPI_SHORT, &three_shorts));
  CHECK_MPI(MPI_Type_commit(&three_shorts));
  MPI_File fh;
  MPI_Status st;
  const MPI_Offset base = (MPI_Offset)rank * REG;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, base, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
  io_check_view("external32 ints", fh, base, MPI_INT, MPI_INT, "external32");
  /* external32 sizes: MPI-3.1 table 13.2. */
  check_extent(fh, MPI_INT, 4, "MPI_INT");
  check_extent(fh, MPI_DOUBLE, 8, "MPI_DOUBLE");
  check_extent(fh, MPI_SHORT, 2, "MPI_SHORT");
  check_extent(fh, MPI_CHAR, 1, "MPI_CHAR");
  check_extent(fh, MPI_FLOAT, 4, "MPI_FLOAT");
  check_extent(fh, MPI_LONG_LONG, 8, "MPI_LONG_LONG");
  check_extent(fh, MPI_INT64_T, 8, "MPI_INT64_T");
  check_extent(fh, three_shorts, 6, "contiguous of 3 MPI_SHORT");
  check_extent(fh, every_other, 4 * (2 * NI - 1), "vector of ints, stride 2");
  CHECK_MPI(MPI_File_write_at_all(fh, 0, ints, 1, every_other, &st));
  CHECK(io_count(&st, every_other) == 1, "write_at_all of a memory vector: count %d", io_count(&st, every_other));
  CHECK_MPI(MPI_File_set_view(fh, base + NI * 4, MPI_DOUBLE, MPI_DOUBLE, "external32", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_write_at(fh, 0, dbls, ND, MPI_DOUBLE, &st));
  CHECK(io_count(&st, MPI_DOUBLE) == ND, "write_at count %d doubles", io_count(&st, MPI_DOUBLE));
  CHECK_MPI(MPI_File_set_view(fh, base + NI * 4 + ND * 8, MPI_SHORT, MPI_SHORT, "external32", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_write(fh, shs, 1, three_shorts, &st));
  CHECK(io_count(&st, three_shorts) == 1, "write count %d", io_count(&st, three_shorts));
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == NS, "get_position after %d shorts: %lld", NS, (long long)pos);
  io_sync_barrier(fh, MPI_COMM_WORLD);

  /* Back under external32: the values. */
  CHECK_MPI(MPI_File_read_at(fh, 0, gs, NS, MPI_SHORT, &st));
  CHECK(io_count(&st, MPI_SHORT) == NS, "read_at count %d shorts", io_count(&st, MPI_SHORT));
  for (int i = 0; i < NS; ++i) CHECK(gs[i] == shs[i], "external32 short %d: got %d, expected %d", i, gs[i], shs[i]);
  CHECK_MPI(MPI_File_set_view(fh, base + NI * 4, MPI_DOUBLE, MPI_DOUBLE, "external32", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_read_at_all(fh, 0, gd, ND, MPI_DOUBLE, &st));
  CHECK(io_count(&st, MPI_DOUBLE) == ND, "read_at_all count %d doubles", io_count(&st, MPI_DOUBLE));
  for (int i = 0; i < ND; ++i) CHECK(gd[i] == dbls[i], "external32 double %d: got %g, expected %g", i, gd[i], dbls[i]);
  CHECK_MPI(MPI_File_set_view(fh, base, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_read(fh, gi, NI, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == NI, "read count %d ints", io_count(&st, MPI_INT));
  for (int i = 0; i < NI; ++i)
    CHECK(gi[i] == ival(rank, i), "external32 int %d: got %d, expected %d", i, gi[i], ival(rank, i));

  /* As bytes under native: big-endian, as MPI_Pack_external gives. */
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  io_check_view("native bytes", fh, 0, MPI_BYTE, MPI_BYTE, "native");
  unsigned char raw[REG], e[REG], packed[REG];
  CHECK_MPI(MPI_File_read_at(fh, base, raw, REG, MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == REG, "read_at count %d bytes", io_count(&st, MPI_BYTE));
  region_external32(e, rank);
  io_check_bytes("external32.out as bytes", raw, e, REG, base);
  MPI_Aint p = 0;
  CHECK_MPI(MPI_Pack_external("external32", ints, 1, every_other, packed, REG, &p));
  CHECK_MPI(MPI_Pack_external("external32", dbls, ND, MPI_DOUBLE, packed, REG, &p));
  CHECK_MPI(MPI_Pack_external("external32", shs, NS, MPI_SHORT, packed, REG, &p));
  CHECK(p == REG, "MPI_Pack_external packed %ld bytes, expected %d", (long)p, REG);
  io_check_bytes("external32.out vs MPI_Pack_external", raw, packed, REG, base);
  check_extent(fh, MPI_INT, sizeof(int), "MPI_INT under native");
  check_extent(fh, every_other, (2 * NI - 1) * sizeof(int), "vector of ints under native");
  CHECK_MPI(MPI_File_close(&fh));
  if (rank == 0) {
    unsigned char *all = malloc((size_t)size * REG), *exp = malloc((size_t)size * REG);
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_read_at(fh, 0, all, size * REG, MPI_BYTE, &st));
    CHECK(io_count(&st, MPI_BYTE) == size * REG, "external32.out: %d bytes, expected %d", io_count(&st, MPI_BYTE),
          size * REG);
    CHECK_MPI(MPI_File_close(&fh));
    for (int r = 0; r < size; ++r) region_external32(exp + (long)r * REG, r);
    io_check_bytes("external32.out", all, exp, (long)size * REG, 0);
    free(all);
    free(exp);
  }
  MPI_Type_free(&every_other);
  MPI_Type_free(&three_shorts);
  IO_OK(rank, "external32");
}

static void native(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_datarep.native.out");
  io_remove(MPI_COMM_WORLD, path);
  const int R = NI * 4 + ND * 8;
  int ints[NI];
  double dbls[ND];
  unsigned char e[NI * 4 + ND * 8], raw[NI * 4 + ND * 8];
  for (int i = 0; i < NI; ++i) ints[i] = ival(rank, i);
  for (int i = 0; i < ND; ++i) dbls[i] = dval(rank, i);
  memcpy(e, ints, sizeof ints);
  memcpy(e + sizeof ints, dbls, sizeof dbls);
  MPI_File fh;
  MPI_Status st;
  const MPI_Offset base = (MPI_Offset)rank * R;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, base, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  io_check_view("native ints", fh, base, MPI_INT, MPI_INT, "native");
  CHECK_MPI(MPI_File_write_all(fh, ints, NI, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == NI, "write_all count %d", io_count(&st, MPI_INT));
  CHECK_MPI(MPI_File_set_view(fh, base + NI * 4, MPI_DOUBLE, MPI_DOUBLE, "native", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_write_at(fh, 0, dbls, ND, MPI_DOUBLE, &st));
  CHECK(io_count(&st, MPI_DOUBLE) == ND, "write_at count %d", io_count(&st, MPI_DOUBLE));
  io_sync_barrier(fh, MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  const int from = (rank + 1) % size;
  CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)from * R, raw, R, MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == R, "read_at count %d", io_count(&st, MPI_BYTE));
  for (int i = 0; i < NI; ++i) ints[i] = ival(from, i);
  for (int i = 0; i < ND; ++i) dbls[i] = dval(from, i);
  memcpy(e, ints, sizeof ints);
  memcpy(e + sizeof ints, dbls, sizeof dbls);
  io_check_bytes("native.out: the memory bytes", raw, e, R, (long long)from * R);
  CHECK_MPI(MPI_File_close(&fh));
  IO_OK(rank, "native");
}

static void internal(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_datarep.internal.tmp");
  io_remove(MPI_COMM_WORLD, path);
  int ints[NI], gi[NI];
  double dbls[ND], gd[ND];
  for (int i = 0; i < NI; ++i) ints[i] = ival(rank, i);
  for (int i = 0; i < ND; ++i) dbls[i] = dval(rank, i);
  MPI_File fh;
  MPI_Status st;
  MPI_Aint ie = -1, de = -1;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                          MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "internal", MPI_INFO_NULL));
  {
    /* The name given back: "internal", or "native" (MPICH 4.0.2, whose
     * internal is native). */
    MPI_Offset d = -1;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING + 1] = "";
    CHECK_MPI(MPI_File_get_view(fh, &d, &et, &ft, rep));
    CHECK(d == 0 && et == MPI_INT && ft == MPI_INT, "internal view: MPI_File_get_view disp %lld, types not MPI_INT",
          (long long)d);
    CHECK(strcmp(rep, "internal") == 0 || strcmp(rep, "native") == 0,
          "internal view: MPI_File_get_view datarep \"%s\", expected \"internal\"", rep);
  }
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT, &ie));
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_DOUBLE, &de));
  CHECK(ie > 0 && de > 0, "internal extents: MPI_INT %ld, MPI_DOUBLE %ld", (long)ie, (long)de);
  /* Each rank's ints, then its doubles, at offsets from the extents. */
  const MPI_Offset ibase = (MPI_Offset)rank * (NI * ie + ND * de);
  CHECK(ibase % ie == 0, "internal: int extent %ld does not divide a rank's region", (long)ie);
  CHECK_MPI(MPI_File_write_at_all(fh, ibase / ie, ints, NI, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == NI, "write_at_all count %d", io_count(&st, MPI_INT));
  CHECK_MPI(MPI_File_set_view(fh, ibase + NI * ie, MPI_DOUBLE, MPI_DOUBLE, "internal", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_write(fh, dbls, ND, MPI_DOUBLE, &st));
  CHECK(io_count(&st, MPI_DOUBLE) == ND, "write count %d", io_count(&st, MPI_DOUBLE));
  io_sync_barrier(fh, MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_read_at(fh, 0, gd, ND, MPI_DOUBLE, &st));
  CHECK(io_count(&st, MPI_DOUBLE) == ND, "read_at count %d", io_count(&st, MPI_DOUBLE));
  for (int i = 0; i < ND; ++i) CHECK(gd[i] == dbls[i], "internal double %d: got %g, expected %g", i, gd[i], dbls[i]);
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "internal", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_read_at(fh, ibase / ie, gi, NI, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == NI, "read_at count %d", io_count(&st, MPI_INT));
  for (int i = 0; i < NI; ++i) CHECK(gi[i] == ints[i], "internal int %d: got %d, expected %d", i, gi[i], ints[i]);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  IO_OK(rank, "internal");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* dir = io_dir(argc, argv);
  CHECK(sizeof(int) == 4 && sizeof(double) == 8 && sizeof(short) == 2, "unexpected type sizes");
  external32(dir);
  native(dir);
  internal(dir);
  IO_OK(rank, "file_datarep: %d ranks", size);
  MPI_Finalize();
  return 0;
}
