/* "external32" views over types whose size differs in the file (MPI-3.1
 * 13.5.1, 13.5.2): MPI_LONG and MPI_UNSIGNED_LONG are 4 bytes there, 8 in
 * memory on LP64. Etypes and filetypes are then read in the file's sizes:
 * counts and strides in elements scale with them, byte displacements are
 * taken as given, and MPI_File_get_type_extent tells a program the file
 * extent to build them with.
 *  - extents: MPI_File_get_type_extent of types from every constructor.
 *  - longs.out: each rank's longs interleaved by a vector filetype at an
 *    odd displacement, written collectively, then the bytes checked (4-byte
 *    big-endian each), pointers and byte offsets, get_view's types, another
 *    rank's longs read back, a read across the end of the file, a
 *    nonblocking write.
 *  - records.out: struct records {int, long, double} in memory (native
 *    size 20), 16 bytes in the file; an etype built with the file's byte
 *    displacements; written at the individual pointer, read back.
 *  - ordered.out: write_ordered of longs; the shared pointer counts the
 *    file's etypes.
 * Any np >= 1.
 *
 * Not compared with MPICH's bytes: neither MPICH 4.0.2 nor Open MPI 4.1.4
 * lays such a view out in file sizes. With a vector of 3 MPI_LONG
 * (stride np) at displacement 4 * rank + 2 under "external32", np 2, both
 * give the native extent (40, not 20) from MPI_File_get_type_extent; MPICH
 * writes rank 1's second long over rank 0's and reads back rank 1's values
 * on rank 0; Open MPI leaves the individual pointer at 1 after writing 3
 * longs and its status counts MPI_UNDEFINED on the read back. */
#include <stddef.h>
#include <stdint.h>

#include "io_test.h"

#define N 6 /* longs per rank */
#define K 4 /* records per rank */

static int rank, size;

static long lval(int r, int i) { return (i % 2 ? -1L : 1L) * (long)(r * 100003 + i * 7919) - (i == 2 ? 2000000000L : 0); }

static void be32(unsigned char* p, uint32_t v) {
  for (int b = 0; b < 4; ++b) p[b] = (unsigned char)(v >> (24 - 8 * b));
}

static void check_extent(MPI_File fh, MPI_Datatype t, MPI_Aint expect, const char* what) {
  MPI_Aint ext = -1;
  CHECK_MPI(MPI_File_get_type_extent(fh, t, &ext));
  CHECK(ext == expect, "MPI_File_get_type_extent(%s) under external32: %ld, expected %ld", what, (long)ext,
        (long)expect);
}

