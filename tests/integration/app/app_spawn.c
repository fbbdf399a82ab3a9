/* Jobs that spawned jobs under cr=app (app_spawn_test.sh): the 2 ranks of
 * the first job spawn a job of 2 ranks before they register anything (so
 * a restart spawns it again, and the launcher resumes it from its
 * snapshot); with LEVELS 3 that job spawns one more the same way.
 * Every step, rank p of the first job receives the result of rank p of the
 * job below and sends it the next task at once, before its next safe
 * point: that task crosses the line (sent before the sender's, received
 * after the receiver's), so the receiver's snapshot must log it (crcp/c3
 * over the bridge). A job below keeps a running sum of its tasks, passes
 * each task further down when it has a job below, and answers
 * 3 * task + sum (+ the answer from below). The first job sums the results;
 * its rank 0 prints "app_spawn: total T", with 2 levels also
 * "(expected E)" and "app_spawn: ok" when they agree.
 *   app_spawn STEPS [DELAY_US [AFTER [LEVELS]]]
 * With AFTER, the jobs below end after the STEPS (disconnect, finalize)
 * and the first job goes on alone for AFTER more steps with safe points,
 * whose snapshots cannot be taken (a job of the tree has ended).
 * Restarted, rank 0 of each job prints "app_spawn: parent|child restarted
 * at step S" (child: any job that was spawned). */
#include <lazarus/checkpoint.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long task_of(long step, int rank) { return step * 7 + rank + 1; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long steps = argc > 1 ? atol(argv[1]) : 40;
  const int delay_us = argc > 2 ? atoi(argv[2]) : 0;
  const long after = argc > 3 ? atol(argv[3]) : 0;
  const int levels = argc > 4 ? atoi(argv[4]) : 2;
  MPI_Comm up = MPI_COMM_NULL, down = MPI_COMM_NULL;
  MPI_Comm_get_parent(&up);
  const int child = up != MPI_COMM_NULL;
  if (levels > 1) {
    char below[16];
    snprintf(below, sizeof below, "%d", levels - 1);
    char *args[] = {argv[1], argc > 2 ? argv[2] : "0", "0", below, NULL};
    MPI_Comm_spawn(argv[0], args, size, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &down, MPI_ERRCODES_IGNORE);
  }
  long step = 0, sum = 0;
  LZ_Register("step", &step, 1, MPI_LONG);
  LZ_Register("sum", &sum, 1, MPI_LONG);
  int restarting = 0;
  LZ_Restarting(&restarting);
  if (restarting) {
    LZ_Restore();
    if (rank == 0) {
      printf("app_spawn: %s restarted at step %ld\n", child ? "child" : "parent", step);
      fflush(stdout);
    }
  }
  if (!child && step == 0) {
    const long t = task_of(0, rank);
    MPI_Send(&t, 1, MPI_LONG, rank, 1, down);
  }
  const long last = child ? steps : steps + after;
  for (; step < last; ++step) {
    LZ_Checkpoint(NULL);
    if (step >= steps) { /* the first job alone */
      if (step == steps) MPI_Comm_disconnect(&down);
      long one = 1, all = 0;
      MPI_Allreduce(&one, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
      sum += all - size;
    } else if (child) {
      long t = 0, below = 0;
      MPI_Recv(&t, 1, MPI_LONG, rank, 1, up, MPI_STATUS_IGNORE);
      if (t != task_of(step, rank)) {
        fprintf(stderr, "app_spawn: rank %d got task %ld at step %ld, expected %ld\n", rank, t, step,
                task_of(step, rank));
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
      sum += t;
      if (down != MPI_COMM_NULL) {
        MPI_Send(&t, 1, MPI_LONG, rank, 1, down);
        MPI_Recv(&below, 1, MPI_LONG, rank, 2, down, MPI_STATUS_IGNORE);
      }
      const long result = 3 * t + sum + below;
      MPI_Send(&result, 1, MPI_LONG, rank, 2, up);
    } else {
      long result = 0;
      MPI_Recv(&result, 1, MPI_LONG, rank, 2, down, MPI_STATUS_IGNORE);
      sum += result;
      if (step + 1 < steps) {
        const long t = task_of(step + 1, rank);
        MPI_Send(&t, 1, MPI_LONG, rank, 1, down);
      }
    }
    if (delay_us) usleep(delay_us);
  }
  if (!child) {
    long total = 0, expect = 0;
    MPI_Reduce(&sum, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r) {
      long s = 0;
      for (long k = 0; k < steps; ++k) {
        s += task_of(k, r);
        expect += 3 * task_of(k, r) + s;
      }
    }
    if (rank == 0 && levels == 2) {
      printf("app_spawn: total %ld (expected %ld)\n", total, expect);
      if (total == expect) printf("app_spawn: ok\n");
    } else if (rank == 0) {
      printf("app_spawn: total %ld\n", total);
    }
  }
  if (up != MPI_COMM_NULL) MPI_Comm_disconnect(&up);
  if (down != MPI_COMM_NULL) MPI_Comm_disconnect(&down);
  MPI_Finalize();
  return 0;
}
