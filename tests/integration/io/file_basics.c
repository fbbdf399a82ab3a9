/* File manipulation (MPI-3.1 13.2) and the file error handlers (8.3.3,
 * 13.7): MPI_File_open's access modes and its errors (a missing file,
 * MPI_MODE_EXCL on an existing file, contradictory modes), MPI_File_delete,
 * MPI_MODE_DELETE_ON_CLOSE, MPI_MODE_UNIQUE_OPEN, MPI_MODE_APPEND (both
 * pointers start at the end), MPI_File_set_size / get_size / preallocate,
 * get_group, get_amode, set_info / get_info, the error handlers (the default
 * MPI_ERRORS_RETURN, MPI_ERRORS_ARE_FATAL set and taken back, a user handler
 * called by MPI_File_call_errhandler and by a failing call), MPI_File_c2f /
 * f2c, MPI_File_sync, set_atomicity / get_atomicity, get_type_extent; a file
 * of each rank's own over MPI_COMM_SELF. Every byte read is checked. Any
 * np >= 1.
 *
 * Outputs: file_basics.main.out (records, then appended ones),
 * file_basics.size.out, file_basics.unique.out, file_basics.self.<rank>.out. */
#include <stdlib.h>

#include "io_test.h"

#define REC 256 /* bytes of a rank's record in main.out */

static int rank, size;

static long app_len(int r) { return 10 + 3 * r; } /* bytes rank r appends */

static void fill(unsigned char* b, long n, int src, int seq) {
  for (long i = 0; i < n; ++i) b[i] = lz_pattern(src, seq, i);
}

/* The user error handler's record of its calls. */
static int handler_calls = 0, handler_last_class = -1;
static MPI_File handler_last_file = MPI_FILE_NULL;
static void user_handler(MPI_File* fh, int* code, ...) {
  ++handler_calls;
  handler_last_file = *fh;
  MPI_Error_class(*code, &handler_last_class);
}

/* Collective: opening path read-only fails with MPI_ERR_NO_SUCH_FILE. */
static void check_missing(const char* path, const char* why) {
  MPI_File fh = MPI_FILE_NULL;
  int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_NO_SUCH_FILE, "%s: opening %s read-only: error class %d, expected MPI_ERR_NO_SUCH_FILE (%d)",
        why, path, cls, MPI_ERR_NO_SUCH_FILE);
  CHECK(fh == MPI_FILE_NULL, "%s: a failed MPI_File_open gave a file handle", why);
}

