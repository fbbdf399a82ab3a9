/* Data access by the three positionings (MPI-3.1 13.4): explicit offsets
 * (MPI_File_write_at / read_at and their _all forms; reads across and at the
 * end of file), individual pointers (MPI_File_write / read, write_all /
 * read_all, MPI_File_seek with SEEK_SET, SEEK_CUR and SEEK_END,
 * get_position, get_byte_offset, also under a view with holes), the shared
 * pointer (MPI_File_write_shared / read_shared from all ranks in no order:
 * every record once, the records tiling the file; seek_shared,
 * get_position_shared) and the ordered collectives (write_ordered /
 * read_ordered, each rank a different count so the rank order shows).
 * MPI_Get_count of every status is checked, and so is every byte read. Any
 * np >= 1.
 *
 * Outputs: file_pointers.explicit.out, file_pointers.individual.out,
 * file_pointers.ordered.out (the shared-pointer file's order is not
 * deterministic: it is file_pointers.shared.tmp, deleted on close). */
#include <stdlib.h>

#include "io_test.h"

#define B 1000    /* bytes of a rank's region in explicit.out and individual.out */
#define TRAIL 50  /* bytes of a rank's trailer in individual.out */
#define NREC 6    /* records per rank in shared.tmp */
#define RECLEN 48 /* bytes of a record: int rank, int seq, payload */

static int rank, size;

static void fill(unsigned char* b, long n, int src, int seq) {
  for (long i = 0; i < n; ++i) b[i] = lz_pattern(src, seq, i);
}
static int ival(int r, int i) { return r * 100000 + i * 7 - 3000; }
static long ord1(int r) { return 100 + 37 * r; }             /* first write_ordered */
static long ord2(int r) { return 50 + 11 * (size - 1 - r); } /* second one */

/* Rank 0 reads the whole file over MPI_COMM_SELF and compares. */
static void check_whole(const char* path, const unsigned char* expect, long n) {
  if (rank == 0) io_check_file(path, 0, expect, n);
}

/* explicit.out: a rank's region is 100 native ints, then 600 bytes. */
static void explicit_region(unsigned char* e, int r) {
  for (int i = 0; i < 100; ++i) {
    int v = ival(r, i);
    memcpy(e + 4 * i, &v, 4);
  }
  fill(e + 400, B - 400, r, 1);
}

