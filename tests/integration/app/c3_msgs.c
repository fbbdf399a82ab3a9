/* c3_msgs.c: messages that cross an application-level checkpoint's line
 * (crcp/c3), for app_test.sh. 3 ranks; snapshots every 2 LZ_Checkpoint
 * calls (--mca cr_app_every 2), so the line is the second call, at the top
 * of phase 1. In the first run rank 1 then stalls in phase 2 (printing its
 * pid) until the test kills it; --recover auto restarts from the line.
 *
 *   late   rank 0 sends in phase 0 (before its line); rank 1 receives in
 *          phase 1 (after its line): logged, replayed after the restart.
 *   early  rank 1 receives in phase 0 (before its line) what rank 0 sends
 *          in phase 1 (after its line): rank 0's re-send is suppressed.
 *   wild   rank 1 receives twice from MPI_ANY_SOURCE in phase 1: rank 2's
 *          message (sent after its line) first, then rank 0's late one
 *          (rank 0 waits for rank 2's to be matched); after the restart the
 *          replayed late message is there first, yet the first wildcard
 *          receive must match rank 2's again.
 *   wildprobe  the same as wild with MPI_Mprobe + MPI_Mrecv from
 *          MPI_ANY_SOURCE instead of MPI_Recv: a matched probe is a
 *          wildcard receive too, replayed the same way.
 *   rule   rank 1 calls LZ_Checkpoint with a receive pending: a fatal error
 *          naming the rule (the job must not go on).
 * Every mode ends with a check that no message is left over (a duplicate).
 */
#include <lazarus/checkpoint.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One int with tag 9 from MPI_ANY_SOURCE, by MPI_Recv or by a matched probe. */
static void recv_any(int *v, MPI_Status *st, int probe) {
  if (!probe) {
    MPI_Recv(v, 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, st);
    return;
  }
  MPI_Message m;
  MPI_Mprobe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &m, st);
  MPI_Mrecv(v, 1, MPI_INT, &m, st);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = argc > 1 ? argv[1] : "late";
  int phase = 0, got = -1, got2 = -1, src1 = -1, src2 = -1;
  LZ_Register("phase", &phase, 1, MPI_INT);
  LZ_Register("got", &got, 1, MPI_INT);
  LZ_Register("got2", &got2, 1, MPI_INT);
  LZ_Register("src1", &src1, 1, MPI_INT);
  LZ_Register("src2", &src2, 1, MPI_INT);
  int restarting = 0;
  LZ_Restarting(&restarting);
  if (restarting) {
    LZ_Restore();
    if (rank == 1) printf("restarted at phase %d\n", phase);
  }
  const int late = !strcmp(mode, "late"), early = !strcmp(mode, "early"), probe = !strcmp(mode, "wildprobe");
  const int wild = probe || !strcmp(mode, "wild");
  for (; phase < 3; ++phase) {
    if (!strcmp(mode, "rule") && rank == 1 && phase == 1) {
      int x;
      MPI_Request req;
      MPI_Irecv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &req);
      LZ_Checkpoint(NULL); /* MPI_ERRORS_ARE_FATAL: prints the rule and ends the job */
      printf("rule: LZ_Checkpoint with a receive pending returned\n");
      fflush(stdout);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    int taken = 0;
    LZ_Checkpoint(&taken);
    if (taken && rank == 1) printf("snapshot taken at phase %d\n", phase);
    fflush(stdout);
    if (phase == 0) {
      if (late && rank == 0) { int v = 1234; MPI_Send(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD); }
      if (early && rank == 1) MPI_Recv(&got, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (wild && rank == 0) {
        int token;  /* rank 1 says when rank 2's message is matched */
        MPI_Request req;
        MPI_Irecv(&token, 1, MPI_INT, 1, 11, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        int v = 1000;
        MPI_Send(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
      }
    } else if (phase == 1) {
      if (late && rank == 1) MPI_Recv(&got, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (early && rank == 0) { int v = 5678; MPI_Send(&v, 1, MPI_INT, 1, 8, MPI_COMM_WORLD); }
      if (wild && rank == 2) { int v = 2000; MPI_Send(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD); }
      if (wild && rank == 1) {
        MPI_Status st;
        recv_any(&got, &st, probe);
        src1 = st.MPI_SOURCE;
        int token = 1; /* sent again after a restart, and suppressed: rank 0 had it before its line */
        MPI_Send(&token, 1, MPI_INT, 0, 11, MPI_COMM_WORLD);
        recv_any(&got2, &st, probe);
        src2 = st.MPI_SOURCE;
        printf("wild: first from rank %d (%d), second from rank %d (%d)\n", src1, got, src2, got2);
      }
    } else if (phase == 2 && !restarting && rank == 1) {
      printf("rank 1 pid %d stalling\n", (int)getpid());
      fflush(stdout);
      sleep(120);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int left = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &left, MPI_STATUS_IGNORE);
  if (left) printf("rank %d: a message is left over (duplicate)\n", rank);
  if (rank == 1) printf("%s: got %d got2 %d left %d\n", mode, got, got2, left);
  MPI_Finalize();
  return 0;
}
