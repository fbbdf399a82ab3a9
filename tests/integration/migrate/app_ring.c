/* A ring under application-level checkpoints (cr=app), for migrate_test.sh's
 * app scenario: ranks are moved (`lazarus migrate`) while messages cross
 * every safe point.
 *
 * Each iteration starts with LZ_Checkpoint (the safe point), then receives
 * from the left neighbour what it sent in the previous iteration, folds it
 * into the rank's state and sends the next values to the right. So at every
 * safe point each rank has one small message (eager) and one large one
 * (MPI_Bsend of BIG long longs: a rendezvous held by the buffered-send
 * machinery, no request of the program's) sent to it and not yet received:
 * a migration must hand them over to the moving rank's new process, and
 * pull in the payloads of rendezvous whose sender is the one moving.
 * Communicators: a Cartesian ring and a split, made before the first safe
 * point (the code before LZ_Restore runs alone in a process that takes a
 * moved rank's place: it makes them again from the moved rank's record).
 *
 * Usage: app_ring ITERATIONS [SLEEP_US]; prints "result N" on rank 0, the
 * same for any number of migrations.
 */
#include <mpi.h>
#include <lazarus/checkpoint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define BIG 32768 /* 256 KiB: above every transport's eager limit */

static long long mix(long long acc, long long v) { return (acc * 1000003 + v) % 2147483647LL; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 300;
  const int sleep_us = argc > 2 ? atoi(argv[2]) : 2000;
  /* Communicators made before the first safe point, as a setup does: a
   * periodic 1-d Cartesian ring (the ring's traffic goes over it) and the
   * halves of it (an allreduce every 10 iterations). */
  MPI_Comm ring, half;
  const int dims[1] = {size}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int left, right;
  MPI_Cart_shift(ring, 0, 1, &left, &right);

  static long long big[BIG], in[BIG];
  int it = 0;
  long long acc = rank + 1, small = 0;
  LZ_Register("it", &it, 1, MPI_INT);
  LZ_Register("acc", &acc, 1, MPI_LONG_LONG);
  LZ_Register("big", big, BIG, MPI_LONG_LONG);
  /* A rank runs at most size - 1 iterations ahead of its right neighbour. */
  const int bufsize = ((int)sizeof big + MPI_BSEND_OVERHEAD) * size;
  void* buf = malloc((size_t)bufsize);
  MPI_Buffer_attach(buf, bufsize);

  int restarting = 0;
  LZ_Restarting(&restarting);
  if (restarting) {
    LZ_Restore();
  } else {
    for (int j = 0; j < BIG; ++j) big[j] = (long long)rank * BIG + j;
    MPI_Send(&acc, 1, MPI_LONG_LONG, right, 1, ring);
    MPI_Bsend(big, BIG, MPI_LONG_LONG, right, 2, ring);
  }
  for (; it < iters; ++it) {
    LZ_Checkpoint(NULL);
    MPI_Recv(&small, 1, MPI_LONG_LONG, left, 1, ring, MPI_STATUS_IGNORE);
    MPI_Recv(in, BIG, MPI_LONG_LONG, left, 2, ring, MPI_STATUS_IGNORE);
    acc = mix(acc, small);
    for (int j = 0; j < BIG; j += 1024) acc = mix(acc, in[j]);
    if (it % 10 == 0) {
      long long sum = 0;
      MPI_Allreduce(&acc, &sum, 1, MPI_LONG_LONG, MPI_SUM, half);
      acc = mix(acc, sum);
    }
    for (int j = 0; j < BIG; ++j) big[j] = (in[j] + it + rank) % 1000000007LL;
    MPI_Send(&acc, 1, MPI_LONG_LONG, right, 1, ring);
    MPI_Bsend(big, BIG, MPI_LONG_LONG, right, 2, ring);
    if (sleep_us > 0) usleep((useconds_t)sleep_us);
  }
  MPI_Recv(&small, 1, MPI_LONG_LONG, left, 1, ring, MPI_STATUS_IGNORE);
  MPI_Recv(in, BIG, MPI_LONG_LONG, left, 2, ring, MPI_STATUS_IGNORE);
  acc = mix(acc, small);
  long long total = 0;
  MPI_Reduce(&acc, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("result %lld\n", total);
  int bsize;
  MPI_Buffer_detach(&buf, &bsize);
  free(buf);
  MPI_Comm_free(&half);
  MPI_Comm_free(&ring);
  MPI_Finalize();
  return 0;
}
