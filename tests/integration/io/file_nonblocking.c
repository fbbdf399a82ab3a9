/* Nonblocking and split collective data access (MPI-3.1 13.4.2-13.4.5):
 *  - explicit.out: MPI_File_iwrite_at (4 pieces in flight, MPI_Waitall),
 *    MPI_File_iread_at (MPI_Test loops);
 *  - individual.out: MPI_File_iwrite (two in flight: the pointer moves at
 *    initiation, get_position before they complete; MPI_Wait), MPI_File_iread
 *    (MPI_Waitany);
 *  - shared.tmp: MPI_File_iwrite_shared records from all ranks in no order
 *    (each once, tiling the file), MPI_File_iread_shared (MPI_Testsome loop):
 *    every record read by one rank (the order is not deterministic: deleted
 *    on close);
 *  - coll.out: the MPI-3.1 nonblocking collectives MPI_File_iwrite_at_all,
 *    iwrite_all, iread_at_all, iread_all (Test loop, Wait, Waitall);
 *  - split.out: the split collectives write_at_all_begin/_end,
 *    write_all_begin/_end, write_ordered_begin/_end and the read ones.
 * MPI_Get_count of every status is checked, and every byte read back; rank
 * 0 compares each output file whole. Any np >= 1.
 *
 * Outputs: file_nonblocking.{explicit,individual,coll,split}.out. */
#include <stdlib.h>

#include "io_test.h"

#define B 800 /* bytes of a rank's region */
#define NREC 5
#define RECLEN 40

static int rank, size;

static void fill(unsigned char* b, long n, int src, int seq) {
  for (long i = 0; i < n; ++i) b[i] = lz_pattern(src, seq, i);
}

static void check_count(const MPI_Status* st, int expect, const char* what) {
  int n = io_count(st, MPI_BYTE);
  CHECK(n == expect, "%s: MPI_Get_count %d, expected %d", what, n, expect);
}

/* Rank 0 reads the whole file over MPI_COMM_SELF and compares. */
static void check_whole(const char* path, const unsigned char* expect, long n) {
  if (rank == 0) io_check_file(path, 0, expect, n);
}

static void explicit_offsets(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_nonblocking.explicit.out");
  io_remove(MPI_COMM_WORLD, path);
  MPI_File fh;
  MPI_Request req[4];
  MPI_Status sts[4];
  unsigned char b[B], got[B], e[B];
  const int P = B / 4;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  fill(b, B, rank, 1);
  for (int k = 0; k < 4; ++k)
    CHECK_MPI(MPI_File_iwrite_at(fh, (MPI_Offset)rank * B + (3 - k) * P, b + (3 - k) * P, P, MPI_BYTE, &req[k]));
  CHECK_MPI(MPI_Waitall(4, req, sts));
  for (int k = 0; k < 4; ++k) {
    check_count(&sts[k], P, "iwrite_at");
    CHECK(req[k] == MPI_REQUEST_NULL, "MPI_Waitall left a request");
  }
  io_sync_barrier(fh, MPI_COMM_WORLD);
  const int from = (rank + 1) % size;
  memset(got, 0, B);
  for (int k = 0; k < 4; ++k)
    CHECK_MPI(MPI_File_iread_at(fh, (MPI_Offset)from * B + k * P, got + k * P, P, MPI_BYTE, &req[k]));
  for (int k = 0; k < 4; ++k) {
    int flag = 0;
    while (!flag) CHECK_MPI(MPI_Test(&req[k], &flag, &sts[k]));
    check_count(&sts[k], P, "iread_at");
  }
  fill(e, B, from, 1);
  io_check_bytes("explicit.out, iread_at", got, e, B, (long long)from * B);
  /* Past the end of file: nothing. */
  CHECK_MPI(MPI_File_iread_at(fh, (MPI_Offset)size * B, got, 10, MPI_BYTE, &req[0]));
  CHECK_MPI(MPI_Wait(&req[0], &sts[0]));
  check_count(&sts[0], 0, "iread_at at the end of file");
  CHECK_MPI(MPI_File_close(&fh));
  unsigned char* whole = malloc((size_t)size * B);
  for (int r = 0; r < size; ++r) fill(whole + (long)r * B, B, r, 1);
  check_whole(path, whole, (long)size * B);
  free(whole);
  IO_OK(rank, "iwrite_at / iread_at");
}

