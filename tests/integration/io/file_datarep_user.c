/* User-defined data representations (MPI-3.1 13.5.3): MPI_Register_datarep
 * with conversion functions and a file-extent function, each given its
 * extra_state; registering a name twice fails with MPI_ERR_DUP_DATAREP.
 *  - plus1000.out: "lz_plus1000" stores each int as native int + 1000 (same
 *    extent); the ranks' ints interleaved by a resized filetype, written
 *    collectively, read back under it (the values) and under "native" (the
 *    values + 1000).
 *  - be64.out: "lz_be64" stores each int as an 8-byte big-endian integer
 *    (file extent 8): a representation that changes a type's size. The
 *    ranks' ints interleaved by a vector filetype, whose stride is then 8
 *    bytes an int in the file; the bytes checked, read back.
 *  - failing.tmp: "lz_failing"'s functions return an error: a write and a
 *    read under it fail with MPI_ERR_CONVERSION.
 * The conversion functions handle any position and count (MPI may convert a
 * buffer in pieces) and check the datatype they are given is the MPI_INT the
 * program passes. Any np >= 1.
 *
 * Separate from file_datarep.c because neither MPICH 4.0.2 nor Open MPI
 * 4.1.4 implement user representations (MPI_Register_datarep fails), so
 * this program is not compared with theirs. */
#include <stdint.h>
#include <stdlib.h>

#include "io_test.h"

#define N 10 /* ints per rank */

static int rank, size;

/* Wide values, some past INT_MIN (wrapped: GCC converts modulo 2^32). */
static int ival(int r, int i) {
  return (int)((i % 2 ? -1LL : 1LL) * (r * 1000003LL + i * 17) - (i == 3 ? 2147480000LL : 0));
}

struct conv_state {
  const char* name;
  int reads, writes, extents; /* calls seen */
  long items_read, items_written;
};
static struct conv_state plus_state = {"lz_plus1000", 0, 0, 0, 0, 0}, be64_state = {"lz_be64", 0, 0, 0, 0, 0};

/* The datatype given to a conversion function is equivalent to MPI_INT. */
static int is_int(MPI_Datatype dt) {
  int sz = -1;
  MPI_Aint lb = -1, ext = -1;
  if (dt == MPI_INT) return 1;
  if (MPI_Type_size(dt, &sz) != MPI_SUCCESS || MPI_Type_get_extent(dt, &lb, &ext) != MPI_SUCCESS) return 0;
  return sz == 4 && lb == 0 && ext == 4;
}

static int plus_write(void* userbuf, MPI_Datatype dt, int count, void* filebuf, MPI_Offset position,
                      void* extra_state) {
  struct conv_state* s = extra_state;
  if (s != &plus_state || !is_int(dt) || count < 0 || position < 0) return MPI_ERR_ARG;
  ++s->writes;
  s->items_written += count;
  const int* u = (const int*)userbuf + position;
  for (int i = 0; i < count; ++i) {
    int v = (int)((unsigned)u[i] + 1000u);
    memcpy((char*)filebuf + 4 * i, &v, 4);
  }
  return MPI_SUCCESS;
}

static int plus_read(void* userbuf, MPI_Datatype dt, int count, void* filebuf, MPI_Offset position, void* extra_state) {
  struct conv_state* s = extra_state;
  if (s != &plus_state || !is_int(dt) || count < 0 || position < 0) return MPI_ERR_ARG;
  ++s->reads;
  s->items_read += count;
  int* u = (int*)userbuf + position;
  for (int i = 0; i < count; ++i) {
    int v;
    memcpy(&v, (const char*)filebuf + 4 * i, 4);
    u[i] = (int)((unsigned)v - 1000u);
  }
  return MPI_SUCCESS;
}

static int plus_extent(MPI_Datatype dt, MPI_Aint* file_extent, void* extra_state) {
  struct conv_state* s = extra_state;
  if (s != &plus_state) return MPI_ERR_ARG;
  ++s->extents;
  MPI_Aint lb;
  return MPI_Type_get_extent(dt, &lb, file_extent); /* predefined types only: as native */
}

static int be64_write(void* userbuf, MPI_Datatype dt, int count, void* filebuf, MPI_Offset position,
                      void* extra_state) {
  struct conv_state* s = extra_state;
  if (s != &be64_state || !is_int(dt) || count < 0 || position < 0) return MPI_ERR_ARG;
  ++s->writes;
  s->items_written += count;
  const int* u = (const int*)userbuf + position;
  unsigned char* f = filebuf;
  for (int i = 0; i < count; ++i) {
    uint64_t v = (uint64_t)(int64_t)u[i];
    for (int b = 0; b < 8; ++b) f[8 * i + b] = (unsigned char)(v >> (56 - 8 * b));
  }
  return MPI_SUCCESS;
}

