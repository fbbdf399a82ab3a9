/* MPI_Cancel of sends (and receives), in pairs: even rank s sends to s + 1.
 * - Unmatched sends cancel: large (rendezvous) synchronous, standard,
 *   buffered (its copy goes by rendezvous), persistent synchronous,
 *   buffered and standard (the latter started again afterwards), and a
 *   small synchronous one (eager, awaiting its ack). The receiver has posted nothing
 *   for them until the sender tells it the outcome, so the cancel must
 *   succeed (MPI_Test_cancelled true); then a message with the same tag
 *   arrives intact and nothing else does (the cancelled one is never seen).
 * - Cancel after the match: the receiver posts the receives first and says
 *   so; the sender's large sends (synchronous, standard, ready) then match
 *   on arrival, the cancel fails (MPI_Test_cancelled false) and the data
 *   arrive intact.
 * - Races: a large send cancelled at once while the receiver posts its
 *   receive before or after it hears the outcome: a cancelled one never
 *   matches the receive (which then cancels), another arrives intact.
 * - Many eager messages, standard and buffered, sent at once (the transport
 *   fills, later frames wait in the sender): the last ones are cancelled;
 *   those reported cancelled never arrive, all the others arrive in order.
 * - A posted receive that nothing matches cancels. */
#include <string.h>
#include "lz_test.h"

enum { BIG = 1 << 20, FLOOD = 3000, FLOOD_BYTES = 4096, TAIL = 200 };
enum { T_GO = 1, T_OUTCOME = 2, T_BIG = 5, T_POSTED = 6, T_AFTER = 7, T_FLOOD = 100, T_RACE = 1000 };
enum { RACES = 60, RACE_BYTES = 256 << 10 };

static int rank, size;

static void fill(unsigned char *b, long n, int src, int seq) {
  for (long i = 0; i < n; ++i) b[i] = lz_pattern(src, seq, i);
}
static void check(const unsigned char *b, long n, int src, int seq, const char *what) {
  for (long i = 0; i < n; ++i)
    CHECK(b[i] == lz_pattern(src, seq, i), "%s: byte %ld is %u, expected %u", what, i, b[i], lz_pattern(src, seq, i));
}

/* Cancels `*req` and waits: returns MPI_Test_cancelled's answer. */
static int cancel_and_wait(MPI_Request *req) {
  MPI_Status st;
  int flag = -1;
  MPI_Cancel(req);
  MPI_Wait(req, &st);
  MPI_Test_cancelled(&st, &flag);
  return flag;
}

