/* A job and the job it spawned, checkpointed and restarted as one
 * (cr_spawn_test.sh). The 2 parents spawn 2 children; every iteration each
 * parent p sends child p a small and a large (rendezvous-sized) message
 * over the intercommunicator, the child answers with their sum plus its
 * own term, and both groups reduce across the intercommunicator, so that
 * checkpoints land with messages in flight between the two jobs. Each
 * process checks every answer; parent 0 prints the total and the total
 * the arithmetic gives, and "cr_spawn: ok" when they agree.
 *   cr_spawn ITERS [AFTER [slowchildren]]
 * With AFTER, the children end once the ITERS are done (disconnect,
 * finalize) and the parents go on alone for AFTER more reductions of their
 * own, holding the bridges to the ended job: checkpoints then find its
 * processes gone.
 * With "slowchildren" the spawned processes sleep 5 s before MPI_Init, so
 * that the parents stay inside MPI_Comm_spawn meanwhile.
 * Paced by cr_pace.h (CR_ITER_RELEASE ends the pauses). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cr_pace.h"

enum { kBig = 100000 }; /* longs: 800 KB, a rendezvous on every transport */

static void die(const char *what, long it) {
  fprintf(stderr, "cr_spawn: %s at iteration %ld\n", what, it);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

int main(int argc, char **argv) {
  if (argc > 3 && strcmp(argv[3], "sleepfirst") == 0) sleep(5); /* a slow child */
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm parent = MPI_COMM_NULL, inter = MPI_COMM_NULL;
  MPI_Comm_get_parent(&parent);
  const long iters = argc > 1 ? atol(argv[1]) : 200;
  const long after = argc > 2 ? atol(argv[2]) : 0;
  const int child = parent != MPI_COMM_NULL;
  if (child) {
    inter = parent;
  } else {
    const int slow = argc > 3 && strcmp(argv[3], "slowchildren") == 0;
    char *args[] = {argv[1], argc > 2 ? argv[2] : NULL, slow ? "sleepfirst" : NULL, NULL};
    MPI_Comm_spawn(argv[0], args, size, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    if (rank == 0) {
      printf("cr_spawn: spawned\n");
      fflush(stdout);
    }
  }
  int remote = 0;
  MPI_Comm_remote_size(inter, &remote);
  if (remote != size) die("the other group is not as large as this one", -1);
  long *big = malloc(sizeof(long) * kBig);
  long total = 0, expect = 0;
  for (long it = 0; it < iters; ++it) {
    const long small = it * 1000 + rank;
    if (!child) {
      for (long i = 0; i < kBig; ++i) big[i] = it + i;
      MPI_Request rq[2];
      MPI_Isend(&small, 1, MPI_LONG, rank, 1, inter, &rq[0]);
      MPI_Isend(big, kBig, MPI_LONG, rank, 2, inter, &rq[1]);
      MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
      long answer = 0;
      MPI_Recv(&answer, 1, MPI_LONG, rank, 3, inter, MPI_STATUS_IGNORE);
      /* sum of it + i over i < kBig, plus small, plus the child's term 7 * it */
      const long want = it * kBig + (long)kBig * (kBig - 1) / 2 + small + 7 * it;
      if (answer != want) die("a wrong answer from the child", it);
      total += answer;
    } else {
      long got = 0;
      MPI_Recv(&got, 1, MPI_LONG, rank, 1, inter, MPI_STATUS_IGNORE);
      MPI_Recv(big, kBig, MPI_LONG, rank, 2, inter, MPI_STATUS_IGNORE);
      long sum = got + 7 * it;
      for (long i = 0; i < kBig; ++i) {
        if (big[i] != it + i) die("a wrong large message from the parent", it);
        sum += big[i];
      }
      MPI_Send(&sum, 1, MPI_LONG, rank, 3, inter);
      total += sum;
    }
    /* Both groups: the other group's sum of ranks (over the intercommunicator). */
    int mine = rank, theirs = 0;
    MPI_Allreduce(&mine, &theirs, 1, MPI_INT, MPI_SUM, inter);
    if (theirs != remote * (remote - 1) / 2) die("a wrong intercommunicator reduction", it);
    cr_pace();
  }
  for (long it = 0; it < iters; ++it)
    for (int r = 0; r < size; ++r) expect += it * kBig + (long)kBig * (kBig - 1) / 2 + it * 1000 + r + 7 * it;
  if (after > 0) {
    MPI_Comm_disconnect(&inter);
    if (child) {
      free(big);
      MPI_Finalize();
      return 0;
    }
    for (long it = 0; it < after; ++it) {
      long mine = it + rank, sum = 0;
      MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
      if (sum != size * it + (long)size * (size - 1) / 2) die("a wrong reduction after the children ended", it);
      if (rank == 0) total += sum;
      expect += sum;
      cr_pace();
    }
  }
  long all = 0;
  MPI_Reduce(&total, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (!child && rank == 0) {
    printf("cr_spawn: total %ld, expected %ld\n", all, expect);
    if (all == expect) printf("cr_spawn: ok\n");
    fflush(stdout);
  }
  free(big);
  if (after == 0) MPI_Comm_disconnect(&inter);
  MPI_Finalize();
  return 0;
}
