/* Collective I/O of a distributed array (MPI-3.1 13.4.3, 13.6): a
 * 64x48x40 array of doubles (value = global C-order index), block
 * decomposed over the np ranks as a 3-D grid from MPI_Dims_create, written
 * with a subarray filetype by MPI_File_write_all under the hints cb_nodes=1,
 * cb_buffer_size=1048576 and romio_cb_write=enable (one aggregator gathers
 * every rank's blocks); read back by MPI_File_read_all under another
 * decomposition (1-D slabs along the first dimension) and checked value by
 * value, then whole by rank 0. Then an independent strided write: each rank
 * a vector of small blocks (3 doubles) interleaved with the other ranks',
 * by MPI_File_write in two calls through a write-only handle, read back
 * through another by each rank whole (read_at) and its own blocks through
 * its view (read_all). Any np from 1 to 40.
 *
 * Outputs: file_collective.array3d.out, file_collective.strided.out. */
#include <stdlib.h>

#include "io_test.h"

#define NX 64
#define NY 48
#define NZ 40
#define NB 50 /* strided: blocks per rank */
#define BLK 3 /* strided: doubles per block */

static int rank, size;

static void block(int g, int p, int c, int* start, int* len) {
  const int base = g / p, rem = g % p;
  *len = base + (c < rem);
  *start = c * base + (c < rem ? c : rem);
}

static double gval(long i, long j, long k) { return (double)((i * NY + j) * NZ + k); }

static void array3d(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_collective.array3d.out");
  io_remove(MPI_COMM_WORLD, path);
  int dims[3] = {0, 0, 0};
  MPI_Dims_create(size, 3, dims);
  const int c[3] = {rank / (dims[1] * dims[2]), (rank / dims[2]) % dims[1], rank % dims[2]};
  const int gs[3] = {NX, NY, NZ};
  int st[3], ls[3];
  for (int d = 0; d < 3; ++d) {
    block(gs[d], dims[d], c[d], &st[d], &ls[d]);
    CHECK(ls[d] > 0, "np %d: an empty block in dimension %d", size, d);
  }
  const long n = (long)ls[0] * ls[1] * ls[2];
  double* mine = malloc(sizeof(double) * n);
  for (int i = 0; i < ls[0]; ++i)
    for (int j = 0; j < ls[1]; ++j)
      for (int k = 0; k < ls[2]; ++k) mine[((long)i * ls[1] + j) * ls[2] + k] = gval(st[0] + i, st[1] + j, st[2] + k);
  MPI_Datatype filetype;
  CHECK_MPI(MPI_Type_create_subarray(3, gs, ls, st, MPI_ORDER_C, MPI_DOUBLE, &filetype));
  CHECK_MPI(MPI_Type_commit(&filetype));
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "cb_nodes", "1"));
  CHECK_MPI(MPI_Info_set(info, "cb_buffer_size", "1048576"));
  CHECK_MPI(MPI_Info_set(info, "romio_cb_write", "enable"));
  MPI_File fh;
  MPI_Status status;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_DOUBLE, filetype, "native", info));
  CHECK_MPI(MPI_Info_free(&info));
  {
    MPI_Info got;
    int nkeys = -1;
    CHECK_MPI(MPI_File_get_info(fh, &got));
    CHECK_MPI(MPI_Info_get_nkeys(got, &nkeys));
    CHECK(nkeys >= 0, "MPI_Info_get_nkeys %d", nkeys);
    CHECK_MPI(MPI_Info_free(&got));
  }
  CHECK_MPI(MPI_File_write_all(fh, mine, (int)n, MPI_DOUBLE, &status));
  CHECK(io_count(&status, MPI_DOUBLE) == n, "write_all count %d, expected %ld", io_count(&status, MPI_DOUBLE), n);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Type_free(&filetype);
  free(mine);

  /* Read back as 1-D slabs along the first dimension. */
  int s0, l0;
  block(NX, size, rank, &s0, &l0);
  CHECK(l0 > 0, "np %d: an empty slab", size);
  const int ss[3] = {l0, NY, NZ}, sst[3] = {s0, 0, 0};
  CHECK_MPI(MPI_Type_create_subarray(3, gs, ss, sst, MPI_ORDER_C, MPI_DOUBLE, &filetype));
  CHECK_MPI(MPI_Type_commit(&filetype));
  const long m = (long)l0 * NY * NZ;
  double* slab = malloc(sizeof(double) * m);
  for (long i = 0; i < m; ++i) slab[i] = -1;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "cb_nodes", "1"));
  CHECK_MPI(MPI_Info_set(info, "romio_cb_read", "enable"));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh));
  CHECK_MPI(MPI_Info_free(&info));
  MPI_Offset sz = -1;
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == 8L * NX * NY * NZ, "array3d.out: %lld bytes, expected %ld", (long long)sz, 8L * NX * NY * NZ);
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_DOUBLE, filetype, "native", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_read_all(fh, slab, (int)m, MPI_DOUBLE, &status));
  CHECK(io_count(&status, MPI_DOUBLE) == m, "read_all count %d, expected %ld", io_count(&status, MPI_DOUBLE), m);
  for (int i = 0; i < l0; ++i)
    for (int j = 0; j < NY; ++j)
      for (int k = 0; k < NZ; ++k) {
        const double got = slab[((long)i * NY + j) * NZ + k], e = gval(s0 + i, j, k);
        CHECK(got == e, "array3d.out element (%d, %d, %d) at file offset %ld: got %.1f, expected %.1f", s0 + i, j, k,
              8 * (long)e, got, e);
      }
  CHECK_MPI(MPI_File_close(&fh));
  free(slab);
  MPI_Type_free(&filetype);
  if (rank == 0) { /* whole, as plain doubles */
    const long all = (long)NX * NY * NZ;
    double* w = malloc(sizeof(double) * all);
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_read_at(fh, 0, w, (int)all, MPI_DOUBLE, &status));
    CHECK(io_count(&status, MPI_DOUBLE) == all, "read_at count %d", io_count(&status, MPI_DOUBLE));
    CHECK_MPI(MPI_File_close(&fh));
    for (long i = 0; i < all; ++i)
      CHECK(w[i] == (double)i, "array3d.out double at file offset %ld: got %.1f, expected %.1f", 8 * i, w[i],
            (double)i);
    free(w);
  }
  IO_OK(rank, "3-D array (%dx%dx%d grid) by write_all, read as slabs by read_all", dims[0], dims[1], dims[2]);
}

