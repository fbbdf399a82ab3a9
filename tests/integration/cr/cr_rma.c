/* CR integration test program with open one-sided windows, for cr_test.sh's
 * scenarios (checkpoint + continue, --term + restart, kill -9 under
 * --recover auto) and migration: windows of every flavor in every
 * synchronization mode, each iteration about 20 ms apart (cr_pace.h) so
 * that checkpoints land in epochs, in waits and in the program's own loads
 * and stores. Usage: cr_rma ITERATIONS. Every value is checked as it is
 * read; rank 0 prints "result <checksum>", which depends on every value.
 *
 * Per iteration `it`, with right = rank + 1 and left = rank - 1 (mod size):
 *   MPI_Win_create + fence: each rank puts it*1000+rank into its right
 *     neighbour's slot and checks what its left one put;
 *   MPI_Win_allocate + post/start/complete/wait: the left neighbour adds it
 *     into slot 0 (MPI_Accumulate), so slot 0 = 1 + 2 + ... + it;
 *   the same window, lock exclusive on rank 0: a get, +1, put counter in
 *     slot 1 (= it * size after a barrier), and lock_all + MPI_Fetch_and_op
 *     on slot 2 (= it * size), and an MPI_Compare_and_swap token in slot 3;
 *   MPI_Win_allocate_shared: each rank stores it*10+rank in its own part and
 *     reads its right neighbour's directly (MPI_Win_sync + barrier);
 *   MPI_Win_create_dynamic: a put into the right neighbour's attached
 *     buffer under lock_all, read back by the owner after a barrier;
 *   fences on the MPI_Win_allocate and shared windows (a get of the right
 *     neighbour's PSCW sum, a store into this rank's shared part), rank 0
 *     late, so that checkpoints find the others in the fence barrier. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cr_pace.h"

static int rank, size;

static void check(const char* what, int it, long long got, long long want) {
  if (got == want) return;
  fprintf(stderr, "rank %d: iteration %d: %s is %lld, expected %lld\n", rank, it, what, got, want);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 100;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  long long* created = calloc((size_t)size, sizeof(long long));
  MPI_Win wc, wa, ws, wd;
  MPI_Win_create(created, size * (MPI_Aint)sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &wc);
  long long* alloc;
  MPI_Win_allocate(4 * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &alloc, &wa);
  long long* shared;
  MPI_Win_allocate_shared(sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &shared, &ws);
  long long* right_shared;
  MPI_Aint qsize;
  int qunit;
  MPI_Win_shared_query(ws, right, &qsize, &qunit, &right_shared);
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &wd);
  long long* attached = calloc(1, sizeof(long long));
  MPI_Win_attach(wd, attached, sizeof(long long));
  MPI_Aint mine, *addrs = malloc((size_t)size * sizeof(MPI_Aint));
  MPI_Get_address(attached, &mine);
  MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
  for (int i = 0; i < 4; ++i) alloc[i] = 0;
  *shared = -1;
  MPI_Group gl, gr, world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &left, &gl);
  MPI_Group_incl(world, 1, &right, &gr);
  MPI_Barrier(MPI_COMM_WORLD);

  uint64_t sum = 1469598103934665603ull;
  for (int it = 1; it <= iters; ++it) {
    long long v = it * 1000LL + rank;
    MPI_Win_fence(0, wc);
    MPI_Put(&v, 1, MPI_LONG_LONG, right, rank, 1, MPI_LONG_LONG, wc);
    MPI_Win_fence(0, wc);
    check("the fence put", it, created[left], it * 1000LL + left);

    long long add = it;
    MPI_Win_post(gl, 0, wa);
    MPI_Win_start(gr, 0, wa);
    MPI_Accumulate(&add, 1, MPI_LONG_LONG, right, 0, 1, MPI_LONG_LONG, MPI_SUM, wa);
    MPI_Win_complete(wa);
    MPI_Win_wait(wa);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, wa);
    check("the PSCW sum", it, alloc[0], (long long)it * (it + 1) / 2);
    MPI_Win_unlock(rank, wa);

    long long c;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wa);
    MPI_Get(&c, 1, MPI_LONG_LONG, 0, 1, 1, MPI_LONG_LONG, wa);
    MPI_Win_flush(0, wa);
    ++c;
    MPI_Put(&c, 1, MPI_LONG_LONG, 0, 1, 1, MPI_LONG_LONG, wa);
    MPI_Win_unlock(0, wa);
    long long one = 1, before;
    MPI_Win_lock_all(0, wa);
    MPI_Fetch_and_op(&one, &before, MPI_LONG_LONG, 0, 2, MPI_SUM, wa);
    MPI_Win_flush(0, wa);
    MPI_Win_unlock_all(wa);
    /* A token passed round the ranks in slot 3 by compare-and-swap, once
     * no rank wants rank 0's exclusive lock any more. */
    MPI_Barrier(MPI_COMM_WORLD);
    long long expect = (long long)(it - 1) * size + rank, next = expect + 1, seen = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, wa);
    do {
      MPI_Compare_and_swap(&next, &expect, &seen, MPI_LONG_LONG, 0, 3, wa);
      MPI_Win_flush(0, wa);
    } while (seen != expect);
    MPI_Win_unlock(0, wa);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wa);
      check("the locked counter", it, alloc[1], (long long)it * size);
      check("the fetch-and-op counter", it, alloc[2], (long long)it * size);
      check("the compare-and-swap token", it, alloc[3], (long long)it * size);
      MPI_Win_unlock(0, wa);
    }

    MPI_Win_lock_all(0, ws);
    *shared = it * 10LL + rank;
    MPI_Win_sync(ws);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(ws);
    check("the right neighbour's shared value", it, *right_shared, it * 10LL + right);
    MPI_Win_unlock_all(ws);

    MPI_Win_lock_all(0, wd);
    long long d = it * 100LL + rank;
    MPI_Put(&d, 1, MPI_LONG_LONG, right, addrs[right], 1, MPI_LONG_LONG, wd);
    MPI_Win_unlock_all(wd);
    MPI_Barrier(MPI_COMM_WORLD);
    check("the dynamic window's value", it, *attached, it * 100LL + left);

    /* Fences on the load/store windows, whose barrier is shared memory
     * (the MPI_Win_allocate window over shm until the first image, the
     * shared one always): rank 0 comes after a pause, so the others wait in
     * the barrier, spinning or asleep, when a checkpoint comes. */
    if (rank == 0) cr_pace();
    long long g = -1;
    MPI_Win_fence(0, wa);
    MPI_Get(&g, 1, MPI_LONG_LONG, right, 0, 1, MPI_LONG_LONG, wa);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, wa);
    check("the fence get of the right neighbour's PSCW sum", it, g, (long long)it * (it + 1) / 2);
    MPI_Win_fence(0, ws);
    *shared = it * 7LL + rank;
    MPI_Win_fence(MPI_MODE_NOSUCCEED, ws);
    check("the right neighbour's value stored between fences", it, *right_shared, it * 7LL + right);

    sum = (sum ^ (uint64_t)(created[left] + alloc[0] + *right_shared + *attached)) * 1099511628211ull;
    cr_pace();
  }
  uint64_t total = 0;
  MPI_Reduce(&sum, &total, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
  MPI_Win_detach(wd, attached);
  MPI_Win_free(&wd);
  MPI_Win_free(&ws);
  MPI_Win_free(&wa);
  MPI_Win_free(&wc);
  if (rank == 0) printf("cr_rma: %d ranks, %d iterations ok, result %llu\n", size, iters, (unsigned long long)total);
  MPI_Finalize();
  return 0;
}