static void individual(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_nonblocking.individual.out");
  io_remove(MPI_COMM_WORLD, path);
  MPI_File fh;
  MPI_Request req[2];
  MPI_Status st;
  MPI_Offset pos = -1;
  unsigned char b[B], got[B], e[B];
  const MPI_Offset base = (MPI_Offset)rank * B;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  fill(b, B, rank, 2);
  CHECK_MPI(MPI_File_seek(fh, base, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_iwrite(fh, b, 300, MPI_BYTE, &req[0]));
  CHECK_MPI(MPI_File_iwrite(fh, b + 300, B - 300, MPI_BYTE, &req[1]));
  /* The pointer moved when the writes were started. */
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == base + B, "get_position with two iwrites in flight: %lld, expected %lld", (long long)pos,
        (long long)(base + B));
  CHECK_MPI(MPI_Wait(&req[1], &st));
  check_count(&st, B - 300, "second iwrite");
  CHECK_MPI(MPI_Wait(&req[0], &st));
  check_count(&st, 300, "first iwrite");
  io_sync_barrier(fh, MPI_COMM_WORLD);
  const int from = (rank + 1) % size;
  CHECK_MPI(MPI_File_seek(fh, (MPI_Offset)from * B, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_iread(fh, got, 500, MPI_BYTE, &req[0]));
  CHECK_MPI(MPI_File_iread(fh, got + 500, B - 500, MPI_BYTE, &req[1]));
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == (MPI_Offset)(from + 1) * B, "get_position with two ireads in flight: %lld", (long long)pos);
  for (int k = 0; k < 2; ++k) {
    int idx = -1;
    CHECK_MPI(MPI_Waitany(2, req, &idx, &st));
    CHECK(idx == 0 || idx == 1, "MPI_Waitany index %d", idx);
    check_count(&st, idx == 0 ? 500 : B - 500, "iread");
  }
  fill(e, B, from, 2);
  io_check_bytes("individual.out, iread", got, e, B, (long long)from * B);
  CHECK_MPI(MPI_File_close(&fh));
  unsigned char* whole = malloc((size_t)size * B);
  for (int r = 0; r < size; ++r) fill(whole + (long)r * B, B, r, 2);
  check_whole(path, whole, (long)size * B);
  free(whole);
  IO_OK(rank, "iwrite / iread");
}

static void check_record(const unsigned char* rec, long at, int* r, int* seq) {
  memcpy(r, rec, 4);
  memcpy(seq, rec + 4, 4);
  CHECK(*r >= 0 && *r < size && *seq >= 0 && *seq < NREC, "shared.tmp: record at %ld: rank %d, seq %d", at, *r, *seq);
  unsigned char e[RECLEN - 8];
  fill(e, RECLEN - 8, *r, 100 + *seq);
  io_check_bytes("shared.tmp record payload", rec + 8, e, RECLEN - 8, at + 8);
}

