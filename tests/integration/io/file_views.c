/* File views (MPI-3.1 13.3): MPI_File_set_view / get_view with
 *  - vector.out: a vector filetype of ints (the ranks' blocks interleaved,
 *    a hole after each group), a 64-byte header before it (nonzero
 *    displacement), written by MPI_File_write_all from contiguous memory and
 *    by MPI_File_write from a memory vector (every other int);
 *  - subarray.out: each rank its block of a 2-D array of ints (C order, a
 *    process grid from MPI_Dims_create), from memory with a halo (a memory
 *    subarray), by MPI_File_write_at_all;
 *  - darray.out: a block-cyclic darray of doubles over a 2x2 grid at np 4,
 *    1 x np otherwise, by MPI_File_write_all;
 *  - struct.out: a struct filetype of ints with holes, resized so the ranks'
 *    slots interleave, displacement 32 + rank's slot, by MPI_File_write_at;
 *  - triple.out: etype a contiguous of 3 doubles, an unaligned
 *    displacement, by MPI_File_write_at_all; get_byte_offset under it.
 * A file with holes is first filled with IO_FILL bytes (MPI leaves bytes
 * never written undefined). Each rank reads its data back through its view;
 * rank 0 then reads each whole file as plain bytes and checks the layout
 * byte for byte, holes included. get_view gives back disp, etype, filetype (a predefined type as
 * itself, a derived one as a new type with the same constructor: envelope
 * and contents compared recursively) and datarep. Any np from 1 to 8.
 *
 * Outputs: file_views.{vector,subarray,darray,struct,triple}.out. */
#include <stdlib.h>

#include "io_test.h"

static int rank, size;

/* Rank 0 reads a whole file as bytes; *n its size. NULL elsewhere. */
static unsigned char* read_raw(const char* path, long* n) {
  if (rank != 0) return NULL;
  MPI_File fh;
  MPI_Offset sz;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  unsigned char* b = malloc(sz + 1);
  CHECK_MPI(MPI_File_read_at(fh, 0, b, (int)sz, MPI_BYTE, &st));
  CHECK(io_count(&st, MPI_BYTE) == sz, "%s: read %d bytes of %lld", path, io_count(&st, MPI_BYTE), (long long)sz);
  CHECK_MPI(MPI_File_close(&fh));
  *n = (long)sz;
  return b;
}

static void check_int_at(const char* what, const unsigned char* raw, long at, int expect) {
  int v;
  memcpy(&v, raw + at, sizeof v);
  CHECK(v == expect, "%s: int at file offset %ld: got %d, expected %d", what, at, v, expect);
}

static void check_double_at(const char* what, const unsigned char* raw, long at, double expect) {
  double v;
  memcpy(&v, raw + at, sizeof v);
  CHECK(v == expect, "%s: double at file offset %ld: got %g, expected %g", what, at, v, expect);
}

/* A byte no view reaches keeps what io_prefill wrote. */
static void check_fill(const char* what, const unsigned char* raw, long at, long n) {
  for (long i = 0; i < n; ++i)
    CHECK(raw[at + i] == IO_FILL, "%s: hole byte at file offset %ld: got 0x%02x, expected 0x%02x", what, at + i,
          raw[at + i], IO_FILL);
}

static void check_ints(const char* what, const int* got, const int* expect, int n) {
  for (int i = 0; i < n; ++i)
    CHECK(got[i] == expect[i], "%s: element %d read back through the view: got %d, expected %d", what, i, got[i],
          expect[i]);
}

/* ---- vector.out ---- */
#define HDR 64
#define BL 2 /* ints per block */
#define K 3  /* blocks per filetype */

static int vval(int r, int j) { return r * 1000 + j + 1; }