static void extents(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_datarep_sizes.extents.tmp");
  io_remove(MPI_COMM_WORLD, path);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                          MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
  check_extent(fh, MPI_LONG, 4, "MPI_LONG");
  check_extent(fh, MPI_UNSIGNED_LONG, 4, "MPI_UNSIGNED_LONG");
  check_extent(fh, MPI_LONG_LONG, 8, "MPI_LONG_LONG");
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_contiguous(3, MPI_LONG, &t));
  check_extent(fh, t, 12, "contiguous(3, long)");
  MPI_Type_free(&t);
  CHECK_MPI(MPI_Type_vector(3, 2, 5, MPI_LONG, &t));
  check_extent(fh, t, 48, "vector(3, 2, 5, long)");
  MPI_Type_free(&t);
  CHECK_MPI(MPI_Type_create_hvector(3, 1, 100, MPI_LONG, &t)); /* bytes: as given */
  check_extent(fh, t, 204, "hvector(3, 1, 100 bytes, long)");
  MPI_Type_free(&t);
  int bl[2] = {1, 2}, dl[2] = {0, 4};
  CHECK_MPI(MPI_Type_indexed(2, bl, dl, MPI_LONG, &t));
  check_extent(fh, t, 24, "indexed({1, 2}, {0, 4}, long)");
  MPI_Type_free(&t);
  int sizes[2] = {4, 6}, subs[2] = {2, 3}, starts[2] = {1, 1};
  CHECK_MPI(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_LONG, &t));
  check_extent(fh, t, 96, "subarray(4 x 6 of long)");
  MPI_Type_free(&t);
  int gs = 10, dist = MPI_DISTRIBUTE_BLOCK, darg = MPI_DISTRIBUTE_DFLT_DARG, ps = 2;
  CHECK_MPI(MPI_Type_create_darray(2, 1, 1, &gs, &dist, &darg, &ps, MPI_ORDER_C, MPI_LONG, &t));
  check_extent(fh, t, 40, "darray(10 longs over 2)");
  MPI_Type_free(&t);
  int sbl[3] = {1, 1, 1};
  MPI_Aint sd[3] = {0, 4, 8};
  MPI_Datatype st[3] = {MPI_INT, MPI_LONG, MPI_DOUBLE};
  CHECK_MPI(MPI_Type_create_struct(3, sbl, sd, st, &t));
  check_extent(fh, t, 16, "struct {int @0, long @4, double @8}");
  MPI_Type_free(&t);
  CHECK_MPI(MPI_Type_create_resized(MPI_LONG, 0, 16, &t));
  check_extent(fh, t, 16, "resized(long, 0, 16)");
  MPI_Type_free(&t);
  CHECK_MPI(MPI_Type_contiguous_c(5, MPI_LONG, &t));
  check_extent(fh, t, 20, "contiguous_c(5, long)");
  MPI_Type_free(&t);
  CHECK_MPI(MPI_File_close(&fh));
  IO_OK(rank, "external32 type extents");
}