/* Every rank reads the whole of a file of n bytes and compares. */
static void check_file(const char* path, const unsigned char* expect, long n) {
  MPI_File fh;
  MPI_Status st;
  MPI_Offset sz = -1;
  unsigned char* got = malloc(n + 16);
  CHECK(n >= 4, "check_file: %ld bytes", n);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == n, "%s: MPI_File_get_size %lld, expected %ld", path, (long long)sz, n);
  CHECK_MPI(MPI_File_read_at_all(fh, 0, got, (int)n, MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == n, "%s: read %d bytes of %ld", path, io_count(&st, MPI_BYTE), n);
  io_check_bytes(path, got, expect, n, 0);
  /* Near the end of file a read stops there (independent: MPICH 4.0.2's
   * MPI_File_read_at_all counts the bytes asked for past the end). */
  CHECK_MPI(MPI_File_read_at(fh, n - 4, got, 16, MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == 4, "%s: read_at of 16 bytes 4 before the end: count %d", path,
        io_count(&st, MPI_BYTE));
  io_check_bytes(path, got, expect + n - 4, 4, n - 4);
  CHECK_MPI(MPI_File_close(&fh));
  free(got);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* dir = io_dir(argc, argv);
  char main_out[IO_PATH_MAX], size_out[IO_PATH_MAX], unique_out[IO_PATH_MAX], self_out[IO_PATH_MAX],
      excl_tmp[IO_PATH_MAX], doc_tmp[IO_PATH_MAX], name[64];
  io_path(main_out, dir, "file_basics.main.out");
  io_path(size_out, dir, "file_basics.size.out");
  io_path(unique_out, dir, "file_basics.unique.out");
  snprintf(name, sizeof name, "file_basics.self.%d.out", rank);
  io_path(self_out, dir, name);
  io_path(excl_tmp, dir, "file_basics.excl.tmp");
  io_path(doc_tmp, dir, "file_basics.delete_on_close.tmp");
  MPI_File fh = MPI_FILE_NULL;
  MPI_Status st;
  MPI_Offset off = -1, sz = -1;
  int amode = -1, flag = -1;

  /* Files' errors return by default: MPI_FILE_NULL's handler. */
  MPI_Errhandler eh;
  CHECK_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "the error handler of MPI_FILE_NULL is not MPI_ERRORS_RETURN");
  CHECK_MPI(MPI_Errhandler_free(&eh));
  io_remove(MPI_COMM_WORLD, main_out);
  io_remove(MPI_COMM_WORLD, size_out);
  io_remove(MPI_COMM_WORLD, unique_out);
  io_remove(MPI_COMM_SELF, self_out);
  io_remove(MPI_COMM_WORLD, excl_tmp);
  io_remove(MPI_COMM_WORLD, doc_tmp);
  MPI_Barrier(MPI_COMM_WORLD);

  /* Open errors: a missing file, contradictory access modes (which create
   * nothing, not even with MPI_MODE_CREATE). */
  check_missing(excl_tmp, "a missing file");
  const int bad[] = {MPI_MODE_RDONLY | MPI_MODE_RDWR,
                     MPI_MODE_RDWR | MPI_MODE_WRONLY,
                     MPI_MODE_RDONLY | MPI_MODE_WRONLY,
                     MPI_MODE_RDONLY | MPI_MODE_CREATE,
                     MPI_MODE_RDONLY | MPI_MODE_EXCL,
                     MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL,
                     MPI_MODE_CREATE};
  for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    int rc = MPI_File_open(MPI_COMM_WORLD, excl_tmp, bad[i], MPI_INFO_NULL, &fh), cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_AMODE, "MPI_File_open with amode %d: error class %d, expected MPI_ERR_AMODE (%d)", bad[i], cls,
          MPI_ERR_AMODE);
    CHECK(fh == MPI_FILE_NULL, "a failed MPI_File_open gave a file handle");
  }
  check_missing(excl_tmp, "after the refused amodes");
  IO_OK(rank, "open errors (missing file, bad amodes)");

  /* MPI_MODE_EXCL: creates, then refuses an existing file. */
  const int excl_mode = MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_EXCL;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, excl_tmp, excl_mode, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_get_amode(fh, &amode));
  CHECK(amode == excl_mode, "MPI_File_get_amode %d, expected %d", amode, excl_mode);
  {
    unsigned char b[8], g[8];
    fill(b, 8, rank, 9);
    CHECK_MPI(MPI_File_write_at(fh, 8 * rank, b, 8, MPI_BYTE, &st));
    CHECK(io_count(&st, MPI_BYTE) == 8, "write_at count %d", io_count(&st, MPI_BYTE));
    CHECK_MPI(MPI_File_read_at(fh, 8 * rank, g, 8, MPI_BYTE, &st));
    CHECK(io_count(&st, MPI_BYTE) == 8, "read_at count %d", io_count(&st, MPI_BYTE));
    io_check_bytes("excl file", g, b, 8, 8 * rank);
  }
  CHECK_MPI(MPI_File_close(&fh));
  CHECK(fh == MPI_FILE_NULL, "MPI_File_close did not set the handle to MPI_FILE_NULL");
  CHECK_MPI_ERR(MPI_File_open(MPI_COMM_WORLD, excl_tmp, excl_mode, MPI_INFO_NULL, &fh), MPI_ERR_FILE_EXISTS);
  CHECK(fh == MPI_FILE_NULL, "a failed MPI_File_open gave a file handle");
  /* MPI_File_delete is not collective: rank 0 deletes, everyone then finds
   * the file gone, and deleting it again fails. */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK_MPI(MPI_File_delete(excl_tmp, MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD);
  check_missing(excl_tmp, "after MPI_File_delete");
  if (rank == size - 1) CHECK_MPI_ERR(MPI_File_delete(excl_tmp, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
  MPI_Barrier(MPI_COMM_WORLD);
  IO_OK(rank, "MPI_MODE_EXCL, MPI_File_delete");

  /* main.out: write-only with hints; the handle's queries. */
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "access_style", "write_once,random"));
  CHECK_MPI(MPI_Info_set(info, "lazarus_io_test_unknown_hint", "ignored"));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, main_out, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh));
  CHECK_MPI(MPI_Info_free(&info));
  CHECK(fh != MPI_FILE_NULL, "MPI_File_open gave MPI_FILE_NULL");
  CHECK_MPI(MPI_File_get_amode(fh, &amode));
  CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_WRONLY), "MPI_File_get_amode %d, expected %d", amode,
        MPI_MODE_CREATE | MPI_MODE_WRONLY);
  {
    MPI_Group fg, wg;
    int cmp = -1;
    CHECK_MPI(MPI_File_get_group(fh, &fg));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    CHECK_MPI(MPI_Group_compare(fg, wg, &cmp));
    CHECK(cmp == MPI_IDENT, "MPI_File_get_group vs MPI_COMM_WORLD's group: %d, expected MPI_IDENT", cmp);
    MPI_Group_free(&fg);
    MPI_Group_free(&wg);
  }
  {
    unsigned char rec[REC];
    fill(rec, REC, rank, 0);
    CHECK_MPI(MPI_File_write_at(fh, (MPI_Offset)rank * REC, rec, REC, MPI_BYTE, &st));
    CHECK(io_count(&st, MPI_BYTE) == REC, "write_at count %d, expected %d", io_count(&st, MPI_BYTE), REC);
  }
  /* Hints: get_info gives a new info object (whatever hints it holds). */
  for (int round = 0; round < 2; ++round) {
    MPI_Info got = MPI_INFO_NULL;
    int nkeys = -1;
    CHECK_MPI(MPI_File_get_info(fh, &got));
    CHECK(got != MPI_INFO_NULL, "MPI_File_get_info gave MPI_INFO_NULL");
    CHECK_MPI(MPI_Info_get_nkeys(got, &nkeys));
    CHECK(nkeys >= 0, "MPI_Info_get_nkeys %d", nkeys);
    for (int k = 0; k < nkeys; ++k) {
      char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
      int vlen = -1, found = 0;
      CHECK_MPI(MPI_Info_get_nthkey(got, k, key));
      CHECK_MPI(MPI_Info_get_valuelen(got, key, &vlen, &found));
      CHECK(found && vlen >= 0 && vlen <= MPI_MAX_INFO_VAL, "hint %s: valuelen %d found %d", key, vlen, found);
      CHECK_MPI(MPI_Info_get(got, key, MPI_MAX_INFO_VAL, val, &found));
      CHECK(found, "hint %s listed but not found", key);
    }
    CHECK_MPI(MPI_Info_free(&got));
    CHECK(got == MPI_INFO_NULL, "MPI_Info_free");
    if (round == 0) { /* set_info is collective; the hints may be ignored */
      MPI_Info set;
      CHECK_MPI(MPI_Info_create(&set));
      CHECK_MPI(MPI_Info_set(set, "access_style", "write_mostly"));
      CHECK_MPI(MPI_File_set_info(fh, set));
      CHECK_MPI(MPI_Info_free(&set));
    }
  }
  IO_OK(rank, "open, get_amode, get_group, get_info / set_info");

  /* Error handlers on a file: MPI_ERRORS_RETURN by default (inherited from
   * MPI_FILE_NULL), MPI_ERRORS_ARE_FATAL set and taken back, a user one. */
  CHECK_MPI(MPI_File_get_errhandler(fh, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "a new file's error handler is not MPI_ERRORS_RETURN");
  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_ARE_FATAL));
  CHECK_MPI(MPI_File_get_errhandler(fh, &eh));
  CHECK(eh == MPI_ERRORS_ARE_FATAL, "MPI_File_get_errhandler after setting MPI_ERRORS_ARE_FATAL");
  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_File_get_errhandler(fh, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "MPI_File_get_errhandler after setting MPI_ERRORS_RETURN back");
  CHECK_MPI(MPI_Errhandler_free(&eh));
  {
    unsigned char b[4];
    /* Reading a write-only file: an error returned (MPI_ERR_ACCESS, as MPICH
     * and Open MPI give), the file unchanged. */
    CHECK_MPI_ERR(MPI_File_read_at(fh, 0, b, 4, MPI_BYTE, &st), MPI_ERR_ACCESS);
    MPI_Errhandler user;
    CHECK_MPI(MPI_File_create_errhandler(user_handler, &user));
    CHECK_MPI(MPI_File_set_errhandler(fh, user));
    CHECK_MPI(MPI_File_get_errhandler(fh, &eh));
    CHECK(eh == user, "MPI_File_get_errhandler does not give the user handler set");
    CHECK_MPI(MPI_Errhandler_free(&eh));
    MPI_File_call_errhandler(fh, MPI_ERR_OTHER);
    CHECK(handler_calls == 1 && handler_last_file == fh && handler_last_class == MPI_ERR_OTHER,
          "MPI_File_call_errhandler: %d calls, class %d, same file %d", handler_calls, handler_last_class,
          handler_last_file == fh);
    int rc = MPI_File_read_at(fh, 0, b, 4, MPI_BYTE, &st), cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    CHECK(
        handler_calls == 2 && handler_last_file == fh && handler_last_class == MPI_ERR_ACCESS && cls == MPI_ERR_ACCESS,
        "a failing read_at under the user handler: %d calls, class %d, returned class %d", handler_calls,
        handler_last_class, cls);
    CHECK_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Errhandler_free(&user));
    CHECK(user == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free");
  }
  IO_OK(rank, "file error handlers");

  /* Handle conversion. */
  {
    MPI_Fint f = MPI_File_c2f(fh);
    CHECK(MPI_File_f2c(f) == fh, "MPI_File_f2c(MPI_File_c2f(fh)) != fh");
    CHECK(MPI_File_f2c(MPI_File_c2f(MPI_FILE_NULL)) == MPI_FILE_NULL, "MPI_FILE_NULL does not convert back");
  }
  /* Sync, atomicity (false by default). */
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 0, "MPI_File_get_atomicity %d on a new file, expected 0", flag);
  CHECK_MPI(MPI_File_set_atomicity(fh, 1));
  CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 1, "MPI_File_get_atomicity %d after setting 1", flag);
  CHECK_MPI(MPI_File_set_atomicity(fh, 0));
  CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 0, "MPI_File_get_atomicity %d after setting 0", flag);
  /* Extents in the file's (native) representation. */
  {
    MPI_Aint ext = -1;
    MPI_Datatype vec, st2, res;
    CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT, &ext));
    CHECK(ext == (MPI_Aint)sizeof(int), "get_type_extent(MPI_INT) %ld", (long)ext);
    CHECK_MPI(MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext));
    CHECK(ext == (MPI_Aint)sizeof(double), "get_type_extent(MPI_DOUBLE) %ld", (long)ext);
    CHECK_MPI(MPI_File_get_type_extent(fh, MPI_CHAR, &ext));
    CHECK(ext == 1, "get_type_extent(MPI_CHAR) %ld", (long)ext);
    CHECK_MPI(MPI_Type_vector(3, 2, 5, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec)); /* MPICH 4.0.2 requires committed types here */
    CHECK_MPI(MPI_File_get_type_extent(fh, vec, &ext));
    CHECK(ext == 12 * (MPI_Aint)sizeof(int), "get_type_extent(vector 3x2/5 ints) %ld", (long)ext);
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 16};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    CHECK_MPI(MPI_Type_create_struct(2, bl, disp, types, &st2));
    CHECK_MPI(MPI_Type_create_resized(st2, 0, 40, &res));
    CHECK_MPI(MPI_Type_commit(&res));
    CHECK_MPI(MPI_File_get_type_extent(fh, res, &ext));
    CHECK(ext == 40, "get_type_extent(struct resized to 40) %ld", (long)ext);
    MPI_Type_free(&vec);
    MPI_Type_free(&st2);
    MPI_Type_free(&res);
  }
  CHECK_MPI(MPI_File_close(&fh));
  CHECK(fh == MPI_FILE_NULL, "MPI_File_close did not set the handle to MPI_FILE_NULL");
  IO_OK(rank, "c2f / f2c, sync, atomicity, get_type_extent");

  /* main.out read-only: its contents, its size; writing is refused. */
  long main_len = (long)size * REC;
  for (int r = 0; r < size; ++r) main_len += app_len(r);
  unsigned char* expect = malloc(main_len);
  for (int r = 0; r < size; ++r) fill(expect + (long)r * REC, REC, r, 0);
  check_file(main_out, expect, (long)size * REC);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, main_out, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_get_amode(fh, &amode));
  CHECK(amode == MPI_MODE_RDONLY, "MPI_File_get_amode %d, expected MPI_MODE_RDONLY %d", amode, MPI_MODE_RDONLY);
  {
    unsigned char b[4] = {1, 2, 3, 4};
    CHECK_MPI_ERR(MPI_File_write_at(fh, 0, b, 4, MPI_BYTE, &st), MPI_ERR_READ_ONLY);
  }
  CHECK_MPI(MPI_File_close(&fh));

  /* MPI_MODE_APPEND: both pointers start at the end; rank-ordered appends. */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, main_out, MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_get_position(fh, &off));
  CHECK(off == (MPI_Offset)size * REC, "MPI_MODE_APPEND: individual pointer at %lld, expected %lld", (long long)off,
        (long long)size * REC);
  CHECK_MPI(MPI_File_get_position_shared(fh, &off));
  CHECK(off == (MPI_Offset)size * REC, "MPI_MODE_APPEND: shared pointer at %lld, expected %lld", (long long)off,
        (long long)size * REC);
  MPI_Barrier(MPI_COMM_WORLD); /* every rank has looked before the pointer moves */
  {
    unsigned char b[64];
    fill(b, app_len(rank), rank, 1);
    CHECK_MPI(MPI_File_write_ordered(fh, b, (int)app_len(rank), MPI_BYTE, &st));
    CHECK(io_count(&st, MPI_BYTE) == app_len(rank), "write_ordered count %d", io_count(&st, MPI_BYTE));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_get_position_shared(fh, &off));
  CHECK(off == main_len, "shared pointer after the appends at %lld, expected %ld", (long long)off, main_len);
  CHECK_MPI(MPI_File_close(&fh));
  {
    long at = (long)size * REC;
    for (int r = 0; r < size; ++r) {
      fill(expect + at, app_len(r), r, 1);
      at += app_len(r);
    }
  }
  check_file(main_out, expect, main_len);
  free(expect);
  IO_OK(rank, "MPI_MODE_RDONLY, MPI_MODE_APPEND");

  /* Sizes: set_size grows and shrinks, preallocate grows only. These are
   * collective but need not synchronize: a barrier keeps every rank's
   * get_size before the next change. */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, size_out, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == 0, "a new file's size %lld", (long long)sz);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_set_size(fh, 1000));
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == 1000, "size %lld after MPI_File_set_size(1000)", (long long)sz);
  /* The bytes set_size added are undefined: the ranks write all of them,
   * each its stripe of [0, 1000). */
  const long s0 = 1000L * rank / size, s1 = 1000L * (rank + 1) / size;
  {
    unsigned char b[1000];
    fill(b, s1 - s0, rank, 2);
    CHECK_MPI(MPI_File_write_at(fh, s0, b, (int)(s1 - s0), MPI_BYTE, &st));
    CHECK(io_count(&st, MPI_BYTE) == s1 - s0, "write_at count %d", io_count(&st, MPI_BYTE));
  }
  io_sync_barrier(fh, MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_preallocate(fh, 4096));
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == 4096, "size %lld after MPI_File_preallocate(4096)", (long long)sz);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_set_size(fh, 500));
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == 500, "size %lld after MPI_File_set_size(500)", (long long)sz);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_preallocate(fh, 100));
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == 500, "size %lld after MPI_File_preallocate(100) (preallocate never shrinks)", (long long)sz);
  CHECK_MPI(MPI_File_close(&fh));
  {
    unsigned char e[1000];
    for (int r = 0; r < size; ++r) fill(e + 1000L * r / size, 1000L * (r + 1) / size - 1000L * r / size, r, 2);
    check_file(size_out, e, 500);
  }
  IO_OK(rank, "set_size, get_size, preallocate");

  /* MPI_MODE_DELETE_ON_CLOSE: usable while open, gone after close. */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, doc_tmp, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                          MPI_INFO_NULL, &fh));
  {
    unsigned char b[32], g[32];
    fill(b, 32, rank, 3);
    CHECK_MPI(MPI_File_write_at(fh, 32 * rank, b, 32, MPI_BYTE, &st));
    io_sync_barrier(fh, MPI_COMM_WORLD);
    const int from = (rank + 1) % size;
    CHECK_MPI(MPI_File_read_at(fh, 32 * from, g, 32, MPI_BYTE, &st));
    CHECK(io_count(&st, MPI_BYTE) == 32, "read_at count %d", io_count(&st, MPI_BYTE));
    fill(b, 32, from, 3);
    io_check_bytes("delete-on-close file", g, b, 32, 32 * from);
  }
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  check_missing(doc_tmp, "after closing a MPI_MODE_DELETE_ON_CLOSE file");
  IO_OK(rank, "MPI_MODE_DELETE_ON_CLOSE");

  /* MPI_MODE_UNIQUE_OPEN, written and read. */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, unique_out, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_UNIQUE_OPEN,
                          MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_get_amode(fh, &amode));
  CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_UNIQUE_OPEN), "MPI_File_get_amode %d", amode);
  {
    unsigned char b[100];
    fill(b, 100, rank, 4);
    CHECK_MPI(MPI_File_write_at_all(fh, 100 * (MPI_Offset)(size - 1 - rank), b, 100, MPI_BYTE, &st));
    CHECK(io_count(&st, MPI_BYTE) == 100, "write_at_all count %d", io_count(&st, MPI_BYTE));
  }
  CHECK_MPI(MPI_File_close(&fh));
  {
    unsigned char* e = malloc(100 * size);
    for (int r = 0; r < size; ++r) fill(e + 100 * (size - 1 - r), 100, r, 4);
    check_file(unique_out, e, 100 * size);
    free(e);
  }
  IO_OK(rank, "MPI_MODE_UNIQUE_OPEN");

  /* A file of each rank's own, over MPI_COMM_SELF. */
  CHECK_MPI(MPI_File_open(MPI_COMM_SELF, self_out, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  {
    MPI_Group fg, sg;
    int cmp = -1;
    CHECK_MPI(MPI_File_get_group(fh, &fg));
    MPI_Comm_group(MPI_COMM_SELF, &sg);
    CHECK_MPI(MPI_Group_compare(fg, sg, &cmp));
    CHECK(cmp == MPI_IDENT, "MPI_File_get_group vs MPI_COMM_SELF's group: %d, expected MPI_IDENT", cmp);
    MPI_Group_free(&fg);
    MPI_Group_free(&sg);
    const long n = 50 + rank;
    unsigned char b[64], g[64];
    fill(b, n, rank, 5);
    CHECK_MPI(MPI_File_write(fh, b, (int)n, MPI_BYTE, &st));
    CHECK_MPI(MPI_File_get_size(fh, &sz));
    CHECK(sz == n, "own file's size %lld, expected %ld", (long long)sz, n);
    CHECK_MPI(MPI_File_read_at(fh, 0, g, 64, MPI_BYTE, &st));
    CHECK(io_count(&st, MPI_BYTE) == n, "read_at to the end: count %d, expected %ld", io_count(&st, MPI_BYTE), n);
    io_check_bytes("own file", g, b, n, 0);
  }
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  IO_OK(rank, "a file per rank over MPI_COMM_SELF");
  IO_OK(rank, "file_basics: %d ranks", size);
  MPI_Finalize();
  return 0;
}
