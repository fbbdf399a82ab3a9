/* CR integration test program: an iterative ring computation whose result
 * depends on every message. Usage: cr_iter ITERATIONS [STALL_ITER]
 * Every rank sends its running value to the right and receives from the
 * left each iteration (about 20 ms apart, so a checkpoint lands in the
 * middle of communication; cr_pace.h: CR_ITER_RELEASE ends the pauses).
 * With STALL_ITER, rank 0 sleeps 4 s before its send in that iteration: every other rank then sits in MPI_Recv waiting for
 * a peer that is itself blocked. Rank 0 prints "result <checksum>".
 * With CR_ITER_BALLAST_MB=N in the environment every rank also holds N MiB
 * of pseudo-random data (a slower dump: a wider window for fault injection
 * during a checkpoint); the result does not depend on it.
 * With CR_ITER_NBC=1 the allreduce of each iteration is an MPI_Iallreduce
 * left in flight across the 20 ms pause (a checkpoint then lands while it
 * is): the same arithmetic, so the same result.
 * With CR_ITER_THREADS=1 the program asks for MPI_THREAD_MULTIPLE and a
 * second thread per rank exchanges checked messages with the neighbours on a
 * communicator of its own all the while (a checkpoint then finds two threads
 * in MPI, one of them perhaps asleep in a wait): the result is the same. */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cr_pace.h"

static int g_rank, g_size, g_iters;
static MPI_Comm g_side;

/* CR_ITER_THREADS: the second thread's traffic, every value checked. */
static void* side_traffic(void* arg) {
  (void)arg;
  int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
  for (int it = 0; it < g_iters; ++it) {
    int out[2] = {g_rank, it}, in[2] = {-1, -1};
    MPI_Sendrecv(out, 2, MPI_INT, right, 7, in, 2, MPI_INT, left, 7, g_side, MPI_STATUS_IGNORE);
    if (in[0] != left || in[1] != it) {
      fprintf(stderr, "rank %d: side thread got (%d, %d), expected (%d, %d)\n", g_rank, in[0], in[1], left, it);
      MPI_Abort(MPI_COMM_WORLD, 4);
    }
    cr_pace(); /* paced like the ring: alive for the whole run */
  }
  return NULL;
}

int main(int argc, char** argv) {
  const int threads = getenv("CR_ITER_THREADS") != NULL && atoi(getenv("CR_ITER_THREADS")) != 0;
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, threads ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  if (threads && provided != MPI_THREAD_MULTIPLE) MPI_Abort(MPI_COMM_WORLD, 5);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int iters = argc > 1 ? atoi(argv[1]) : 100;
  g_rank = rank, g_size = size, g_iters = iters;
  pthread_t side;
  if (threads) {
    MPI_Comm_dup(MPI_COMM_WORLD, &g_side);
    if (pthread_create(&side, NULL, side_traffic, NULL) != 0) MPI_Abort(MPI_COMM_WORLD, 6);
  }
  int stall = argc > 2 ? atoi(argv[2]) : -1;
  const char* ballast_env = getenv("CR_ITER_BALLAST_MB");
  size_t ballast_words = ballast_env ? ((size_t)atol(ballast_env) << 20) / 8 : 0;
  uint64_t* ballast = ballast_words ? malloc(ballast_words * 8) : NULL;
  if (ballast_words && !ballast) MPI_Abort(MPI_COMM_WORLD, 3);
  for (size_t i = 0, x = 88172645463325252ull + (size_t)rank; i < ballast_words; ++i) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    ballast[i] = x;
  }
  /* CR_ITER_NBC=2: the same allreduce as one persistent request
   * (MPI_Allreduce_init, MPI-4.0) started every iteration. */
  const int nbc = getenv("CR_ITER_NBC") != NULL ? atoi(getenv("CR_ITER_NBC")) : 0;
  /* CR_ITER_INTER: the allreduce goes as the XOR of an MPI_Iallreduce over an
   * intercommunicator between the even and odd ranks (the other group's
   * part, in flight across the pause) and an MPI_Allreduce over each group
   * (its own part): the same value as the plain run's. */
  const int inter = getenv("CR_ITER_INTER") != NULL && atoi(getenv("CR_ITER_INTER")) != 0;
  MPI_Comm local = MPI_COMM_NULL, ic = MPI_COMM_NULL;
  if (inter) {
    if (size < 2) MPI_Abort(MPI_COMM_WORLD, 7);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 9, &ic);
  }
  uint64_t v = 1469598103934665603ull ^ (uint64_t)(rank + 1);
  uint64_t buf[64];
  uint64_t psum = 0;
  MPI_Request preq = MPI_REQUEST_NULL;
  if (nbc == 2) MPI_Allreduce_init(&v, &psum, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD, MPI_INFO_NULL, &preq);
  for (int it = 0; it < iters; ++it) {
    for (int k = 0; k < 64; ++k) buf[k] = v * (uint64_t)(k + 1) + (uint64_t)it;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    uint64_t in[64];
    if (rank == 0) {
      if (it == stall) {
        printf("stalling\n");
        fflush(stdout);
        sleep(4);
      }
      MPI_Send(buf, 64, MPI_UINT64_T, right, it, MPI_COMM_WORLD);
      MPI_Recv(in, 64, MPI_UINT64_T, left, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(in, 64, MPI_UINT64_T, left, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, 64, MPI_UINT64_T, right, it, MPI_COMM_WORLD);
    }
    for (int k = 0; k < 64; ++k) v = (v ^ in[k]) * 1099511628211ull;
    uint64_t sum = 0;
    if (inter) {
      MPI_Request req;
      uint64_t theirs = 0, ours = 0;
      MPI_Iallreduce(&v, &theirs, 1, MPI_UINT64_T, MPI_BXOR, ic, &req);
      MPI_Allreduce(&v, &ours, 1, MPI_UINT64_T, MPI_BXOR, local);
      cr_pace();
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      sum = theirs ^ ours;
    } else if (nbc == 2) {
      MPI_Start(&preq);
      cr_pace();
      MPI_Wait(&preq, MPI_STATUS_IGNORE);
      sum = psum;
    } else if (nbc) {
      MPI_Request req;
      MPI_Iallreduce(&v, &sum, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD, &req);
      cr_pace();
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
      MPI_Allreduce(&v, &sum, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
      cr_pace();
    }
    v ^= sum >> 7;
  }
  if (threads) {
    pthread_join(side, NULL);
    MPI_Comm_free(&g_side);
  }
  if (preq != MPI_REQUEST_NULL) MPI_Request_free(&preq);
  if (inter) {
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
  }
  uint64_t total = 0;
  MPI_Reduce(&v, &total, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("result %llu\n", (unsigned long long)total);
  MPI_Finalize();
  return 0;
}