static int be64_read(void* userbuf, MPI_Datatype dt, int count, void* filebuf, MPI_Offset position, void* extra_state) {
  struct conv_state* s = extra_state;
  if (s != &be64_state || !is_int(dt) || count < 0 || position < 0) return MPI_ERR_ARG;
  ++s->reads;
  s->items_read += count;
  int* u = (int*)userbuf + position;
  const unsigned char* f = filebuf;
  for (int i = 0; i < count; ++i) {
    uint64_t v = 0;
    for (int b = 0; b < 8; ++b) v = v << 8 | f[8 * i + b];
    u[i] = (int)(int64_t)v;
  }
  return MPI_SUCCESS;
}

static int be64_extent(MPI_Datatype dt, MPI_Aint* file_extent, void* extra_state) {
  struct conv_state* s = extra_state;
  if (s != &be64_state || dt != MPI_INT) return MPI_ERR_ARG; /* the program uses ints only */
  ++s->extents;
  *file_extent = 8;
  return MPI_SUCCESS;
}

static int fail_conv(void* userbuf, MPI_Datatype dt, int count, void* filebuf, MPI_Offset position, void* extra_state) {
  (void)userbuf, (void)dt, (void)count, (void)filebuf, (void)position, (void)extra_state;
  return MPI_ERR_OTHER;
}

static void check_ints(const char* what, const int* got, int from, int n) {
  for (int i = 0; i < n; ++i)
    CHECK(got[i] == ival(from, i), "%s: rank %d's int %d: got %d, expected %d", what, from, i, got[i], ival(from, i));
}

static void check_datarep(MPI_File fh, const char* expect) {
  MPI_Offset d;
  MPI_Datatype et, ft;
  char rep[MPI_MAX_DATAREP_STRING + 1] = "";
  CHECK_MPI(MPI_File_get_view(fh, &d, &et, &ft, rep));
  CHECK(strcmp(rep, expect) == 0, "MPI_File_get_view datarep \"%s\", expected \"%s\"", rep, expect);
  int ni, na, nd, comb;
  CHECK_MPI(MPI_Type_get_envelope(et, &ni, &na, &nd, &comb));
  if (comb != MPI_COMBINER_NAMED) MPI_Type_free(&et);
  CHECK_MPI(MPI_Type_get_envelope(ft, &ni, &na, &nd, &comb));
  if (comb != MPI_COMBINER_NAMED) MPI_Type_free(&ft);
}

static void plus1000(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_datarep_user.plus1000.out");
  io_remove(MPI_COMM_WORLD, path);
  int mine[N], got[N];
  for (int i = 0; i < N; ++i) mine[i] = ival(rank, i);
  MPI_Datatype filetype;
  CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, (MPI_Aint)size * 4, &filetype));
  CHECK_MPI(MPI_Type_commit(&filetype));
  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)rank * 4, MPI_INT, filetype, "lz_plus1000", MPI_INFO_NULL));
  check_datarep(fh, "lz_plus1000");
  MPI_Aint ext = -1;
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT, &ext));
  CHECK(ext == 4, "get_type_extent(MPI_INT) under lz_plus1000: %ld, expected 4", (long)ext);
  CHECK(plus_state.extents > 0, "lz_plus1000's extent function was never called");
  CHECK_MPI(MPI_File_write_at_all(fh, 0, mine, N, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == N, "write_at_all count %d", io_count(&st, MPI_INT));
  CHECK(plus_state.writes > 0 && plus_state.items_written >= N,
        "lz_plus1000's write conversion: %d calls, %ld items, expected at least %d items", plus_state.writes,
        plus_state.items_written, N);
  io_sync_barrier(fh, MPI_COMM_WORLD);
  const int from = (rank + 1) % size;
  /* The next rank's ints through a view like its own. */
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)from * 4, MPI_INT, filetype, "lz_plus1000", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_read_at_all(fh, 0, got, N, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == N, "read_at_all count %d", io_count(&st, MPI_INT));
  CHECK(plus_state.reads > 0 && plus_state.items_read >= N, "lz_plus1000's read conversion: %d calls, %ld items",
        plus_state.reads, plus_state.items_read);
  check_ints("read under lz_plus1000", got, from, N);
  /* The same under native: + 1000. */
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)from * 4, MPI_INT, filetype, "native", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_read_at(fh, 0, got, N, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == N, "read_at count %d", io_count(&st, MPI_INT));
  for (int i = 0; i < N; ++i)
    CHECK(got[i] == (int)((unsigned)ival(from, i) + 1000u), "native read of rank %d's int %d: got %d, expected %d",
          from, i, got[i], (int)((unsigned)ival(from, i) + 1000u));
  CHECK_MPI(MPI_File_close(&fh));
  if (rank == 0) {
    int* all = malloc(sizeof(int) * N * size);
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_read_at(fh, 0, all, N * size + 1, MPI_INT, &st));
    CHECK(io_count(&st, MPI_INT) == N * size, "plus1000.out: %d ints, expected %d", io_count(&st, MPI_INT), N * size);
    CHECK_MPI(MPI_File_close(&fh));
    for (int i = 0; i < N; ++i)
      for (int r = 0; r < size; ++r)
        CHECK(all[i * size + r] == (int)((unsigned)ival(r, i) + 1000u),
              "plus1000.out: int at file offset %d: got %d, expected %d", 4 * (i * size + r), all[i * size + r],
              (int)((unsigned)ival(r, i) + 1000u));
    free(all);
  }
  MPI_Type_free(&filetype);
  IO_OK(rank, "lz_plus1000 (same extent)");
}