static void sender(int peer) {
  unsigned char *a = malloc(BIG), *b = malloc(BIG), *c = malloc(BIG);
  MPI_Request req;
  /* Unmatched: synchronous, standard, persistent. */
  fill(a, BIG, rank, 1);
  MPI_Issend(a, BIG, MPI_BYTE, peer, T_BIG, MPI_COMM_WORLD, &req);
  CHECK(cancel_and_wait(&req) == 1, "an unmatched synchronous send was not cancelled");
  MPI_Isend(a, BIG, MPI_BYTE, peer, T_BIG, MPI_COMM_WORLD, &req);
  CHECK(cancel_and_wait(&req) == 1, "an unmatched standard send was not cancelled");
  int small = 17;
  MPI_Issend(&small, 1, MPI_INT, peer, T_BIG, MPI_COMM_WORLD, &req);
  CHECK(cancel_and_wait(&req) == 1, "an unmatched small synchronous send was not cancelled");
  MPI_Request spers;
  MPI_Ssend_init(a, BIG, MPI_BYTE, peer, T_BIG, MPI_COMM_WORLD, &spers);
  MPI_Start(&spers);
  CHECK(cancel_and_wait(&spers) == 1, "an unmatched persistent synchronous send was not cancelled");
  MPI_Request_free(&spers);
  /* Buffered: the copy travels by rendezvous; detach needs it released. */
  int bbytes = 2 * (BIG + MPI_BSEND_OVERHEAD);
  void *bb = malloc(bbytes);
  MPI_Buffer_attach(bb, bbytes);
  MPI_Ibsend(a, BIG, MPI_BYTE, peer, T_BIG, MPI_COMM_WORLD, &req);
  CHECK(cancel_and_wait(&req) == 1, "an unmatched buffered send was not cancelled");
  MPI_Request bpers;
  MPI_Bsend_init(a, BIG, MPI_BYTE, peer, T_BIG, MPI_COMM_WORLD, &bpers);
  MPI_Start(&bpers);
  CHECK(cancel_and_wait(&bpers) == 1, "an unmatched persistent buffered send was not cancelled");
  MPI_Request_free(&bpers);
  MPI_Buffer_detach(&bb, &bbytes);
  free(bb);
  MPI_Request pers;
  fill(b, BIG, rank, 2);
  MPI_Send_init(b, BIG, MPI_BYTE, peer, T_BIG, MPI_COMM_WORLD, &pers);
  MPI_Start(&pers);
  CHECK(cancel_and_wait(&pers) == 1, "an unmatched persistent send was not cancelled");
  /* Now the receiver may look: one message with the tag, the persistent one restarted. */
  int go = 1;
  MPI_Send(&go, 1, MPI_INT, peer, T_GO, MPI_COMM_WORLD);
  MPI_Start(&pers);
  MPI_Status st;
  int flag = -1;
  MPI_Wait(&pers, &st);
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag == 0, "a send that completed normally says cancelled");
  MPI_Request_free(&pers);

  /* After the match: the receiver has posted before it tells us. */
  MPI_Recv(&go, 1, MPI_INT, peer, T_POSTED, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  fill(c, BIG, rank, 3);
  MPI_Issend(c, BIG, MPI_BYTE, peer, T_AFTER, MPI_COMM_WORLD, &req);
  CHECK(cancel_and_wait(&req) == 0, "a matched synchronous send was cancelled");
  MPI_Isend(c, BIG, MPI_BYTE, peer, T_AFTER, MPI_COMM_WORLD, &req);
  CHECK(cancel_and_wait(&req) == 0, "a matched standard send was cancelled");
  MPI_Irsend(c, BIG, MPI_BYTE, peer, T_AFTER, MPI_COMM_WORLD, &req);
  CHECK(cancel_and_wait(&req) == 0, "a matched ready send was cancelled");
  /* Races: the receiver posts its receive before or after it learns the
   * outcome, while the cancel is on its way; either outcome must be whole. */
  for (int it = 0; it < RACES; ++it) {
    fill(c, RACE_BYTES, rank, 1000 + it);
    if (it % 2) MPI_Issend(c, RACE_BYTES, MPI_BYTE, peer, T_RACE + it, MPI_COMM_WORLD, &req);
    else MPI_Isend(c, RACE_BYTES, MPI_BYTE, peer, T_RACE + it, MPI_COMM_WORLD, &req);
    int outcome = cancel_and_wait(&req);
    MPI_Send(&outcome, 1, MPI_INT, peer, T_OUTCOME, MPI_COMM_WORLD);
  }

  /* Flood of eager messages, the last TAIL cancelled. */
  static MPI_Request fr[FLOOD];
  unsigned char *fb = malloc((size_t)FLOOD * FLOOD_BYTES);
  /* Every other one buffered (an eager frame either way). */
  const int bsize = FLOOD / 2 * (FLOOD_BYTES + MPI_BSEND_OVERHEAD);
  void *battach = malloc(bsize);
  MPI_Buffer_attach(battach, bsize);
  for (int i = 0; i < FLOOD; ++i) {
    fill(fb + (size_t)i * FLOOD_BYTES, FLOOD_BYTES, rank, 100 + i);
    if (i % 2) MPI_Ibsend(fb + (size_t)i * FLOOD_BYTES, FLOOD_BYTES, MPI_BYTE, peer, T_FLOOD, MPI_COMM_WORLD, &fr[i]);
    else MPI_Isend(fb + (size_t)i * FLOOD_BYTES, FLOOD_BYTES, MPI_BYTE, peer, T_FLOOD, MPI_COMM_WORLD, &fr[i]);
  }
  static int cancelled[FLOOD];
  int ncancelled = 0;
  for (int i = FLOOD - TAIL; i < FLOOD; ++i) MPI_Cancel(&fr[i]);
  for (int i = 0; i < FLOOD; ++i) {
    MPI_Wait(&fr[i], &st);
    MPI_Test_cancelled(&st, &cancelled[i]);
    CHECK(!cancelled[i] || i >= FLOOD - TAIL, "flood message %d cancelled without MPI_Cancel", i);
    ncancelled += cancelled[i];
  }
  MPI_Send(cancelled, FLOOD, MPI_INT, peer, T_GO, MPI_COMM_WORLD);
  int dsize;
  MPI_Buffer_detach(&battach, &dsize);
  free(battach);
  if (rank == 0) printf("cancel: %d of the last %d eager messages were still here and cancelled\n", ncancelled, TAIL);
  MPI_Barrier(MPI_COMM_WORLD);
  free(fb);
  free(a), free(b), free(c);
}