static void longs(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_datarep_sizes.longs.out");
  io_remove(MPI_COMM_WORLD, path);
  long mine[N], got[N + 1];
  for (int i = 0; i < N; ++i) mine[i] = lval(rank, i);
  /* Every rank's longs, one in np; the tile spans them all (4 * np * N
   * bytes in the file), so that the second starts at the end of the file. */
  MPI_Datatype vec, filetype;
  CHECK_MPI(MPI_Type_vector(N, 1, size, MPI_LONG, &vec));
  CHECK_MPI(MPI_Type_create_resized(vec, 0, 4 * (MPI_Aint)size * N, &filetype));
  CHECK_MPI(MPI_Type_commit(&filetype));
  const MPI_Offset disp = 2 + 4 * (MPI_Offset)rank;
  const MPI_Aint file_extent = 4 * (MPI_Aint)size * N;
  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, disp, MPI_LONG, filetype, "external32", MPI_INFO_NULL));
  check_extent(fh, vec, (MPI_Aint)((N - 1) * size + 1) * 4, "vector(N, 1, np, long)");
  check_extent(fh, filetype, file_extent, "the filetype");
  /* get_view gives the program's types back, not their file layout. */
  MPI_Offset d;
  MPI_Datatype et, ft;
  char rep[MPI_MAX_DATAREP_STRING + 1] = "";
  CHECK_MPI(MPI_File_get_view(fh, &d, &et, &ft, rep));
  CHECK(d == disp && strcmp(rep, "external32") == 0, "get_view: disp %lld rep %s", (long long)d, rep);
  io_check_view_type("get_view's etype", et, MPI_LONG);
  io_check_view_type("get_view's filetype", ft, filetype);

  CHECK_MPI(MPI_File_write_all(fh, mine, N, MPI_LONG, &st));
  CHECK(io_count(&st, MPI_LONG) == N, "write_all count %d, expected %d", io_count(&st, MPI_LONG), N);
  MPI_Offset pos = -1, byte = -1;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == N, "the individual pointer after writing %d longs: %lld", N, (long long)pos);
  CHECK_MPI(MPI_File_get_byte_offset(fh, 1, &byte));
  CHECK(byte == disp + 4 * size, "the byte offset of long 1: %lld, expected %lld", (long long)byte,
        (long long)(disp + 4 * size));
  CHECK_MPI(MPI_File_get_byte_offset(fh, N, &byte));
  CHECK(byte == disp + file_extent, "the byte offset of position %d: %lld, expected %lld", N, (long long)byte,
        (long long)(disp + file_extent));
  io_sync_barrier(fh, MPI_COMM_WORLD);

  /* The bytes: 2 + 4 * (np * N) bytes, every rank's longs 4-byte big-endian. */
  const long total = 2 + 4L * size * N;
  MPI_Offset fsize = -1;
  CHECK_MPI(MPI_File_get_size(fh, &fsize));
  CHECK(fsize == total, "longs.out is %lld bytes, expected %ld", (long long)fsize, total);
  if (rank == 0) {
    unsigned char* expect = calloc((size_t)total, 1);
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < N; ++i) be32(expect + 2 + 4 * (i * size + r), (uint32_t)lval(r, i));
    io_check_file(path, 2, expect + 2, total - 2);  /* its first 2 bytes were never written */
    free(expect);
  }

  /* The next rank's longs through a view like its own; one more asked
   * than there is: a read across the end of the file counts what it got. */
  const int from = (rank + 1) % size;
  CHECK_MPI(MPI_File_set_view(fh, 2 + 4 * (MPI_Offset)from, MPI_LONG, filetype, "external32", MPI_INFO_NULL));
  memset(got, 0, sizeof got);
  CHECK_MPI(MPI_File_read_at_all(fh, 0, got, N, MPI_LONG, &st));
  CHECK(io_count(&st, MPI_LONG) == N, "read_at_all count %d", io_count(&st, MPI_LONG));
  for (int i = 0; i < N; ++i)
    CHECK(got[i] == lval(from, i), "rank %d's long %d: got %ld, expected %ld", from, i, got[i], lval(from, i));
  CHECK_MPI(MPI_File_read_at(fh, N - 1, got, 2, MPI_LONG, &st));
  CHECK(io_count(&st, MPI_LONG) == 1 && got[0] == lval(from, N - 1),
        "a read of 2 longs at the last one: count %d, value %ld", io_count(&st, MPI_LONG), got[0]);

  /* A nonblocking write of the values negated, and a blocking read. */
  CHECK_MPI(MPI_File_set_view(fh, disp, MPI_LONG, filetype, "external32", MPI_INFO_NULL));
  long neg[N];
  for (int i = 0; i < N; ++i) neg[i] = -mine[i];
  MPI_Request req;
  CHECK_MPI(MPI_File_iwrite_at(fh, 0, neg, N, MPI_LONG, &req));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(io_count(&st, MPI_LONG) == N, "iwrite_at count %d", io_count(&st, MPI_LONG));
  CHECK_MPI(MPI_File_read_at(fh, 0, got, N, MPI_LONG, &st));
  for (int i = 0; i < N; ++i) CHECK(got[i] == neg[i], "negated long %d: got %ld, expected %ld", i, got[i], neg[i]);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Type_free(&vec);
  MPI_Type_free(&filetype);
  IO_OK(rank, "external32 view of longs");
}

struct record {
  int a;
  long b;
  double c;
};

static struct record rval(int r, int k) {
  struct record v = {r * 10 + k, -(long)(r * 1000 + k) - 7, r + k / 8.0};
  return v;
}