static double sval(int r, int b, int c) { return r * 1e6 + b * 10 + c; }

static void strided(const char* dir) {
  char path[IO_PATH_MAX];
  io_path(path, dir, "file_collective.strided.out");
  io_remove(MPI_COMM_WORLD, path);
  MPI_Datatype filetype;
  CHECK_MPI(MPI_Type_vector(NB, BLK, size * BLK, MPI_DOUBLE, &filetype));
  CHECK_MPI(MPI_Type_commit(&filetype));
  double mine[NB * BLK], got[NB * BLK];
  for (int b = 0; b < NB; ++b)
    for (int c = 0; c < BLK; ++c) mine[b * BLK + c] = sval(rank, b, c);
  MPI_File fh;
  MPI_Status st;
  /* Written through a write-only handle (data sieving, ROMIO's default for
   * such views, must read the holes all the same), read through another. */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  CHECK_MPI(
      MPI_File_set_view(fh, (MPI_Offset)rank * BLK * sizeof(double), MPI_DOUBLE, filetype, "native", MPI_INFO_NULL));
  const int first = (NB / 2) * BLK + 1; /* the split falls inside a block */
  CHECK_MPI(MPI_File_write(fh, mine, first, MPI_DOUBLE, &st));
  CHECK(io_count(&st, MPI_DOUBLE) == first, "write count %d", io_count(&st, MPI_DOUBLE));
  CHECK_MPI(MPI_File_write(fh, mine + first, NB * BLK - first, MPI_DOUBLE, &st));
  CHECK(io_count(&st, MPI_DOUBLE) == NB * BLK - first, "write count %d", io_count(&st, MPI_DOUBLE));
  CHECK_MPI(MPI_File_close(&fh));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  CHECK_MPI(
      MPI_File_set_view(fh, (MPI_Offset)rank * BLK * sizeof(double), MPI_DOUBLE, filetype, "native", MPI_INFO_NULL));
  /* Its own blocks through the view. */
  CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_read_all(fh, got, NB * BLK, MPI_DOUBLE, &st));
  CHECK(io_count(&st, MPI_DOUBLE) == NB * BLK, "read_all count %d", io_count(&st, MPI_DOUBLE));
  for (int i = 0; i < NB * BLK; ++i)
    CHECK(got[i] == mine[i], "strided view, element %d: got %.1f, expected %.1f", i, got[i], mine[i]);
  /* The whole file, as plain doubles. */
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_DOUBLE, "native", MPI_INFO_NULL));
  const long all = (long)size * NB * BLK;
  double* w = malloc(sizeof(double) * (all + 1));
  CHECK_MPI(MPI_File_read_at(fh, 0, w, (int)all + 1, MPI_DOUBLE, &st));
  CHECK(io_count(&st, MPI_DOUBLE) == all, "read_at of the whole file: %d doubles, expected %ld",
        io_count(&st, MPI_DOUBLE), all);
  for (int b = 0; b < NB; ++b)
    for (int r = 0; r < size; ++r)
      for (int c = 0; c < BLK; ++c) {
        const long at = ((long)b * size + r) * BLK + c;
        CHECK(w[at] == sval(r, b, c), "strided.out double at file offset %ld: got %.1f, expected %.1f (rank %d)",
              8 * at, w[at], sval(r, b, c), r);
      }
  free(w);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Type_free(&filetype);
  IO_OK(rank, "independent strided write");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* dir = io_dir(argc, argv);
  array3d(dir);
  strided(dir);
  IO_OK(rank, "file_collective: %d ranks", size);
  MPI_Finalize();
  return 0;
}