static void explicit_offsets(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_pointers.explicit.out");
  io_remove(MPI_COMM_WORLD, path);
  MPI_File fh;
  MPI_Status st;
  unsigned char *mine = malloc(B), *got = malloc(B + 64), *e = malloc(B);
  CHECK(sizeof(int) == 4, "int is %d bytes", (int)sizeof(int));
  explicit_region(mine, rank);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  const MPI_Offset base = (MPI_Offset)rank * B;
  CHECK_MPI(MPI_File_write_at(fh, base, mine, 100, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == 100, "write_at: count %d ints, expected 100", io_count(&st, MPI_INT));
  CHECK_MPI(MPI_File_write_at_all(fh, base + 400, mine + 400, B - 400, MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == B - 400, "write_at_all: count %d, expected %d", io_count(&st, MPI_BYTE), B - 400);
  io_sync_barrier(fh, MPI_COMM_WORLD);
  /* The next rank's region, in the same two pieces. */
  const int from = (rank + 1) % size;
  explicit_region(e, from);
  memset(got, 0xee, B);
  CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)from * B, got, 100, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == 100, "read_at: count %d ints, expected 100", io_count(&st, MPI_INT));
  CHECK_MPI(MPI_File_read_at_all(fh, (MPI_Offset)from * B + 400, got + 400, B - 400, MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == B - 400, "read_at_all: count %d, expected %d", io_count(&st, MPI_BYTE), B - 400);
  io_check_bytes("explicit.out, read_at / read_at_all", got, e, B, (long long)from * B);
  /* Across the end of file: the bytes up to it; at the end: none. */
  const MPI_Offset end = (MPI_Offset)size * B;
  explicit_region(e, size - 1);
  CHECK_MPI(MPI_File_read_at(fh, end - 10, got, 50, MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == 10, "read_at across the end of file: count %d, expected 10",
        io_count(&st, MPI_BYTE));
  io_check_bytes("explicit.out, last 10 bytes", got, e + B - 10, 10, end - 10);
  CHECK_MPI(MPI_File_read_at(fh, end, got, 50, MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == 0, "read_at at the end of file: count %d, expected 0", io_count(&st, MPI_BYTE));
  CHECK_MPI(MPI_File_read_at(fh, end + 100, got, 5, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == 0, "read_at past the end of file: count %d, expected 0", io_count(&st, MPI_INT));
  CHECK_MPI(MPI_File_close(&fh));
  unsigned char* whole = malloc((size_t)size * B);
  for (int r = 0; r < size; ++r) explicit_region(whole + (long)r * B, r);
  check_whole(path, whole, (long)size * B);
  free(whole);
  free(mine);
  free(got);
  free(e);
  IO_OK(rank, "explicit offsets");
}

/* individual.out: a rank's region as its seeks and writes leave it. */
static void individual_region(unsigned char* e, int r) {
  fill(e, 300, r, 2);
  fill(e + 300, 100, r, 6);
  fill(e + 400, 100, r, 3);
  fill(e + 500, 100, r, 4);
  fill(e + 600, B - 600, r, 5);
}

static void check_position(MPI_File fh, MPI_Offset expect, const char* what) {
  MPI_Offset pos = -1, byte = -1;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == expect, "%s: MPI_File_get_position %lld, expected %lld", what, (long long)pos, (long long)expect);
  CHECK_MPI(MPI_File_get_byte_offset(fh, pos, &byte));
  CHECK(byte == expect, "%s: MPI_File_get_byte_offset(%lld) %lld under the default view", what, (long long)pos,
        (long long)byte);
}

static void write_n(MPI_File fh, const unsigned char* b, int n, const char* what) {
  MPI_Status st;
  CHECK_MPI(MPI_File_write(fh, b, n, MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == n, "%s: MPI_File_write count %d, expected %d", what, io_count(&st, MPI_BYTE), n);
}

static void individual_pointers(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_pointers.individual.out");
  io_remove(MPI_COMM_WORLD, path);
  MPI_File fh;
  MPI_Status st;
  unsigned char b[B], got[B + 16], e[B];
  MPI_Offset pos = -1;
  const MPI_Offset base = (MPI_Offset)rank * B, end = (MPI_Offset)size * B;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  check_position(fh, 0, "a new file");
  CHECK_MPI(MPI_File_seek(fh, base, MPI_SEEK_SET));
  check_position(fh, base, "SEEK_SET");
  fill(b, 300, rank, 2);
  write_n(fh, b, 300, "[0, 300)");
  check_position(fh, base + 300, "after 300 bytes");
  CHECK_MPI(MPI_File_seek(fh, 100, MPI_SEEK_CUR));
  check_position(fh, base + 400, "SEEK_CUR +100");
  fill(b, 200, rank, 3);
  write_n(fh, b, 200, "[400, 600)");
  CHECK_MPI(MPI_File_seek(fh, -100, MPI_SEEK_CUR));
  check_position(fh, base + 500, "SEEK_CUR -100");
  fill(b, 100, rank, 4);
  write_n(fh, b, 100, "[500, 600) again");
  fill(b, B - 600, rank, 5);
  write_n(fh, b, B - 600, "[600, B)");
  check_position(fh, base + B, "the end of the region");
  io_sync_barrier(fh, MPI_COMM_WORLD);
  {
    MPI_Offset sz = -1;
    CHECK_MPI(MPI_File_get_size(fh, &sz));
    CHECK(sz == end, "size %lld, expected %lld", (long long)sz, (long long)end);
    MPI_Barrier(MPI_COMM_WORLD); /* before anyone writes more */
  }
  /* The hole [300, 400), from the end of the file. */
  CHECK_MPI(MPI_File_seek(fh, -(MPI_Offset)(size - rank) * B + 300, MPI_SEEK_END));
  check_position(fh, base + 300, "SEEK_END");
  MPI_Barrier(MPI_COMM_WORLD); /* every rank's SEEK_END before the file grows */
  fill(b, 100, rank, 6);
  write_n(fh, b, 100, "[300, 400)");
  /* Collective, individual pointers: a trailer per rank after the regions. */
  CHECK_MPI(MPI_File_seek(fh, end + (MPI_Offset)rank * TRAIL, MPI_SEEK_SET));
  fill(b, TRAIL, rank, 7);
  CHECK_MPI(MPI_File_write_all(fh, b, TRAIL, MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == TRAIL, "write_all count %d", io_count(&st, MPI_BYTE));
  check_position(fh, end + (MPI_Offset)(rank + 1) * TRAIL, "after write_all");
  io_sync_barrier(fh, MPI_COMM_WORLD);

  /* Read the next rank's region and trailer. */
  const int from = (rank + 1) % size;
  CHECK_MPI(MPI_File_seek(fh, (MPI_Offset)from * B, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_read(fh, got, B, MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == B, "read count %d", io_count(&st, MPI_BYTE));
  individual_region(e, from);
  io_check_bytes("individual.out, MPI_File_read", got, e, B, (long long)from * B);
  check_position(fh, (MPI_Offset)(from + 1) * B, "after MPI_File_read");
  CHECK_MPI(MPI_File_seek(fh, end + (MPI_Offset)from * TRAIL, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_read_all(fh, got, TRAIL, MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == TRAIL, "read_all count %d", io_count(&st, MPI_BYTE));
  fill(e, TRAIL, from, 7);
  io_check_bytes("individual.out, MPI_File_read_all", got, e, TRAIL, end + (long long)from * TRAIL);
  /* At the end of file: nothing read. Whether the pointer then moves by
   * what was asked for (as Open MPI 4.1.4's does) or stays (MPICH 4.0.2) is
   * not said. */
  const MPI_Offset total = end + (MPI_Offset)size * TRAIL;
  CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_END));
  check_position(fh, total, "SEEK_END 0");
  CHECK_MPI(MPI_File_read(fh, got, 10, MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == 0, "read at the end of file: count %d", io_count(&st, MPI_BYTE));
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == total || pos == total + 10, "get_position after reading 10 bytes at the end %lld, expected %lld or %lld",
        (long long)pos, (long long)total, (long long)total + 10);
  MPI_Barrier(MPI_COMM_WORLD);

  /* Under a view (disp 16, etype int, a filetype of 2 ints in 5): pointers
   * and offsets count etypes, set_view resets them, get_byte_offset gives
   * the byte a position is at. */
  MPI_Datatype two, filetype;
  MPI_Offset byte = -1;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &two));
  CHECK_MPI(MPI_Type_create_resized(two, 0, 5 * sizeof(int), &filetype));
  CHECK_MPI(MPI_Type_commit(&filetype));
  CHECK_MPI(MPI_File_set_view(fh, 16, MPI_INT, filetype, "native", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == 0, "get_position after set_view %lld, expected 0", (long long)pos);
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == 0, "get_position_shared after set_view %lld, expected 0", (long long)pos);
  for (MPI_Offset k = 0; k < 12; ++k) {
    CHECK_MPI(MPI_File_get_byte_offset(fh, k, &byte));
    CHECK(byte == 16 + (k / 2) * 20 + (k % 2) * 4, "get_byte_offset(%lld) under the view: %lld, expected %lld",
          (long long)k, (long long)byte, (long long)(16 + (k / 2) * 20 + (k % 2) * 4));
  }
  CHECK_MPI(MPI_File_seek(fh, 7 + rank, MPI_SEEK_SET));
  int ints[4];
  CHECK_MPI(MPI_File_read(fh, ints, 4, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == 4, "read under the view: count %d", io_count(&st, MPI_INT));
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == 11 + rank, "get_position after 4 ints from %d: %lld", 7 + rank, (long long)pos);
  {
    unsigned char* whole = malloc(total);
    for (int r = 0; r < size; ++r) {
      individual_region(whole + (long)r * B, r);
      fill(whole + end + (long)r * TRAIL, TRAIL, r, 7);
    }
    for (int j = 0; j < 4; ++j) {
      MPI_Offset k = 7 + rank + j, at = 16 + (k / 2) * 20 + (k % 2) * 4;
      int v;
      memcpy(&v, whole + at, 4);
      CHECK(ints[j] == v, "read under the view, int %lld at byte %lld: got %d, expected %d", (long long)k,
            (long long)at, ints[j], v);
    }
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Type_free(&two);
    MPI_Type_free(&filetype);
    check_whole(path, whole, total);
    free(whole);
  }
  IO_OK(rank, "individual pointers");
}

/* A record of shared.tmp: its header and payload are valid; gives its rank
 * and sequence number. */
static void check_record(const unsigned char* rec, long at, int* r, int* seq) {
  memcpy(r, rec, 4);
  memcpy(seq, rec + 4, 4);
  CHECK(*r >= 0 && *r < size && *seq >= 0 && *seq < NREC, "shared.tmp: record at %ld: rank %d, seq %d", at, *r, *seq);
  unsigned char e[RECLEN - 8];
  fill(e, RECLEN - 8, *r, 100 + *seq);
  io_check_bytes("shared.tmp record payload", rec + 8, e, RECLEN - 8, at + 8);
}

static void shared_pointer(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_pointers.shared.tmp");
  io_remove(MPI_COMM_WORLD, path);
  MPI_File fh;
  MPI_Status st;
  const long total = (long)size * NREC * RECLEN;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                          MPI_INFO_NULL, &fh));
  for (int s = 0; s < NREC; ++s) {
    unsigned char rec[RECLEN];
    memcpy(rec, &rank, 4);
    memcpy(rec + 4, &s, 4);
    fill(rec + 8, RECLEN - 8, rank, 100 + s);
    CHECK_MPI(MPI_File_write_shared(fh, rec, RECLEN, MPI_BYTE, &st));
    CHECK(io_count(&st, MPI_BYTE) == RECLEN, "write_shared count %d", io_count(&st, MPI_BYTE));
  }
  io_sync_barrier(fh, MPI_COMM_WORLD);
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == total, "get_position_shared after all write_shared %lld, expected %ld", (long long)pos, total);
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == 0, "the individual pointer moved with the shared one: %lld", (long long)pos);
  /* The records tile the file, each (rank, seq) once, a rank's in order. */
  unsigned char* all = malloc(total + RECLEN);
  CHECK_MPI(MPI_File_read_at(fh, 0, all, (int)total + RECLEN, MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == total, "read_at of the shared file: count %d, expected %ld", io_count(&st, MPI_BYTE),
        total);
  int *seen = calloc((size_t)size * NREC, sizeof(int)), *last = malloc(size * sizeof(int));
  for (int r = 0; r < size; ++r) last[r] = -1;
  for (long at = 0; at < total; at += RECLEN) {
    int r, s;
    check_record(all + at, at, &r, &s);
    CHECK(seen[r * NREC + s]++ == 0, "shared.tmp: record (rank %d, seq %d) twice (again at %ld)", r, s, at);
    CHECK(s > last[r], "shared.tmp: rank %d's record %d at %ld after its record %d", r, s, at, last[r]);
    last[r] = s;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  /* read_shared back, one record at a time, until the end: every record
   * read by exactly one rank. */
  CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  memset(seen, 0, (size_t)size * NREC * sizeof(int));
  for (;;) {
    unsigned char rec[RECLEN];
    CHECK_MPI(MPI_File_read_shared(fh, rec, RECLEN, MPI_BYTE, &st));
    int n = io_count(&st, MPI_BYTE);
    if (n == 0) break;
    CHECK(n == RECLEN, "read_shared count %d, expected %d or 0", n, RECLEN);
    int r, s;
    check_record(rec, -1, &r, &s);
    ++seen[r * NREC + s];
  }
  int* sum = malloc((size_t)size * NREC * sizeof(int));
  MPI_Allreduce(seen, sum, size * NREC, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < size * NREC; ++i)
    CHECK(sum[i] == 1, "read_shared: record (rank %d, seq %d) read %d times", i / NREC, i % NREC, sum[i]);
  /* Each rank's last read_shared found the end of file: whether it moved
   * the pointer by what it asked for (as MPICH does) or not is not said. */
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos >= total && pos <= total + (MPI_Offset)size * RECLEN && pos % RECLEN == 0,
        "get_position_shared after reading all %lld, expected %ld (+ up to %d records read past the end)",
        (long long)pos, total, size);
  MPI_Barrier(MPI_COMM_WORLD);
  /* seek_shared from the end and from the current position. */
  CHECK_MPI(MPI_File_seek_shared(fh, -RECLEN, MPI_SEEK_END));
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == total - RECLEN, "seek_shared SEEK_END: %lld, expected %ld", (long long)pos, total - RECLEN);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_seek_shared(fh, -2 * RECLEN, MPI_SEEK_CUR));
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == total - 3 * RECLEN, "seek_shared SEEK_CUR: %lld, expected %ld", (long long)pos, total - 3 * RECLEN);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == size - 1) {
    unsigned char rec[RECLEN];
    int r, s;
    CHECK_MPI(MPI_File_read_shared(fh, rec, RECLEN, MPI_BYTE, &st));
    CHECK(io_count(&st, MPI_BYTE) == RECLEN, "read_shared count %d", io_count(&st, MPI_BYTE));
    check_record(rec, total - 3 * RECLEN, &r, &s);
    CHECK(memcmp(rec, all + total - 3 * RECLEN, RECLEN) == 0, "read_shared after seek_shared: not the record at %ld",
          total - 3 * RECLEN);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == total - 2 * RECLEN, "get_position_shared after one more record: %lld, expected %ld", (long long)pos,
        total - 2 * RECLEN);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  free(all);
  free(seen);
  free(last);
  free(sum);
  IO_OK(rank, "shared pointer, unordered");
}