static void records(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_datarep_sizes.records.out");
  io_remove(MPI_COMM_WORLD, path);
  /* In memory: offsets of the C struct. In the file: 4 + 4 + 8 bytes. */
  int bl[3] = {1, 1, 1};
  MPI_Datatype types[3] = {MPI_INT, MPI_LONG, MPI_DOUBLE}, memtype, etype, filetype;
  MPI_Aint mem_d[3] = {offsetof(struct record, a), offsetof(struct record, b), offsetof(struct record, c)};
  MPI_Aint file_d[3] = {0, 4, 8};
  CHECK_MPI(MPI_Type_create_struct(3, bl, mem_d, types, &memtype));
  CHECK_MPI(MPI_Type_commit(&memtype));
  CHECK_MPI(MPI_Type_create_struct(3, bl, file_d, types, &etype));
  CHECK_MPI(MPI_Type_commit(&etype));
  CHECK_MPI(MPI_Type_create_resized(etype, 0, 16 * (MPI_Aint)size, &filetype)); /* bytes: the file's */
  CHECK_MPI(MPI_Type_commit(&filetype));
  struct record mine[K], got[K];
  for (int k = 0; k < K; ++k) mine[k] = rval(rank, k);
  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 16 * (MPI_Offset)rank, etype, filetype, "external32", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_write(fh, mine, K, memtype, &st));
  CHECK(io_count(&st, memtype) == K, "write of %d records: count %d", K, io_count(&st, memtype));
  io_sync_barrier(fh, MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  memset(got, 0, sizeof got);
  CHECK_MPI(MPI_File_read(fh, got, K, memtype, &st));
  CHECK(io_count(&st, memtype) == K, "read of %d records: count %d", K, io_count(&st, memtype));
  for (int k = 0; k < K; ++k)
    CHECK(got[k].a == mine[k].a && got[k].b == mine[k].b && got[k].c == mine[k].c,
          "record %d read back: {%d, %ld, %g}, expected {%d, %ld, %g}", k, got[k].a, got[k].b, got[k].c, mine[k].a,
          mine[k].b, mine[k].c);
  CHECK_MPI(MPI_File_close(&fh));
  if (rank == 0) {
    const long total = 16L * size * K;
    unsigned char* expect = calloc((size_t)total, 1);
    for (int r = 0; r < size; ++r)
      for (int k = 0; k < K; ++k) {
        unsigned char* p = expect + 16 * (k * size + r);
        struct record v = rval(r, k);
        uint64_t c;
        memcpy(&c, &v.c, 8);
        be32(p, (uint32_t)v.a);
        be32(p + 4, (uint32_t)v.b);
        be32(p + 8, (uint32_t)(c >> 32));
        be32(p + 12, (uint32_t)c);
      }
    io_check_file(path, 0, expect, total);
    free(expect);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Type_free(&memtype);
  MPI_Type_free(&etype);
  MPI_Type_free(&filetype);
  IO_OK(rank, "external32 struct records (20 bytes in memory, 16 in the file)");
}

static void ordered(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_datarep_sizes.ordered.out");
  io_remove(MPI_COMM_WORLD, path);
  long mine[N];
  for (int i = 0; i < N; ++i) mine[i] = lval(rank, i);
  int n = rank % 3 + 1; /* ranks write different counts */
  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_write_ordered(fh, mine, n, MPI_LONG, &st));
  CHECK(io_count(&st, MPI_LONG) == n, "write_ordered count %d", io_count(&st, MPI_LONG));
  MPI_Offset shared = -1;
  int all = 0;
  MPI_Allreduce(&n, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_get_position_shared(fh, &shared));
  CHECK(shared == all, "the shared pointer after write_ordered: %lld, expected %d longs", (long long)shared, all);
  CHECK_MPI(MPI_File_close(&fh));
  if (rank == 0) {
    unsigned char* expect = calloc(4 * (size_t)all, 1);
    for (int r = 0, at = 0; r < size; ++r)
      for (int i = 0; i < r % 3 + 1; ++i, ++at) be32(expect + 4 * at, (uint32_t)lval(r, i));
    io_check_file(path, 0, expect, 4L * all);
    free(expect);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  IO_OK(rank, "external32 write_ordered of longs");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* dir = io_dir(argc, argv);
  CHECK(sizeof(long) == 8 && sizeof(int) == 4 && sizeof(double) == 8, "an LP64 machine: long %d bytes",
        (int)sizeof(long));
  extents(dir);
  longs(dir);
  records(dir);
  ordered(dir);
  IO_OK(rank, "file_datarep_sizes: %d ranks", size);
  MPI_Finalize();
  return 0;
}
