/* Send modes: Ssend/Issend complete only once matched, Bsend through an
 * attached buffer (eager and rendezvous sizes; detach waits), Rsend after the
 * receive is known to be posted. Pairs ranks (0,1), (2,3), ...; an odd last
 * rank talks to itself with non-blocking calls. */
#include <string.h>
#include "lz_test.h"

static void fill(char *b, int n, int seed) { for (int i = 0; i < n; ++i) b[i] = (char)lz_pattern(seed, 0, i); }
static void check(const char *b, int n, int seed) {
  for (int i = 0; i < n; ++i) CHECK(b[i] == (char)lz_pattern(seed, 0, i), "byte %d of message %d", i, seed);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
  if (peer >= size) peer = rank;
  const int big = 200000, small = 100;
  char *s = malloc(big), *r = malloc(big);
  int bufsize = 2 * (big + MPI_BSEND_OVERHEAD) + 2 * (small + MPI_BSEND_OVERHEAD) + 64;
  char *attach = malloc((size_t)bufsize);
  MPI_Buffer_attach(attach, bufsize);
  int lower = rank <= peer;
  /* Issend does not complete before the receive is posted: the peer posts
   * it only after a handshake message that we send after testing. */
  for (int n = small; n <= big; n = (n == small ? big : big + 1)) {
    MPI_Request req;
    fill(s, n, 1);
    if (lower) {
      MPI_Issend(s, n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &req);
      int flag = 0;
      for (int i = 0; i < 100 && peer != rank; ++i) {
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "Issend of %d bytes completed before the receive was posted", n);
      }
      int go = 1;
      MPI_Send(&go, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
      if (peer == rank) {
        MPI_Recv(&go, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(r, n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        check(r, n, 1);
      }
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
      int go;
      MPI_Recv(&go, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Recv(r, n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      check(r, n, 1);
    }
  }
  /* Ssend both ways (lower first). */
  fill(s, small, 3);
  if (peer != rank) {
    if (lower) {
      MPI_Ssend(s, small, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
      MPI_Recv(r, small, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(r, small, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Ssend(s, small, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
    }
    check(r, small, 3);
  }
  /* Bsend: both sides send first (would deadlock for rendezvous without buffering). */
  fill(s, big, 4);
  MPI_Bsend(s, small, MPI_CHAR, peer, 4, MPI_COMM_WORLD);
  MPI_Bsend(s, big, MPI_CHAR, peer, 5, MPI_COMM_WORLD);
  memset(s, 0, big); /* the buffered copies must not change */
  MPI_Recv(r, small, MPI_CHAR, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  check(r, small, 4);
  MPI_Recv(r, big, MPI_CHAR, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  check(r, big, 4);
  void *det;
  int detsize;
  MPI_Buffer_detach(&det, &detsize);
  CHECK(det == attach && detsize == bufsize, "detach returned %p/%d", det, detsize);
  /* Rsend: the receiver posts, then tells the sender. */
  if (peer != rank) {
    fill(s, big, 6);
    MPI_Request req;
    int go = 1;
    if (lower) {
      MPI_Recv(&go, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Rsend(s, small, MPI_CHAR, peer, 6, MPI_COMM_WORLD);
      MPI_Rsend(s, big, MPI_CHAR, peer, 8, MPI_COMM_WORLD);
    } else {
      MPI_Request r2;
      MPI_Irecv(r, small, MPI_CHAR, peer, 6, MPI_COMM_WORLD, &req);
      char *r2b = malloc(big);
      MPI_Irecv(r2b, big, MPI_CHAR, peer, 8, MPI_COMM_WORLD, &r2);
      MPI_Send(&go, 1, MPI_INT, peer, 7, MPI_COMM_WORLD);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      MPI_Wait(&r2, MPI_STATUS_IGNORE);
      check(r, small, 6);
      check(r2b, big, 6);
      free(r2b);
    }
  }
  free(s);
  free(r);
  free(attach);
  if (rank == 0) printf("modes: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