static void ordered(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_pointers.ordered.out");
  io_remove(MPI_COMM_WORLD, path);
  MPI_File fh;
  MPI_Status st;
  long total = 0;
  for (int r = 0; r < size; ++r) total += ord1(r) + ord2(r);
  unsigned char *whole = malloc(total), *b = malloc(ord1(rank) + ord2(rank)), *got = malloc(total);
  {
    long at = 0;
    for (int r = 0; r < size; ++r) fill(whole + at, ord1(r), r, 20), at += ord1(r);
    for (int r = 0; r < size; ++r) fill(whole + at, ord2(r), r, 21), at += ord2(r);
  }
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  fill(b, ord1(rank), rank, 20);
  CHECK_MPI(MPI_File_write_ordered(fh, b, (int)ord1(rank), MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == ord1(rank), "write_ordered count %d, expected %ld", io_count(&st, MPI_BYTE),
        ord1(rank));
  fill(b, ord2(rank), rank, 21);
  CHECK_MPI(MPI_File_write_ordered(fh, b, (int)ord2(rank), MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == ord2(rank), "write_ordered count %d, expected %ld", io_count(&st, MPI_BYTE),
        ord2(rank));
  io_sync_barrier(fh, MPI_COMM_WORLD);
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == total, "get_position_shared after write_ordered %lld, expected %ld", (long long)pos, total);
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == 0, "the individual pointer moved with write_ordered: %lld", (long long)pos);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  long before = 0;
  for (int r = 0; r < rank; ++r) before += ord1(r);
  CHECK_MPI(MPI_File_read_ordered(fh, got, (int)ord1(rank), MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == ord1(rank), "read_ordered count %d, expected %ld", io_count(&st, MPI_BYTE),
        ord1(rank));
  io_check_bytes("ordered.out, first read_ordered", got, whole + before, ord1(rank), before);
  before = 0;
  for (int r = 0; r < size; ++r) before += ord1(r);
  for (int r = 0; r < rank; ++r) before += ord2(r);
  CHECK_MPI(MPI_File_read_ordered(fh, got, (int)ord2(rank), MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == ord2(rank), "read_ordered count %d, expected %ld", io_count(&st, MPI_BYTE),
        ord2(rank));
  io_check_bytes("ordered.out, second read_ordered", got, whole + before, ord2(rank), before);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == total, "get_position_shared after read_ordered %lld, expected %ld", (long long)pos, total);
  MPI_Barrier(MPI_COMM_WORLD);
  /* At the end: nothing for anyone (Open MPI 4.1.4 counts 10 bytes). */
  CHECK_MPI(MPI_File_read_ordered(fh, got, 10, MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == 0, "read_ordered at the end of file: count %d", io_count(&st, MPI_BYTE));
  CHECK_MPI(MPI_File_close(&fh));
  check_whole(path, whole, total);
  free(whole);
  free(b);
  free(got);
  IO_OK(rank, "write_ordered / read_ordered");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* dir = io_dir(argc, argv);
  explicit_offsets(dir);
  individual_pointers(dir);
  shared_pointer(dir);
  ordered(dir);
  IO_OK(rank, "file_pointers: %d ranks", size);
  MPI_Finalize();
  return 0;
}