static void receiver(int peer) {
  unsigned char *buf = malloc(BIG);
  int go;
  MPI_Status st;
  MPI_Recv(&go, 1, MPI_INT, peer, T_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  /* Only the restarted persistent send carries T_BIG now. */
  memset(buf, 0, BIG);
  MPI_Recv(buf, BIG, MPI_BYTE, peer, T_BIG, MPI_COMM_WORLD, &st);
  int n;
  MPI_Get_count(&st, MPI_BYTE, &n);
  CHECK(n == BIG, "T_BIG message of %d bytes", n);
  check(buf, BIG, peer, 2, "the message after the cancelled ones");

  /* Post the three receives, say so, then take the three sends. */
  unsigned char *after[3];
  MPI_Request r[3];
  for (int k = 0; k < 3; ++k) {
    after[k] = calloc(BIG, 1);
    MPI_Irecv(after[k], BIG, MPI_BYTE, peer, T_AFTER, MPI_COMM_WORLD, &r[k]);
  }
  MPI_Send(&go, 1, MPI_INT, peer, T_POSTED, MPI_COMM_WORLD);
  for (int k = 0; k < 3; ++k) {
    MPI_Wait(&r[k], &st);
    int flag = -1;
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag == 0, "a received message says cancelled");
    check(after[k], BIG, peer, 3, "matched send");
    free(after[k]);
  }

  /* The races: a withdrawn message never reaches the posted receive. */
  int ncancelled = 0;
  for (int it = 0; it < RACES; ++it) {
    int outcome = -1;
    MPI_Request rr;
    memset(buf, 0, RACE_BYTES);
    if (it % 3 != 2) MPI_Irecv(buf, RACE_BYTES, MPI_BYTE, peer, T_RACE + it, MPI_COMM_WORLD, &rr);
    MPI_Recv(&outcome, 1, MPI_INT, peer, T_OUTCOME, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (it % 3 == 2) MPI_Irecv(buf, RACE_BYTES, MPI_BYTE, peer, T_RACE + it, MPI_COMM_WORLD, &rr);
    if (outcome) {
      ++ncancelled;
      CHECK(cancel_and_wait(&rr) == 1, "race %d: the send was cancelled but the receive matched something", it);
    } else {
      MPI_Wait(&rr, &st);
      check(buf, RACE_BYTES, peer, 1000 + it, "race message");
    }
  }
  if (rank == 1) printf("cancel: %d of %d racing sends cancelled\n", ncancelled, RACES);

  /* The flood: what the sender did not cancel, in order. */
  static int cancelled[FLOOD];
  MPI_Recv(cancelled, FLOOD, MPI_INT, peer, T_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  unsigned char *fb = malloc(FLOOD_BYTES);
  for (int i = 0; i < FLOOD; ++i) {
    if (cancelled[i]) continue;
    MPI_Recv(fb, FLOOD_BYTES, MPI_BYTE, peer, T_FLOOD, MPI_COMM_WORLD, &st);
    check(fb, FLOOD_BYTES, peer, 100 + i, "flood message");
  }
  free(fb);
  MPI_Barrier(MPI_COMM_WORLD);
  /* Nothing else from the sender: no cancelled message shows up late. */
  int flag = 1;
  MPI_Iprobe(peer, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
  CHECK(!flag, "a message with tag %d arrived after everything (a cancelled one?)", st.MPI_TAG);
  free(buf);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size % 2 == 0, "run with an even number of ranks");
  /* Connections made first: a frame waiting for one would be cancellable. */
  int t = 0;
  MPI_Sendrecv_replace(&t, 1, MPI_INT, rank ^ 1, 0, rank ^ 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);

  /* A receive nothing matches. */
  MPI_Request r;
  MPI_Irecv(&t, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &r);
  int flag = -1;
  MPI_Status st;
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag == 1, "an unmatched receive was not cancelled");

  if (rank % 2 == 0) sender(rank + 1);
  else receiver(rank - 1);
  /* A last check that nothing cancelled arrives late anywhere. */
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
  CHECK(!flag, "a message (tag %d from %d) arrived after the end", st.MPI_TAG, st.MPI_SOURCE);
  if (rank == 0) printf("cancel: ok\n");
  MPI_Finalize();
  return 0;
}