static void vector_view(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_views.vector.out");
  const int S = size * BL + 1, N = 2 * K * BL; /* stride in ints; ints a rank writes */
  const long body = 2L * K * S - 1;            /* ints after the header */
  io_prefill(MPI_COMM_WORLD, path, HDR + body * 4);
  MPI_File fh;
  MPI_Status st;
  MPI_Offset pos;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  if (rank == 0) {
    unsigned char h[HDR];
    for (int i = 0; i < HDR; ++i) h[i] = lz_pattern(99, 0, i);
    CHECK_MPI(MPI_File_write_at(fh, 0, h, HDR, MPI_BYTE, &st));
  }
  MPI_Datatype vec, filetype, memtype;
  CHECK_MPI(MPI_Type_vector(K, BL, S, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_create_resized(vec, 0, (MPI_Aint)K * S * sizeof(int), &filetype));
  CHECK_MPI(MPI_Type_commit(&filetype));
  CHECK_MPI(MPI_Type_vector(K * BL, 1, 2, MPI_INT, &memtype));
  CHECK_MPI(MPI_Type_commit(&memtype));
  const MPI_Offset disp = HDR + (MPI_Offset)rank * BL * sizeof(int);
  CHECK_MPI(MPI_File_set_view(fh, disp, MPI_INT, filetype, "native", MPI_INFO_NULL));
  io_check_view("vector view", fh, disp, MPI_INT, filetype, "native");
  int data[2 * K * BL], strided[4 * K * BL];
  for (int j = 0; j < N; ++j) data[j] = vval(rank, j);
  /* First filetype instance: collective, contiguous memory. */
  CHECK_MPI(MPI_File_write_all(fh, data, K * BL, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == K * BL, "write_all count %d", io_count(&st, MPI_INT));
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == K * BL, "get_position after write_all %lld, expected %d", (long long)pos, K * BL);
  /* Second: independent, from every other int of memory. */
  for (int i = 0; i < K * BL; ++i) strided[2 * i] = data[K * BL + i], strided[2 * i + 1] = -7;
  CHECK_MPI(MPI_File_write(fh, strided, 1, memtype, &st));
  CHECK(io_count(&st, memtype) == 1, "write from a memory vector: count %d, expected 1", io_count(&st, memtype));
  {
    int el = -1;
    CHECK_MPI(MPI_Get_elements(&st, MPI_INT, &el));
    CHECK(el == K * BL, "write from a memory vector: MPI_Get_elements %d, expected %d", el, K * BL);
  }
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == N, "get_position after write %lld, expected %d", (long long)pos, N);
  for (MPI_Offset k = 0; k < N; ++k) {
    MPI_Offset byte, e = disp + (k / (K * BL)) * K * S * 4 + ((k % (K * BL)) / BL) * S * 4 + (k % BL) * 4;
    CHECK_MPI(MPI_File_get_byte_offset(fh, k, &byte));
    CHECK(byte == e, "vector view: get_byte_offset(%lld) %lld, expected %lld", (long long)k, (long long)byte,
          (long long)e);
  }
  io_sync_barrier(fh, MPI_COMM_WORLD);
  /* Back through the view: all of it collectively, two ints at an offset. */
  int got[2 * K * BL];
  CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_read_all(fh, got, N, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == N, "read_all count %d", io_count(&st, MPI_INT));
  check_ints("vector view, read_all", got, data, N);
  CHECK_MPI(MPI_File_read_at(fh, K * BL + 1, got, 2, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == 2, "read_at count %d", io_count(&st, MPI_INT));
  check_ints("vector view, read_at", got, data + K * BL + 1, 2);
  /* The same memory vector, reading. */
  for (int i = 0; i < 2 * K * BL; ++i) strided[i] = -9;
  CHECK_MPI(MPI_File_read_at(fh, 0, strided, 1, memtype, &st));
  for (int i = 0; i < K * BL; ++i) {
    CHECK(strided[2 * i] == data[i], "read into a memory vector: element %d: got %d, expected %d", i, strided[2 * i],
          data[i]);
    CHECK(strided[2 * i + 1] == -9, "read into a memory vector wrote the gap after element %d", i);
  }
  CHECK_MPI(MPI_File_close(&fh));
  long n = 0;
  unsigned char* raw = read_raw(path, &n);
  if (rank == 0) {
    CHECK(n == HDR + body * 4, "vector.out: %ld bytes, expected %ld", n, HDR + body * 4);
    for (int i = 0; i < HDR; ++i)
      CHECK(raw[i] == lz_pattern(99, 0, i), "vector.out header byte %d: got 0x%02x", i, raw[i]);
    for (long t = 0; t < body; ++t) {
      const long g = t / S, p = t % S, at = HDR + 4 * t;
      if (p == (long)size * BL)
        check_fill("vector.out", raw, at, 4);
      else
        check_int_at("vector.out", raw, at, vval((int)(p / BL), (int)(g * BL + p % BL)));
    }
  }
  free(raw);
  MPI_Type_free(&vec);
  MPI_Type_free(&filetype);
  MPI_Type_free(&memtype);
  IO_OK(rank, "vector filetype, memory vector");
}

/* ---- subarray.out ---- */
#define G0 10
#define G1 14

static void block(int g, int p, int c, int* start, int* len) {
  const int base = g / p, rem = g % p;
  *len = base + (c < rem);
  *start = c * base + (c < rem ? c : rem);
}

static void subarray_view(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_views.subarray.out");
  io_remove(MPI_COMM_WORLD, path);
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  const int c0 = rank / dims[1], c1 = rank % dims[1];
  int s0, l0, s1, l1;
  block(G0, dims[0], c0, &s0, &l0);
  block(G1, dims[1], c1, &s1, &l1);
  CHECK(l0 > 0 && l1 > 0, "np %d is too large for a %dx%d array", size, G0, G1);
  const int gs[2] = {G0, G1}, ls[2] = {l0, l1}, st0[2] = {s0, s1};
  const int hs[2] = {l0 + 2, l1 + 2}, one[2] = {1, 1};
  MPI_Datatype filetype, memtype;
  CHECK_MPI(MPI_Type_create_subarray(2, gs, ls, st0, MPI_ORDER_C, MPI_INT, &filetype));
  CHECK_MPI(MPI_Type_commit(&filetype));
  CHECK_MPI(MPI_Type_create_subarray(2, hs, ls, one, MPI_ORDER_C, MPI_INT, &memtype));
  CHECK_MPI(MPI_Type_commit(&memtype));
  int *halo = malloc(sizeof(int) * hs[0] * hs[1]), *mine = malloc(sizeof(int) * l0 * l1),
      *got = malloc(sizeof(int) * l0 * l1);
  for (int i = 0; i < hs[0] * hs[1]; ++i) halo[i] = -1;
  for (int i = 0; i < l0; ++i)
    for (int j = 0; j < l1; ++j) mine[i * l1 + j] = halo[(i + 1) * hs[1] + j + 1] = (s0 + i) * G1 + (s1 + j) + 1;
  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, filetype, "native", MPI_INFO_NULL));
  io_check_view("subarray view", fh, 0, MPI_INT, filetype, "native");
  CHECK_MPI(MPI_File_write_at_all(fh, 0, halo, 1, memtype, &st));
  CHECK(io_count(&st, memtype) == 1, "write_at_all of a memory subarray: count %d", io_count(&st, memtype));
  io_sync_barrier(fh, MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_read_at_all(fh, 0, got, l0 * l1, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == l0 * l1, "read_at_all count %d, expected %d", io_count(&st, MPI_INT), l0 * l1);
  check_ints("subarray view", got, mine, l0 * l1);
  CHECK_MPI(MPI_File_close(&fh));
  long n = 0;
  unsigned char* raw = read_raw(path, &n);
  if (rank == 0) {
    CHECK(n == 4L * G0 * G1, "subarray.out: %ld bytes, expected %d", n, 4 * G0 * G1);
    for (int i = 0; i < G0 * G1; ++i) check_int_at("subarray.out", raw, 4L * i, i + 1);
  }
  free(raw);
  free(halo);
  free(mine);
  free(got);
  MPI_Type_free(&filetype);
  MPI_Type_free(&memtype);
  IO_OK(rank, "subarray filetype (%dx%d grid), memory subarray", dims[0], dims[1]);
}

