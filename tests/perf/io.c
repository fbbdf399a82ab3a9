/* MPI-IO benchmark (issue 34's table): bandwidth and rate of the accesses
 * parallel programs make, the same program built with each MPI's mpicc.
 *
 *   coll_write / coll_read  a 3-D array of doubles, block-decomposed over
 *                           the ranks (MPI_Dims_create), written with
 *                           MPI_File_write_at_all through a subarray view and
 *                           read back with MPI_File_read_at_all (checked);
 *   strided_write           each rank's blocks of 4 KiB interleaved with
 *                           the others' (a vector view), one independent
 *                           MPI_File_write per repetition;
 *   shared_append           MPI_File_write_shared of 64-byte records by
 *                           every rank at once: records per second.
 * Times exclude MPI_File_open/close and sync: they measure what each MPI's
 * I/O path costs over the page cache, which `dd` of the same size measures
 * for the file system itself (io_bench).
 *
 * Usage: io DIR TOTAL_MIB [REPS]   prints "name value unit" lines (rank 0). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void fail(const char *what) {
  fprintf(stderr, "io: rank %d: %s\n", rank, what);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

static double best_of(double *t, int n) {
  double b = t[0];
  for (int i = 1; i < n; ++i)
    if (t[i] < b) b = t[i];
  return b;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) fail("usage: io DIR TOTAL_MIB [REPS]");
  const char *dir = argv[1];
  const long total_mib = atol(argv[2]);
  const int reps = argc > 3 ? atoi(argv[3]) : 3;
  char path[4096];
  snprintf(path, sizeof path, "%s/io_bench.%d.dat", dir, size);

  /* The global array: n0 x n1 x n2 doubles of about total_mib MiB, each
   * dimension a multiple of the process grid's. */
  int dims[3] = {0, 0, 0};
  MPI_Dims_create(size, 3, dims);
  const long elems = total_mib * 1024 * 1024 / 8;
  long side = 1;
  while ((side + 1) * (side + 1) * (side + 1) <= elems) ++side;
  int gsizes[3], lsizes[3], starts[3], periods[3] = {0, 0, 0}, coords[3];
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
  MPI_Cart_coords(cart, rank, 3, coords);
  for (int d = 0; d < 3; ++d) {
    lsizes[d] = (int)(side / dims[d]);
    gsizes[d] = lsizes[d] * dims[d];
    starts[d] = coords[d] * lsizes[d];
  }
  const long local = (long)lsizes[0] * lsizes[1] * lsizes[2];
  const double bytes_all = (double)gsizes[0] * gsizes[1] * gsizes[2] * 8;
  double *a = malloc(local * sizeof(double)), *b = malloc(local * sizeof(double));
  if (!a || !b) fail("out of memory");
  for (long i = 0; i < local; ++i) a[i] = rank * 1e9 + (double)i;
  MPI_Datatype sub;
  MPI_Type_create_subarray(3, gsizes, lsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &sub);
  MPI_Type_commit(&sub);

  double *tw = malloc(reps * sizeof(double)), *tr = malloc(reps * sizeof(double));
  MPI_File fh;
  for (int r = 0; r < reps; ++r) {
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh)) fail("open");
    MPI_File_set_view(fh, 0, MPI_DOUBLE, sub, "native", MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (MPI_File_write_at_all(fh, 0, a, (int)local, MPI_DOUBLE, MPI_STATUS_IGNORE)) fail("write_at_all");
    MPI_Barrier(MPI_COMM_WORLD);
    tw[r] = MPI_Wtime() - t0;
    memset(b, 0, local * sizeof(double));
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (MPI_File_read_at_all(fh, 0, b, (int)local, MPI_DOUBLE, MPI_STATUS_IGNORE)) fail("read_at_all");
    MPI_Barrier(MPI_COMM_WORLD);
    tr[r] = MPI_Wtime() - t0;
    if (memcmp(a, b, local * sizeof(double)) != 0) fail("read_all returned other data than written");
    MPI_File_close(&fh);
  }
  if (rank == 0) {
    printf("coll_write %.1f MiB/s\n", bytes_all / best_of(tw, reps) / 1048576.0);
    printf("coll_read %.1f MiB/s\n", bytes_all / best_of(tr, reps) / 1048576.0);
  }

  /* Independent strided write: blocks of 4 KiB, the ranks' interleaved. */
  const int blk = 4096;
  const long nblk = total_mib * 1024 * 1024 / blk / size;
  MPI_Datatype vec, filetype;
  MPI_Type_vector((int)nblk, blk, blk * size, MPI_BYTE, &vec);
  MPI_Type_create_resized(vec, 0, (MPI_Aint)nblk * blk * size, &filetype);
  MPI_Type_commit(&filetype);
  char *s = malloc((size_t)nblk * blk);
  if (!s) fail("out of memory");
  memset(s, 'a' + rank % 26, (size_t)nblk * blk);
  for (int r = 0; r < reps; ++r) {
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh)) fail("open");
    MPI_File_set_view(fh, (MPI_Offset)rank * blk, MPI_BYTE, filetype, "native", MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (MPI_File_write(fh, s, (int)(nblk * blk), MPI_BYTE, MPI_STATUS_IGNORE)) fail("write");
    MPI_Barrier(MPI_COMM_WORLD);
    tw[r] = MPI_Wtime() - t0;
    MPI_File_close(&fh);
  }
  if (rank == 0) printf("strided_write %.1f MiB/s\n", (double)nblk * blk * size / best_of(tw, reps) / 1048576.0);

  /* Shared-pointer appends. */
  const int recs = 2000;
  char rec[64];
  memset(rec, 'x', sizeof rec);
  for (int r = 0; r < reps; ++r) {
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh)) fail("open");
    MPI_File_set_size(fh, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < recs; ++i)
      if (MPI_File_write_shared(fh, rec, sizeof rec, MPI_BYTE, MPI_STATUS_IGNORE)) fail("write_shared");
    MPI_Barrier(MPI_COMM_WORLD);
    tw[r] = MPI_Wtime() - t0;
    MPI_Offset sz = 0;
    MPI_File_get_size(fh, &sz);
    if (sz != (MPI_Offset)recs * size * (MPI_Offset)sizeof rec) fail("the appended file has the wrong size");
    MPI_File_close(&fh);
  }
  if (rank == 0) printf("shared_append %.0f records/s\n", (double)recs * size / best_of(tw, reps));
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
  MPI_Type_free(&sub);
  MPI_Type_free(&vec);
  MPI_Type_free(&filetype);
  MPI_Comm_free(&cart);
  free(a), free(b), free(s), free(tw), free(tr);
  MPI_Finalize();
  return 0;
}
