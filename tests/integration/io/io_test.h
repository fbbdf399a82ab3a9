/* Helpers of the MPI-IO integration programs, on top of the MPI suite's CHECK
 * (a failed check names the rank, file and line, prints why and aborts the
 * job with exit code 1). Plain MPI-3.1 C: the programs also build with
 * MPICH's and Open MPI's mpicc.
 *
 * Every program takes one argument, an existing writable directory: it
 * creates its files there, deletes its temporary ones (*.tmp) and leaves its
 * outputs, <program>.<what>.out, whose bytes depend only on the program and
 * np, for a driver to compare with another MPI's (compare_with_peer.sh). */
#ifndef IO_TEST_H
#define IO_TEST_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mpi/lz_test.h"

/* An MPI call that must fail with error class cls. */
#define CHECK_MPI_ERR(call, cls)                                                                      \
  do {                                                                                                \
    int rc_ = (call), c_ = MPI_SUCCESS;                                                               \
    char s_[MPI_MAX_ERROR_STRING] = "success";                                                        \
    int l_ = 0;                                                                                       \
    if (rc_ != MPI_SUCCESS) {                                                                         \
      MPI_Error_class(rc_, &c_);                                                                      \
      MPI_Error_string(rc_, s_, &l_);                                                                 \
    }                                                                                                 \
    CHECK(c_ == (cls), "%s: error class %d (%s), expected %s (%d)", #call, c_, s_, #cls, (int)(cls)); \
  } while (0)

/* Rank 0 prints a progress line, "<what> ok". */
#define IO_OK(rank, ...)   \
  do {                     \
    if ((rank) == 0) {     \
      printf(__VA_ARGS__); \
      printf(" ok\n");     \
      fflush(stdout);      \
    }                      \
  } while (0)

#define IO_PATH_MAX 4096

/* The directory argument (aborts on a usage error). */
static inline const char* io_dir(int argc, char** argv) {
  CHECK(argc == 2 && argv[1][0] != '\0', "usage: %s <directory>", argc > 0 ? argv[0] : "program");
  return argv[1];
}

/* path = dir/name. */
static inline void io_path(char* path, const char* dir, const char* name) {
  int n = snprintf(path, IO_PATH_MAX, "%s/%s", dir, name);
  CHECK(n > 0 && n < IO_PATH_MAX, "path %s/%s is too long", dir, name);
}

/* Collective over comm: the file is gone (deleted by the comm's rank 0 if it
 * was there, say from an earlier run in the same directory). */
static inline void io_remove(MPI_Comm comm, const char* path) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    int rc = MPI_File_delete(path, MPI_INFO_NULL), cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_SUCCESS || cls == MPI_ERR_NO_SUCH_FILE, "MPI_File_delete(%s): error class %d", path, cls);
  }
  MPI_Barrier(comm);
}

/* What io_prefill writes: the bytes of a file no view reaches. */
#define IO_FILL 0xa5

/* Collective over comm: path is made anew as n bytes of IO_FILL (written by
 * the comm's rank 0). Bytes MPI never wrote are undefined (MPI-3.1 13.2.4,
 * 13.2.5: set_size and preallocate add undefined bytes; MPICH's data sieving
 * writes garbage into the holes of a view over a new file), so a file whose
 * holes are compared is filled first. */
static inline void io_prefill(MPI_Comm comm, const char* path, long n) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  io_remove(comm, path);
  if (rank == 0) {
    MPI_File fh;
    MPI_Status st;
    unsigned char* b = (unsigned char*)malloc(n + 1);
    memset(b, IO_FILL, n + 1);
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_write_at(fh, 0, b, (int)n, MPI_BYTE, &st));
    CHECK_MPI(MPI_File_close(&fh));
    free(b);
  }
  MPI_Barrier(comm);
}

/* The number of elements of type dt a status reports (MPI_Get_count). */
static inline int io_count(const MPI_Status* st, MPI_Datatype dt) {
  int n = -1;
  CHECK_MPI(MPI_Get_count(st, dt, &n));
  return n;
}

