/* A job and the job it spawned under cr=app (app_test.sh spawn*): the 2
 * parents spawn 2 children before they register anything (so a restart
 * spawns them again, and the launcher resumes them from their snapshot).
 * Every step, parent p receives child p's result and sends it the next
 * task at once, before its next safe point: that task crosses the line
 * (sent before the parent's, received after the child's), so the child's
 * snapshot must log it (crcp/c3 over the bridge). Each child keeps a
 * running sum of its tasks; each parent sums the results. Parent 0 prints
 * "app_spawn: total T (expected E)" and "app_spawn: ok" when they agree.
 *   app_spawn STEPS [DELAY_US [AFTER]]
 * With AFTER, the children end after the STEPS (disconnect, finalize) and
 * the parents go on alone for AFTER more steps with safe points, whose
 * snapshots cannot be taken (a job of the tree has ended).
 * Restarted, parent 0 prints "app_spawn: parent restarted at step S" and
 * child 0 "app_spawn: child restarted at step S". */
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
  MPI_Comm inter = MPI_COMM_NULL;
  MPI_Comm_get_parent(&inter);
  const int child = inter != MPI_COMM_NULL;
  if (!child) {
    char *args[] = {argv[1], argc > 2 ? argv[2] : NULL, NULL};
    MPI_Comm_spawn(argv[0], args, size, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
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
    MPI_Send(&t, 1, MPI_LONG, rank, 1, inter);
  }
  const long last = child ? steps : steps + after;
  for (; step < last; ++step) {
    LZ_Checkpoint(NULL);
    if (step >= steps) { /* the parents alone */
      if (step == steps) MPI_Comm_disconnect(&inter);
      long one = 1, all = 0;
      MPI_Allreduce(&one, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
      sum += all - size;
    } else if (child) {
      long t = 0;
      MPI_Recv(&t, 1, MPI_LONG, rank, 1, inter, MPI_STATUS_IGNORE);
      if (t != task_of(step, rank)) {
        fprintf(stderr, "app_spawn: child %d got task %ld at step %ld, expected %ld\n", rank, t, step,
                task_of(step, rank));
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
      sum += t;
      const long result = 3 * t + sum;
      MPI_Send(&result, 1, MPI_LONG, rank, 2, inter);
    } else {
      long result = 0;
      MPI_Recv(&result, 1, MPI_LONG, rank, 2, inter, MPI_STATUS_IGNORE);
      sum += result;
      if (step + 1 < steps) {
        const long t = task_of(step + 1, rank);
        MPI_Send(&t, 1, MPI_LONG, rank, 1, inter);
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
    if (rank == 0) {
      printf("app_spawn: total %ld (expected %ld)\n", total, expect);
      if (total == expect) printf("app_spawn: ok\n");
    }
  }
  if (inter != MPI_COMM_NULL) MPI_Comm_disconnect(&inter);
  MPI_Finalize();
  return 0;
}
