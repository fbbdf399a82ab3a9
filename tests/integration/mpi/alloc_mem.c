/* MPI_Alloc_mem / MPI_Free_mem: memory every transport sends from and
 * receives into, large (rendezvous, single copy where the transport reads)
 * and small, whole areas and ranges inside them, with errors returned through
 * the error handler. Under ucx and ofi the rendezvous from an area uses one
 * registration per transport (runtime/p2p/registration_cache.h); the data
 * must be the same either way.
 *   alloc_mem [iterations [stop-file]]   (any number of ranks >= 2)
 * With a stop file the ring goes on past its iterations until that file
 * exists (rank 0 looks, every rank learns it by a broadcast), so a test can
 * end the run after events it waits for, such as checkpoints, however fast
 * the machine is. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "lz_test.h"

#define BIG (2 << 20) /* 2 MiB: rendezvous on every transport */

static void fill(unsigned char* p, long n, int src, int seq) {
  for (long i = 0; i < n; ++i) p[i] = lz_pattern(src, seq, i);
}

static void verify(const unsigned char* p, long n, int src, int seq) {
  for (long i = 0; i < n; ++i)
    CHECK(p[i] == lz_pattern(src, seq, i), "message (%d,%d) byte %ld: %u, expected %u", src, seq, i, p[i],
          lz_pattern(src, seq, i));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks or more");
  const int iters = argc > 1 ? atoi(argv[1]) : 10;
  const char* stop_file = argc > 2 ? argv[2] : NULL;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  /* Errors, through the handler. */
  void* p = NULL;
  int rc = MPI_Alloc_mem(-1, MPI_INFO_NULL, &p), cls;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_ARG, "MPI_Alloc_mem(-1): class %d, expected MPI_ERR_ARG", cls);
  int on_stack = 0;
  rc = MPI_Free_mem(&on_stack);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_BASE, "MPI_Free_mem(not allocated): class %d, expected MPI_ERR_BASE", cls);
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  CHECK(strstr(msg, "MPI_Alloc_mem") != NULL, "error string '%s'", msg);

  /* Size 0, and info keys (ignored, as the standard allows). */
  CHECK(MPI_Alloc_mem(0, MPI_INFO_NULL, &p) == MPI_SUCCESS, "size 0");
  CHECK(MPI_Free_mem(p) == MPI_SUCCESS, "free of size 0");
  rc = MPI_Free_mem(p);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_BASE, "double free: class %d", cls);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  MPI_Info_set(info, "mpi_minimum_memory_alignment", "4096");
  unsigned char *send, *recv;
  CHECK(MPI_Alloc_mem(BIG, info, &send) == MPI_SUCCESS, "alloc send");
  CHECK(MPI_Alloc_mem((MPI_Aint)BIG, MPI_INFO_NULL, &recv) == MPI_SUCCESS, "alloc recv");
  MPI_Info_free(&info);
  CHECK(((uintptr_t)send % 4096) == 0 && ((uintptr_t)recv % 4096) == 0, "page-aligned: %p %p", send, recv);

  /* A ring: each rank sends to the next, from the whole area, from a range
   * inside it, and from malloc'd memory into the area. */
  const int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  unsigned char* heap = malloc(BIG);
  CHECK(heap != NULL, "malloc");
  int done = 0;
  for (int it = 0;; ++it) {
    if (it >= iters) {
      int stop = stop_file == NULL || (rank == 0 && access(stop_file, F_OK) == 0);
      MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
      if (stop) break;
    }
    done = it + 1;
    const long n = it % 3 == 0 ? BIG : it % 3 == 1 ? BIG / 2 + 4096 : 100;
    const long off = it % 3 == 1 ? 12345 : 0;
    unsigned char* from = it % 4 == 3 ? heap : send + off;
    fill(from, n, rank, it);
    memset(recv, 0, BIG);
    MPI_Request r[2];
    MPI_Irecv(recv + off, (int)n, MPI_BYTE, prev, it, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(from, (int)n, MPI_BYTE, next, it, MPI_COMM_WORLD, &r[1]);
    CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "iteration %d", it);
    verify(recv + off, n, prev, it);
  }
  /* A collective into Alloc_mem memory. */
  long* sums = NULL;
  CHECK(MPI_Alloc_mem((MPI_Aint)(sizeof(long) * 65536), MPI_INFO_NULL, &sums) == MPI_SUCCESS, "alloc sums");
  for (int i = 0; i < 65536; ++i) sums[i] = rank + i;
  MPI_Allreduce(MPI_IN_PLACE, sums, 65536, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < 65536; ++i)
    CHECK(sums[i] == (long)size * (size - 1) / 2 + (long)size * i, "allreduce [%d] = %ld", i, sums[i]);
  CHECK(MPI_Free_mem(sums) == MPI_SUCCESS, "free sums");
  CHECK(MPI_Free_mem(send) == MPI_SUCCESS && MPI_Free_mem(recv) == MPI_SUCCESS, "free");
  free(heap);
  if (rank == 0) printf("alloc_mem: %d ranks, %d iterations ok\n", size, done);
  MPI_Finalize();
  return 0;
}