/* Compares n bytes read from a file at offset base with what was expected:
 * the first difference names the file offset, expected and got. */
static inline void io_check_bytes(const char* what, const unsigned char* got, const unsigned char* expect, long n,
                                  long long base) {
  for (long i = 0; i < n; ++i)
    CHECK(got[i] == expect[i], "%s: byte at file offset %lld: got 0x%02x, expected 0x%02x", what, base + i, got[i],
          expect[i]);
}

/* Reads a file over MPI_COMM_SELF from byte `from` on and compares with the
 * n bytes expected there; the file must end right after them. */
static inline void io_check_file(const char* path, long long from, const unsigned char* expect, long n) {
  MPI_File fh;
  MPI_Status st;
  MPI_Offset sz = -1;
  unsigned char* got = malloc((size_t)n + 1);
  CHECK(got != NULL, "%s: out of memory for %ld bytes", path, n);
  CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == from + n, "%s: size %lld, expected %lld", path, (long long)sz, from + n);
  CHECK_MPI(MPI_File_read_at(fh, from, got, (int)n + 1, MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == n, "%s: read %d bytes, expected %ld", path, io_count(&st, MPI_BYTE), n);
  io_check_bytes(path, got, expect, n, from);
  CHECK_MPI(MPI_File_close(&fh));
  free(got);
}

/* Consistency after writes by other ranks of the file's group: MPI-3.1
 * 13.6.1's sync-barrier-sync. Collective over the file's communicator. */
static inline void io_sync_barrier(MPI_File fh, MPI_Comm comm) {
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(comm);
  CHECK_MPI(MPI_File_sync(fh));
}

/* got (a type MPI gave back) is the same type as expect: the same combiner
 * and constructor arguments (MPI_Type_get_envelope, MPI_Type_get_contents),
 * recursively. A predefined type comes back as itself; a derived one as a
 * type to free (MPICH's get_contents gives back the very handle a type was
 * built from, one more reference to it): freed here, as are the derived
 * types get_contents gives. The caller's expect stays valid. */
static inline void io_check_same_type(const char* what, MPI_Datatype got, MPI_Datatype expect) {
  int ni, na, nd, comb, ei, ea, ed, ecomb;
  CHECK_MPI(MPI_Type_get_envelope(got, &ni, &na, &nd, &comb));
  CHECK_MPI(MPI_Type_get_envelope(expect, &ei, &ea, &ed, &ecomb));
  CHECK(comb == ecomb, "%s: combiner %d, expected %d", what, comb, ecomb);
  if (comb == MPI_COMBINER_NAMED) {
    CHECK(got == expect, "%s: a predefined type must come back as itself", what);
    return;
  }
  CHECK(ni == ei && na == ea && nd == ed, "%s: envelope (%d, %d, %d), expected (%d, %d, %d)", what, ni, na, nd, ei, ea,
        ed);
  int gi[64], xi[64];
  MPI_Aint ga[16], xa[16];
  MPI_Datatype gd[16], xd[16];
  CHECK(ni <= 64 && na <= 16 && nd <= 16, "%s: type too large for this check", what);
  CHECK_MPI(MPI_Type_get_contents(got, ni, na, nd, gi, ga, gd));
  CHECK_MPI(MPI_Type_get_contents(expect, ni, na, nd, xi, xa, xd));
  for (int i = 0; i < ni; ++i)
    CHECK(gi[i] == xi[i], "%s: integer argument %d of the constructor: got %d, expected %d", what, i, gi[i], xi[i]);
  for (int i = 0; i < na; ++i)
    CHECK(ga[i] == xa[i], "%s: address argument %d of the constructor: got %ld, expected %ld", what, i, (long)ga[i],
          (long)xa[i]);
  for (int i = 0; i < nd; ++i) {
    char sub[256];
    snprintf(sub, sizeof sub, "%s, type argument %d", what, i);
    int xni, xna, xnd, xcomb;
    CHECK_MPI(MPI_Type_get_envelope(xd[i], &xni, &xna, &xnd, &xcomb));
    io_check_same_type(sub, gd[i], xd[i]); /* frees gd[i] if derived */
    if (xcomb != MPI_COMBINER_NAMED) CHECK_MPI(MPI_Type_free(&xd[i]));
  }
  CHECK_MPI(MPI_Type_free(&got));
}