static void shared(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_nonblocking.shared.tmp");
  io_remove(MPI_COMM_WORLD, path);
  MPI_File fh;
  MPI_Request req[NREC];
  MPI_Status sts[NREC];
  unsigned char recs[NREC][RECLEN];
  const long total = (long)size * NREC * RECLEN;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                          MPI_INFO_NULL, &fh));
  for (int s = 0; s < NREC; ++s) {
    memcpy(recs[s], &rank, 4);
    memcpy(recs[s] + 4, &s, 4);
    fill(recs[s] + 8, RECLEN - 8, rank, 100 + s);
    CHECK_MPI(MPI_File_iwrite_shared(fh, recs[s], RECLEN, MPI_BYTE, &req[s]));
  }
  CHECK_MPI(MPI_Waitall(NREC, req, sts));
  for (int s = 0; s < NREC; ++s) check_count(&sts[s], RECLEN, "iwrite_shared");
  io_sync_barrier(fh, MPI_COMM_WORLD);
  /* Each (rank, seq) once, the records tiling the file. */
  unsigned char* all = malloc(total + 1);
  MPI_Status st;
  CHECK_MPI(MPI_File_read_at(fh, 0, all, (int)total + 1, MPI_BYTE, &st));
  check_count(&st, (int)total, "the shared file");
  int *seen = calloc((size_t)size * NREC, sizeof(int)), *sum = malloc(sizeof(int) * size * NREC);
  for (long at = 0; at < total; at += RECLEN) {
    int r, s;
    check_record(all + at, at, &r, &s);
    CHECK(seen[r * NREC + s]++ == 0, "shared.tmp: record (rank %d, seq %d) twice (again at %ld)", r, s, at);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  /* Read back: each rank NREC records with iread_shared; every record is
   * read by exactly one rank. */
  CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  for (int s = 0; s < NREC; ++s) CHECK_MPI(MPI_File_iread_shared(fh, recs[s], RECLEN, MPI_BYTE, &req[s]));
  /* MPI_Testsome until all are done (MPICH 4.0.2's MPI_Testall over these
   * requests now and then fails an assertion on a request's ref_count). */
  for (int done = 0; done < NREC;) {
    int outcount = 0, idx[NREC];
    MPI_Status part[NREC];
    CHECK_MPI(MPI_Testsome(NREC, req, &outcount, idx, part));
    CHECK(outcount != MPI_UNDEFINED, "MPI_Testsome: no active request with %d of %d done", done, NREC);
    for (int i = 0; i < outcount; ++i) sts[idx[i]] = part[i];
    done += outcount;
  }
  memset(seen, 0, sizeof(int) * size * NREC);
  for (int s = 0; s < NREC; ++s) {
    int r, q;
    check_count(&sts[s], RECLEN, "iread_shared");
    check_record(recs[s], -1, &r, &q);
    ++seen[r * NREC + q];
  }
  MPI_Allreduce(seen, sum, size * NREC, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < size * NREC; ++i)
    CHECK(sum[i] == 1, "iread_shared: record (rank %d, seq %d) read %d times", i / NREC, i % NREC, sum[i]);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  free(all);
  free(seen);
  free(sum);
  IO_OK(rank, "iwrite_shared / iread_shared");
}