/* ---- darray.out ---- */
#define D0 12
#define D1 24 /* 8 blocks of 3: every rank has some at np <= 8 */

static double dval(int i, int j) { return i * D1 + j + 0.5; }

static void darray_view(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_views.darray.out");
  io_remove(MPI_COMM_WORLD, path);
  const int P0 = size == 4 ? 2 : 1, P1 = size / P0;
  const int gs[2] = {D0, D1}, distribs[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC}, dargs[2] = {2, 3},
            psizes[2] = {P0, P1};
  MPI_Datatype filetype;
  CHECK_MPI(MPI_Type_create_darray(size, rank, 2, gs, distribs, dargs, psizes, MPI_ORDER_C, MPI_DOUBLE, &filetype));
  CHECK_MPI(MPI_Type_commit(&filetype));
  /* Owned elements in row-major order: the local array's order. */
  double *mine = malloc(sizeof(double) * (D0 * D1 + 1)), *got = malloc(sizeof(double) * (D0 * D1 + 1));
  int n = 0;
  for (int i = 0; i < D0; ++i)
    for (int j = 0; j < D1; ++j)
      if (((i / 2) % P0) * P1 + (j / 3) % P1 == rank) mine[n++] = dval(i, j);
  int tsize = -1;
  CHECK_MPI(MPI_Type_size(filetype, &tsize));
  CHECK(tsize == n * (int)sizeof(double), "darray type size %d, expected %d doubles", tsize, n);
  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_DOUBLE, filetype, "native", MPI_INFO_NULL));
  io_check_view("darray view", fh, 0, MPI_DOUBLE, filetype, "native");
  CHECK_MPI(MPI_File_write_all(fh, mine, n, MPI_DOUBLE, &st));
  CHECK(io_count(&st, MPI_DOUBLE) == n, "write_all count %d, expected %d", io_count(&st, MPI_DOUBLE), n);
  io_sync_barrier(fh, MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  for (int i = 0; i < n; ++i) got[i] = -1;
  CHECK_MPI(MPI_File_read_all(fh, got, n, MPI_DOUBLE, &st));
  CHECK(io_count(&st, MPI_DOUBLE) == n, "read_all count %d, expected %d", io_count(&st, MPI_DOUBLE), n);
  for (int i = 0; i < n; ++i)
    CHECK(got[i] == mine[i], "darray view: element %d read back: got %g, expected %g", i, got[i], mine[i]);
  CHECK_MPI(MPI_File_close(&fh));
  long len = 0;
  unsigned char* raw = read_raw(path, &len);
  if (rank == 0) {
    CHECK(len == 8L * D0 * D1, "darray.out: %ld bytes, expected %d", len, 8 * D0 * D1);
    for (int i = 0; i < D0; ++i)
      for (int j = 0; j < D1; ++j) check_double_at("darray.out", raw, 8L * (i * D1 + j), dval(i, j));
  }
  free(raw);
  free(mine);
  free(got);
  MPI_Type_free(&filetype);
  IO_OK(rank, "darray filetype (%dx%d grid, cyclic(2) x cyclic(3))", P0, P1);
}