/* A representation that changes a type's size: each int is 8 bytes in the
 * file, so the view's vector filetype (stride np ints) strides 8 * np
 * bytes there, MPI_File_get_type_extent says so, and the file holds every
 * rank's ints as 8-byte big-endian integers, interleaved. */
static void be64(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_datarep_user.be64.out");
  io_remove(MPI_COMM_WORLD, path);
  int mine[N], got[N];
  for (int i = 0; i < N; ++i) mine[i] = ival(rank, i);
  MPI_Datatype vec, filetype;
  CHECK_MPI(MPI_Type_vector(N, 1, size, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_create_resized(vec, 0, 8 * (MPI_Aint)size * N, &filetype)); /* bytes: the file's */
  CHECK_MPI(MPI_Type_commit(&filetype));
  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 8 * (MPI_Offset)rank, MPI_INT, filetype, "lz_be64", MPI_INFO_NULL));
  CHECK(be64_state.extents > 0, "lz_be64's extent function was never called");
  check_datarep(fh, "lz_be64");
  MPI_Aint ext = -1;
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT, &ext));
  CHECK(ext == 8, "get_type_extent(MPI_INT) under lz_be64: %ld, expected 8", (long)ext);
  CHECK_MPI(MPI_File_get_type_extent(fh, vec, &ext));
  CHECK(ext == 8 * ((N - 1) * size + 1), "get_type_extent(vector) under lz_be64: %ld, expected %d", (long)ext,
        8 * ((N - 1) * size + 1));
  CHECK_MPI(MPI_File_write_all(fh, mine, N, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == N, "write_all count %d", io_count(&st, MPI_INT));
  CHECK(be64_state.writes > 0 && be64_state.items_written >= N, "lz_be64's write conversion: %d calls, %ld items",
        be64_state.writes, be64_state.items_written);
  MPI_Offset byte = -1;
  CHECK_MPI(MPI_File_get_byte_offset(fh, 1, &byte));
  CHECK(byte == 8 * (rank + size), "byte offset of int 1: %lld, expected %d", (long long)byte, 8 * (rank + size));
  io_sync_barrier(fh, MPI_COMM_WORLD);
  const int from = (rank + 1) % size;
  CHECK_MPI(MPI_File_set_view(fh, 8 * (MPI_Offset)from, MPI_INT, filetype, "lz_be64", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_read_at_all(fh, 0, got, N, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == N, "read_at_all count %d", io_count(&st, MPI_INT));
  check_ints("read under lz_be64", got, from, N);
  CHECK_MPI(MPI_File_close(&fh));
  if (rank == 0) {
    const long total = 8L * N * size;
    unsigned char* expect = calloc((size_t)total, 1);
    for (int i = 0; i < N; ++i)
      for (int r = 0; r < size; ++r) {
        const uint64_t v = (uint64_t)(int64_t)ival(r, i);
        for (int b = 0; b < 8; ++b) expect[8 * (i * size + r) + b] = (unsigned char)(v >> (56 - 8 * b));
      }
    io_check_file(path, 0, expect, total);
    free(expect);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Type_free(&vec);
  MPI_Type_free(&filetype);
  IO_OK(rank, "lz_be64 (file extent 8 an int)");
}

static void failing(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_datarep_user.failing.tmp");
  io_remove(MPI_COMM_WORLD, path);
  int v[4] = {1, 2, 3, 4};
  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                          MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_write_at(fh, 16 * rank, v, 4, MPI_INT, &st));
  io_sync_barrier(fh, MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "lz_failing", MPI_INFO_NULL));
  CHECK_MPI_ERR(MPI_File_write_at(fh, 4 * rank, v, 4, MPI_INT, &st), MPI_ERR_CONVERSION);
  CHECK_MPI_ERR(MPI_File_read_at(fh, 4 * rank, v, 4, MPI_INT, &st), MPI_ERR_CONVERSION);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  IO_OK(rank, "conversion errors");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* dir = io_dir(argc, argv);
  CHECK(sizeof(int) == 4, "int is %d bytes", (int)sizeof(int));
  /* Errors of MPI_Register_datarep may be raised on MPI_COMM_WORLD. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_MPI(MPI_Register_datarep("lz_plus1000", plus_read, plus_write, plus_extent, &plus_state));
  CHECK_MPI(MPI_Register_datarep("lz_be64", be64_read, be64_write, be64_extent, &be64_state));
  CHECK_MPI(MPI_Register_datarep("lz_failing", fail_conv, fail_conv, plus_extent, &plus_state));
  CHECK_MPI_ERR(MPI_Register_datarep("lz_plus1000", plus_read, plus_write, plus_extent, &plus_state),
                MPI_ERR_DUP_DATAREP);
  IO_OK(rank, "MPI_Register_datarep");
  plus1000(dir);
  be64(dir);
  failing(dir);
  IO_OK(rank, "file_datarep_user: %d ranks", size);
  MPI_Finalize();
  return 0;
}