static void collective(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_nonblocking.coll.out");
  io_remove(MPI_COMM_WORLD, path);
  MPI_File fh;
  MPI_Request req[2];
  MPI_Status sts[2];
  unsigned char a[B], b[B], got[B], e[B];
  const MPI_Offset half = (MPI_Offset)size * B;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  fill(a, B, rank, 3);
  fill(b, B, rank, 4);
  CHECK_MPI(MPI_File_iwrite_at_all(fh, (MPI_Offset)rank * B, a, B, MPI_BYTE, &req[0]));
  {
    int flag = 0;
    while (!flag) CHECK_MPI(MPI_Test(&req[0], &flag, &sts[0]));
    check_count(&sts[0], B, "iwrite_at_all");
  }
  CHECK_MPI(MPI_File_seek(fh, half + (MPI_Offset)rank * B, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_iwrite_all(fh, b, B, MPI_BYTE, &req[1]));
  CHECK_MPI(MPI_Wait(&req[1], &sts[1]));
  check_count(&sts[1], B, "iwrite_all");
  io_sync_barrier(fh, MPI_COMM_WORLD);
  const int from = (rank + 1) % size;
  /* Both reads in flight at once, completed together. */
  CHECK_MPI(MPI_File_iread_at_all(fh, (MPI_Offset)from * B, got, B, MPI_BYTE, &req[0]));
  CHECK_MPI(MPI_File_seek(fh, half + (MPI_Offset)from * B, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_iread_all(fh, b, B, MPI_BYTE, &req[1]));
  CHECK_MPI(MPI_Waitall(2, req, sts));
  check_count(&sts[0], B, "iread_at_all");
  check_count(&sts[1], B, "iread_all");
  fill(e, B, from, 3);
  io_check_bytes("coll.out, iread_at_all", got, e, B, (long long)from * B);
  fill(e, B, from, 4);
  io_check_bytes("coll.out, iread_all", b, e, B, half + (long long)from * B);
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == half + (MPI_Offset)(from + 1) * B, "get_position after iread_all %lld", (long long)pos);
  CHECK_MPI(MPI_File_close(&fh));
  unsigned char* whole = malloc((size_t)2 * size * B);
  for (int r = 0; r < size; ++r) {
    fill(whole + (long)r * B, B, r, 3);
    fill(whole + half + (long)r * B, B, r, 4);
  }
  check_whole(path, whole, 2L * size * B);
  free(whole);
  IO_OK(rank, "iwrite_at_all / iwrite_all / iread_at_all / iread_all");
}

static long ord(int r) { return 40 + 13 * r; }

static void split(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_nonblocking.split.out");
  io_remove(MPI_COMM_WORLD, path);
  MPI_File fh;
  MPI_Status st;
  unsigned char a[B], b[B], c[B], got[B], e[B];
  const MPI_Offset half = (MPI_Offset)size * B, third = 2 * half;
  long before = 0, total = third;
  for (int r = 0; r < size; ++r) total += ord(r);
  for (int r = 0; r < rank; ++r) before += ord(r);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  fill(a, B, rank, 5);
  fill(b, B, rank, 6);
  fill(c, ord(rank), rank, 7);
  CHECK_MPI(MPI_File_write_at_all_begin(fh, (MPI_Offset)rank * B, a, B, MPI_BYTE));
  CHECK_MPI(MPI_File_write_at_all_end(fh, a, &st));
  check_count(&st, B, "write_at_all_end");
  CHECK_MPI(MPI_File_seek(fh, half + (MPI_Offset)rank * B, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_write_all_begin(fh, b, B, MPI_BYTE));
  CHECK_MPI(MPI_File_write_all_end(fh, b, &st));
  check_count(&st, B, "write_all_end");
  CHECK_MPI(MPI_File_seek_shared(fh, third, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_write_ordered_begin(fh, c, (int)ord(rank), MPI_BYTE));
  CHECK_MPI(MPI_File_write_ordered_end(fh, c, &st));
  check_count(&st, (int)ord(rank), "write_ordered_end");
  io_sync_barrier(fh, MPI_COMM_WORLD);
  const int from = (rank + 1) % size;
  CHECK_MPI(MPI_File_read_at_all_begin(fh, (MPI_Offset)from * B, got, B, MPI_BYTE));
  CHECK_MPI(MPI_File_read_at_all_end(fh, got, &st));
  check_count(&st, B, "read_at_all_end");
  fill(e, B, from, 5);
  io_check_bytes("split.out, read_at_all_begin/end", got, e, B, (long long)from * B);
  CHECK_MPI(MPI_File_seek(fh, half + (MPI_Offset)from * B, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_read_all_begin(fh, got, B, MPI_BYTE));
  CHECK_MPI(MPI_File_read_all_end(fh, got, &st));
  check_count(&st, B, "read_all_end");
  fill(e, B, from, 6);
  io_check_bytes("split.out, read_all_begin/end", got, e, B, half + (long long)from * B);
  CHECK_MPI(MPI_File_seek_shared(fh, third, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_read_ordered_begin(fh, got, (int)ord(rank), MPI_BYTE));
  CHECK_MPI(MPI_File_read_ordered_end(fh, got, &st));
  check_count(&st, (int)ord(rank), "read_ordered_end");
  io_check_bytes("split.out, read_ordered_begin/end", got, c, ord(rank), third + before);
  CHECK_MPI(MPI_File_close(&fh));
  unsigned char* whole = malloc(total);
  long at = third;
  for (int r = 0; r < size; ++r) {
    fill(whole + (long)r * B, B, r, 5);
    fill(whole + half + (long)r * B, B, r, 6);
    fill(whole + at, ord(r), r, 7);
    at += ord(r);
  }
  check_whole(path, whole, total);
  free(whole);
  IO_OK(rank, "split collectives");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* dir = io_dir(argc, argv);
  explicit_offsets(dir);
  individual(dir);
  shared(dir);
  collective(dir);
  split(dir);
  IO_OK(rank, "file_nonblocking: %d ranks", size);
  MPI_Finalize();
  return 0;
}