/* ---- struct.out ---- */
#define SLOT 24 /* bytes: int at 0, hole, 2 ints at 12, hole */
#define NS 4    /* filetype instances per rank */
#define SDISP 32

static int sval(int r, int j) { return -(r * 100 + j + 1); }

static void struct_view(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_views.struct.out");
  const long end = SDISP + ((long)(NS - 1) * size + size - 1) * SLOT + 20;
  io_prefill(MPI_COMM_WORLD, path, end);
  const int bl[2] = {1, 2};
  const MPI_Aint displs[2] = {0, 12};
  const MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  MPI_Datatype st2, filetype;
  CHECK_MPI(MPI_Type_create_struct(2, bl, displs, types, &st2));
  CHECK_MPI(MPI_Type_create_resized(st2, 0, (MPI_Aint)size * SLOT, &filetype));
  CHECK_MPI(MPI_Type_commit(&filetype));
  const MPI_Offset disp = SDISP + (MPI_Offset)rank * SLOT;
  int data[3 * NS], got[3 * NS];
  for (int j = 0; j < 3 * NS; ++j) data[j] = sval(rank, j);
  MPI_File fh;
  MPI_Status st;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, disp, MPI_INT, filetype, "native", MPI_INFO_NULL));
  io_check_view("struct view", fh, disp, MPI_INT, filetype, "native");
  CHECK_MPI(MPI_File_write_at(fh, 0, data, 3 * NS / 2, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == 3 * NS / 2, "write_at count %d", io_count(&st, MPI_INT));
  CHECK_MPI(MPI_File_write_at(fh, 3 * NS / 2, data + 3 * NS / 2, 3 * NS / 2, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == 3 * NS / 2, "write_at count %d", io_count(&st, MPI_INT));
  io_sync_barrier(fh, MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_read_at_all(fh, 0, got, 3 * NS, MPI_INT, &st));
  CHECK(io_count(&st, MPI_INT) == 3 * NS, "read_at_all count %d", io_count(&st, MPI_INT));
  check_ints("struct view", got, data, 3 * NS);
  CHECK_MPI(MPI_File_close(&fh));
  long n = 0;
  unsigned char* raw = read_raw(path, &n);
  if (rank == 0) {
    CHECK(n == end, "struct.out: %ld bytes, expected %ld", n, end);
    check_fill("struct.out", raw, 0, SDISP);
    for (long at = SDISP; at < end; at += 4) {
      const long q = (at - SDISP) / SLOT, w = (at - SDISP) % SLOT;
      const int r = (int)(q % size), inst = (int)(q / size);
      if (w == 0)
        check_int_at("struct.out", raw, at, sval(r, inst * 3));
      else if (w >= 12 && w < 20)
        check_int_at("struct.out", raw, at, sval(r, inst * 3 + 1 + (int)(w - 12) / 4));
      else
        check_fill("struct.out", raw, at, 4);
    }
  }
  free(raw);
  MPI_Type_free(&st2);
  MPI_Type_free(&filetype);
  IO_OK(rank, "struct filetype with holes, resized");
}

/* ---- triple.out ---- */
#define NT 5 /* triples per rank */
#define TDISP 100

static double tval(int r, int t, int c) { return r * 100 + t + c / 8.0; }

static void triple_view(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_views.triple.out");
  const long end = TDISP + (long)NT * size * 24;
  io_prefill(MPI_COMM_WORLD, path, end);
  MPI_Datatype etype, filetype;
  CHECK_MPI(MPI_Type_contiguous(3, MPI_DOUBLE, &etype));
  CHECK_MPI(MPI_Type_commit(&etype));
  CHECK_MPI(MPI_Type_create_resized(etype, 0, (MPI_Aint)size * 24, &filetype));
  CHECK_MPI(MPI_Type_commit(&filetype));
  const MPI_Offset disp = TDISP + (MPI_Offset)rank * 24;
  double data[3 * NT], got[3 * NT];
  for (int t = 0; t < NT; ++t)
    for (int c = 0; c < 3; ++c) data[3 * t + c] = tval(rank, t, c);
  MPI_File fh;
  MPI_Status st;
  MPI_Offset pos;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, disp, etype, filetype, "native", MPI_INFO_NULL));
  io_check_view("triple view", fh, disp, etype, filetype, "native");
  /* Offsets count triples. Memory: the etype itself, then doubles. */
  CHECK_MPI(MPI_File_write_at_all(fh, 0, data, 3, etype, &st));
  CHECK(io_count(&st, etype) == 3, "write_at_all count %d triples", io_count(&st, etype));
  CHECK_MPI(MPI_File_write_at_all(fh, 3, data + 9, 3 * (NT - 3), MPI_DOUBLE, &st));
  CHECK(io_count(&st, MPI_DOUBLE) == 3 * (NT - 3), "write_at_all count %d doubles", io_count(&st, MPI_DOUBLE));
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == 0, "explicit offsets moved the individual pointer to %lld", (long long)pos);
  for (MPI_Offset k = 0; k <= NT; ++k) {
    MPI_Offset byte;
    CHECK_MPI(MPI_File_get_byte_offset(fh, k, &byte));
    CHECK(byte == disp + k * size * 24, "triple view: get_byte_offset(%lld) %lld, expected %lld", (long long)k,
          (long long)byte, (long long)(disp + k * size * 24));
  }
  io_sync_barrier(fh, MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_read_all(fh, got, NT, etype, &st));
  CHECK(io_count(&st, etype) == NT, "read_all count %d triples", io_count(&st, etype));
  for (int i = 0; i < 3 * NT; ++i)
    CHECK(got[i] == data[i], "triple view: double %d read back: got %g, expected %g", i, got[i], data[i]);
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == NT, "get_position after read_all %lld, expected %d", (long long)pos, NT);
  CHECK_MPI(MPI_File_close(&fh));
  long n = 0;
  unsigned char* raw = read_raw(path, &n);
  if (rank == 0) {
    CHECK(n == end, "triple.out: %ld bytes, expected %ld", n, end);
    check_fill("triple.out", raw, 0, TDISP);
    for (int t = 0; t < NT; ++t)
      for (int r = 0; r < size; ++r)
        for (int c = 0; c < 3; ++c)
          check_double_at("triple.out", raw, TDISP + ((long)t * size + r) * 24 + 8 * c, tval(r, t, c));
  }
  free(raw);
  MPI_Type_free(&etype);
  MPI_Type_free(&filetype);
  IO_OK(rank, "etype of 3 doubles, unaligned displacement");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* dir = io_dir(argc, argv);
  CHECK(sizeof(int) == 4 && sizeof(double) == 8, "int %d, double %d bytes", (int)sizeof(int), (int)sizeof(double));
  vector_view(dir);
  subarray_view(dir);
  darray_view(dir);
  struct_view(dir);
  triple_view(dir);
  IO_OK(rank, "file_views: %d ranks", size);
  MPI_Finalize();
  return 0;
}
