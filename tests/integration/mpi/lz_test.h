/* Helpers of the MPI integration programs: a failed check prints where and
 * why, then aborts the whole job with exit code 1. */
#ifndef LZ_TEST_H
#define LZ_TEST_H
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

#define CHECK(cond, ...)                                                  \
  do {                                                                    \
    if (!(cond)) {                                                        \
      int r_ = -1;                                                        \
      MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                 \
      fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", r_, __FILE__, \
              __LINE__, #cond);                                           \
      fprintf(stderr, __VA_ARGS__);                                       \
      fprintf(stderr, "\n");                                              \
      fflush(stderr);                                                     \
      MPI_Abort(MPI_COMM_WORLD, 1);                                       \
    }                                                                     \
  } while (0)

/* CHECK for an MPI call that must succeed: names the call and its code. */
#define CHECK_MPI(call)                                                 \
  do {                                                                  \
    int rc_ = (call);                                                   \
    if (rc_ != MPI_SUCCESS) {                                           \
      char s_[MPI_MAX_ERROR_STRING];                                    \
      int l_ = 0;                                                       \
      MPI_Error_string(rc_, s_, &l_);                                   \
      CHECK(rc_ == MPI_SUCCESS, "%s returned %d (%s)", #call, rc_, s_); \
    }                                                                   \
  } while (0)

/* Deterministic byte of message (src, seq) at offset i. */
static inline unsigned char lz_pattern(int src, int seq, long i) {
  return (unsigned char)((src * 131 + seq * 31 + i * 7 + (i >> 8)) & 0xff);
}

/* xorshift, per rank. */
static inline unsigned lz_rand(unsigned *s) {
  unsigned x = *s;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *s = x;
}
/* A dissemination barrier over point-to-point only (these programs test p2p;
 * pass a communicator that carries no other traffic). */
static inline void lz_barrier(MPI_Comm comm) {
  int rank, size, t = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int d = 1; d < size; d *= 2)
    MPI_Sendrecv(&t, 1, MPI_INT, (rank + d) % size, 77, &t, 1, MPI_INT, (rank - d + size) % size, 77, comm,
                 MPI_STATUS_IGNORE);
}
#endif