/* A type MPI_File_get_view gave back: the type set (same size, extent and
 * constructor), possibly wrapped in new types that do not change it: a
 * MPI_Type_dup or a contiguous of 1 (MPICH 4.0.2 gives a contiguous of 1 of
 * the type set). Frees got if derived. */
static inline void io_check_view_type(const char* what, MPI_Datatype got, MPI_Datatype expect) {
  int ni, na, nd, comb, ecomb, sg, se, cnt[1];
  MPI_Aint lbg, exg, lbe, exe, none[1];
  CHECK_MPI(MPI_Type_size(got, &sg));
  CHECK_MPI(MPI_Type_size(expect, &se));
  CHECK_MPI(MPI_Type_get_extent(got, &lbg, &exg));
  CHECK_MPI(MPI_Type_get_extent(expect, &lbe, &exe));
  CHECK(sg == se && lbg == lbe && exg == exe, "%s: size %d lb %ld extent %ld, expected %d %ld %ld", what, sg, (long)lbg,
        (long)exg, se, (long)lbe, (long)exe);
  CHECK_MPI(MPI_Type_get_envelope(expect, &ni, &na, &nd, &ecomb));
  CHECK_MPI(MPI_Type_get_envelope(got, &ni, &na, &nd, &comb));
  int wrapper = comb == MPI_COMBINER_DUP && ecomb != MPI_COMBINER_DUP;
  if (comb == MPI_COMBINER_CONTIGUOUS) {
    MPI_Datatype inner;
    CHECK_MPI(MPI_Type_get_contents(got, 1, 0, 1, cnt, none, &inner));
    int ii, ia, id, icomb;
    CHECK_MPI(MPI_Type_get_envelope(inner, &ii, &ia, &id, &icomb));
    if (icomb != MPI_COMBINER_NAMED) CHECK_MPI(MPI_Type_free(&inner));
    if (cnt[0] == 1) {
      int eni, ena, end_, ecnt[1] = {-1};
      MPI_Datatype einner = MPI_DATATYPE_NULL;
      if (ecomb == MPI_COMBINER_CONTIGUOUS) {
        CHECK_MPI(MPI_Type_get_contents(expect, 1, 0, 1, ecnt, none, &einner));
        CHECK_MPI(MPI_Type_get_envelope(einner, &eni, &ena, &end_, &icomb));
        if (icomb != MPI_COMBINER_NAMED) CHECK_MPI(MPI_Type_free(&einner));
      }
      wrapper = ecnt[0] != 1;
    }
  }
  if (wrapper) {
    MPI_Datatype inner;
    CHECK_MPI(MPI_Type_get_contents(got, ni, 0, 1, cnt, none, &inner));
    io_check_view_type(what, inner, expect);
    CHECK_MPI(MPI_Type_free(&got));
  } else {
    io_check_same_type(what, got, expect);
  }
}

/* MPI_File_get_view gives back disp, etype, filetype and datarep as set. */
static inline void io_check_view(const char* what, MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                                 MPI_Datatype filetype, const char* datarep) {
  MPI_Offset d = -1;
  MPI_Datatype et, ft;
  char rep[MPI_MAX_DATAREP_STRING + 1] = "";
  CHECK_MPI(MPI_File_get_view(fh, &d, &et, &ft, rep));
  CHECK(d == disp, "%s: MPI_File_get_view disp %lld, expected %lld", what, (long long)d, (long long)disp);
  CHECK(strcmp(rep, datarep) == 0, "%s: MPI_File_get_view datarep \"%s\", expected \"%s\"", what, rep, datarep);
  char sub[256];
  snprintf(sub, sizeof sub, "%s: MPI_File_get_view etype", what);
  io_check_view_type(sub, et, etype);
  snprintf(sub, sizeof sub, "%s: MPI_File_get_view filetype", what);
  io_check_view_type(sub, ft, filetype);
}
#endif
