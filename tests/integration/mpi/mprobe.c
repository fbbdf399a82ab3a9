/* Matched probe and receive (MPI_Mprobe, MPI_Improbe, MPI_Mrecv,
 * MPI_Imrecv) and MPI_Request_get_status: every rank sends every rank
 * (itself too) small (eager) and large (rendezvous) messages whose sizes the
 * receiver learns only from the probe; a probed message is invisible to
 * other probes; MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC; errors (a null
 * message, truncation) go to the error handler; a call of one status
 * leaves its MPI_ERROR field alone, Waitall sets it. */
#include <stdlib.h>
#include <string.h>
#include "lz_test.h"

#define ROUNDS 3
#define BIG (256 * 1024 + 3)

/* Message `round` from `src` to `dst`: its length and its bytes. */
static int length_of(int src, int dst, int round) { return round == 1 ? BIG + src : 1 + (src * 7 + dst + round) % 97; }

static void fill(unsigned char *b, int n, int src, int round) {
  for (int i = 0; i < n; ++i) b[i] = lz_pattern(src, round, i);
}

static void check_bytes(const unsigned char *b, int n, int src, int round) {
  for (int i = 0; i < n; ++i)
    CHECK(b[i] == lz_pattern(src, round, i), "message %d from %d: byte %d is %d, expected %d", round, src, i, b[i],
          lz_pattern(src, round, i));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* ---- everyone to everyone, sizes learnt from the probe ---- */
  MPI_Request *sends = malloc(sizeof(MPI_Request) * (size_t)size * ROUNDS);
  unsigned char **out = malloc(sizeof(unsigned char *) * (size_t)size * ROUNDS);
  for (int round = 0; round < ROUNDS; ++round)
    for (int d = 0; d < size; ++d) {
      int k = round * size + d, n = length_of(rank, d, round);
      out[k] = malloc((size_t)n);
      fill(out[k], n, rank, round);
      MPI_Isend(out[k], n, MPI_BYTE, d, round, MPI_COMM_WORLD, &sends[k]);
    }
  /* Rounds in order per source (non-overtaking), sources in any order. */
  int *next_round = calloc((size_t)size, sizeof(int));
  for (int got = 0; got < size * ROUNDS; ++got) {
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status st;
    if (got % 2 == 0) {
      CHECK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st) == MPI_SUCCESS, "Mprobe");
    } else {
      int flag = 0;
      while (!flag) CHECK(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st) == MPI_SUCCESS,
                          "Improbe");
    }
    CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC, "probe gave no message");
    int src = st.MPI_SOURCE, round = st.MPI_TAG, n = -1;
    CHECK(src >= 0 && src < size, "probe: source %d", src);
    CHECK(round == next_round[src], "from %d: round %d arrived before round %d", src, round, next_round[src]);
    MPI_Get_count(&st, MPI_BYTE, &n);
    CHECK(n == length_of(src, rank, round), "probe: %d bytes from %d round %d, expected %d", n, src, round,
          length_of(src, rank, round));
    unsigned char *in = malloc((size_t)n);
    MPI_Status rst;
    if (got % 3 == 2) {
      MPI_Request r;
      CHECK(MPI_Imrecv(in, n, MPI_BYTE, &msg, &r) == MPI_SUCCESS, "Imrecv");
      CHECK(msg == MPI_MESSAGE_NULL, "Imrecv did not reset the message handle");
      int flag = 0;
      MPI_Status peek;
      while (!flag) MPI_Request_get_status(r, &flag, &peek);
      CHECK(r != MPI_REQUEST_NULL, "Request_get_status freed the request");
      CHECK(peek.MPI_SOURCE == src && peek.MPI_TAG == round, "Request_get_status: source %d tag %d", peek.MPI_SOURCE,
            peek.MPI_TAG);
      CHECK(MPI_Wait(&r, &rst) == MPI_SUCCESS && r == MPI_REQUEST_NULL, "Wait after Request_get_status");
    } else {
      CHECK(MPI_Mrecv(in, n, MPI_BYTE, &msg, &rst) == MPI_SUCCESS, "Mrecv");
      CHECK(msg == MPI_MESSAGE_NULL, "Mrecv did not reset the message handle");
    }
    int rn = -1;
    MPI_Get_count(&rst, MPI_BYTE, &rn);
    CHECK(rst.MPI_SOURCE == src && rst.MPI_TAG == round && rn == n, "receive status: source %d tag %d count %d",
          rst.MPI_SOURCE, rst.MPI_TAG, rn);
    check_bytes(in, n, src, round);
    free(in);
    ++next_round[src];
  }
  MPI_Waitall(size * ROUNDS, sends, MPI_STATUSES_IGNORE);
  for (int k = 0; k < size * ROUNDS; ++k) free(out[k]);
  free(out);
  free(sends);
  free(next_round);

  /* ---- a probed message is taken out of matching ---- */
  int a = 1000 + rank, b = 2000 + rank, x = 0, flag = -1;
  MPI_Request r1, r2;
  MPI_Isend(&a, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &r1);
  MPI_Isend(&b, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &r2);
  MPI_Message m1;
  MPI_Status st;
  MPI_Mprobe(0, 7, MPI_COMM_SELF, &m1, &st);
  /* Iprobe and Recv now see the second message, not the probed first. */
  MPI_Iprobe(0, 7, MPI_COMM_SELF, &flag, &st);
  CHECK(flag == 1, "the second message is not visible");
  MPI_Recv(&x, 1, MPI_INT, 0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE);
  CHECK(x == b, "Recv after Mprobe got %d, expected the second message %d", x, b);
  MPI_Message m2 = MPI_MESSAGE_NULL;
  MPI_Improbe(0, 7, MPI_COMM_SELF, &flag, &m2, &st);
  CHECK(flag == 0 && m2 == MPI_MESSAGE_NULL, "a third message appeared");
  MPI_Mrecv(&x, 1, MPI_INT, &m1, MPI_STATUS_IGNORE);
  CHECK(x == a, "Mrecv got %d, expected the probed message %d", x, a);
  MPI_Waitall(2, (MPI_Request[]){r1, r2}, MPI_STATUSES_IGNORE);

  /* ---- MPI_PROC_NULL ---- */
  MPI_Message np = MPI_MESSAGE_NULL;
  CHECK(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &np, &st) == MPI_SUCCESS, "Mprobe(MPI_PROC_NULL)");
  CHECK(np == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
        "Mprobe(MPI_PROC_NULL): message %p source %d tag %d", (void *)np, st.MPI_SOURCE, st.MPI_TAG);
  int count = -1;
  CHECK(MPI_Mrecv(&x, 1, MPI_INT, &np, &st) == MPI_SUCCESS, "Mrecv(MPI_MESSAGE_NO_PROC)");
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(np == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL && count == 0,
        "Mrecv(NO_PROC): source %d count %d", st.MPI_SOURCE, count);
  flag = 0;
  MPI_Improbe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &np, &st);
  CHECK(flag == 1 && np == MPI_MESSAGE_NO_PROC, "Improbe(MPI_PROC_NULL)");
  MPI_Request rn;
  CHECK(MPI_Imrecv(&x, 1, MPI_INT, &np, &rn) == MPI_SUCCESS, "Imrecv(MPI_MESSAGE_NO_PROC)");
  MPI_Wait(&rn, &st);
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Imrecv(NO_PROC) status source %d", st.MPI_SOURCE);

  /* ---- MPI_Request_get_status on a pending receive, then on its end ---- */
  MPI_Request pending;
  MPI_Irecv(&x, 1, MPI_INT, 0, 99, MPI_COMM_SELF, &pending);
  flag = -1;
  MPI_Request_get_status(pending, &flag, &st);
  CHECK(flag == 0, "Request_get_status: a receive nobody sent to is complete");
  int v = 42 + rank;
  MPI_Send(&v, 1, MPI_INT, 0, 99, MPI_COMM_SELF);
  for (flag = 0; !flag;) MPI_Request_get_status(pending, &flag, &st);
  CHECK(pending != MPI_REQUEST_NULL && st.MPI_TAG == 99, "Request_get_status after the send");
  MPI_Wait(&pending, &st);
  CHECK(x == v && st.MPI_TAG == 99, "received %d, expected %d", x, v);
  MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st);
  CHECK(flag == 1, "Request_get_status(MPI_REQUEST_NULL)");

  /* ---- errors through the handler ---- */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int cls = -1;
  MPI_Message null_msg = MPI_MESSAGE_NULL;
  int e = MPI_Mrecv(&x, 1, MPI_INT, &null_msg, MPI_STATUS_IGNORE);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_ARG, "Mrecv(MPI_MESSAGE_NULL): class %d", cls);
  e = MPI_Mprobe(size, 0, MPI_COMM_WORLD, &null_msg, &st);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_RANK, "Mprobe from rank %d of %d: class %d", size, size, cls);
  int pair[2] = {5, 6};
  MPI_Send(pair, 2, MPI_INT, 0, 11, MPI_COMM_SELF);
  MPI_Message big;
  MPI_Mprobe(0, 11, MPI_COMM_SELF, &big, &st);
  e = MPI_Mrecv(&x, 1, MPI_INT, &big, &st);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_TRUNCATE, "Mrecv of 2 ints into 1: class %d", cls);

  /* The calls of one status leave its MPI_ERROR alone (MPI-3.1 3.2.5);
   * Waitall gives each status its request's class. */
  MPI_Status keep;
  MPI_Request rq[2];
  int one = 1;
  MPI_Send(&one, 1, MPI_INT, 0, 12, MPI_COMM_SELF);
  keep.MPI_ERROR = MPI_ERR_DIMS;
  MPI_Mprobe(0, 12, MPI_COMM_SELF, &big, &keep);
  CHECK(keep.MPI_ERROR == MPI_ERR_DIMS && keep.MPI_TAG == 12, "Mprobe wrote MPI_ERROR %d", keep.MPI_ERROR);
  keep.MPI_ERROR = MPI_ERR_TOPOLOGY;
  MPI_Mrecv(&x, 1, MPI_INT, &big, &keep);
  CHECK(keep.MPI_ERROR == MPI_ERR_TOPOLOGY && x == 1, "Mrecv wrote MPI_ERROR %d", keep.MPI_ERROR);
  keep.MPI_ERROR = MPI_ERR_DIMS;
  MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_SELF, &big, &keep);
  CHECK(keep.MPI_ERROR == MPI_ERR_DIMS && keep.MPI_SOURCE == MPI_PROC_NULL, "Mprobe(MPI_PROC_NULL) wrote MPI_ERROR %d",
        keep.MPI_ERROR);
  MPI_Isend(&one, 1, MPI_INT, 0, 13, MPI_COMM_SELF, &rq[0]);
  MPI_Irecv(&x, 1, MPI_INT, 0, 13, MPI_COMM_SELF, &rq[1]);
  keep.MPI_ERROR = MPI_ERR_DIMS;
  MPI_Wait(&rq[1], &keep);
  CHECK(keep.MPI_ERROR == MPI_ERR_DIMS && keep.MPI_SOURCE == 0, "Wait wrote MPI_ERROR %d", keep.MPI_ERROR);
  MPI_Status two[2];
  two[0].MPI_ERROR = two[1].MPI_ERROR = MPI_ERR_DIMS;
  MPI_Irecv(&x, 1, MPI_INT, 0, 14, MPI_COMM_SELF, &rq[1]);
  MPI_Send(&one, 1, MPI_INT, 0, 14, MPI_COMM_SELF);
  MPI_Waitall(2, rq, two);
  CHECK(two[0].MPI_ERROR == MPI_SUCCESS && two[1].MPI_ERROR == MPI_SUCCESS, "Waitall: MPI_ERROR %d %d",
        two[0].MPI_ERROR, two[1].MPI_ERROR);

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("mprobe: ok (%d ranks)\n", size);
  MPI_Finalize();
  return 0;
}
