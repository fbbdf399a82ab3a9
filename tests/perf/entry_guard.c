/* entry_guard.c: nanoseconds per call of a trivial MPI function (MPI_Comm_rank),
 * the price of the MPI entry guard; compare `mpirun -np 1 --mca cr none` with
 * `--mca cr criu` (entry lock on). Single process: no communication noise. */
#include <mpi.h>
#include <stdio.h>
int main(int c, char** v) {
  MPI_Init(&c, &v);
  int r = 0, s = 0;
  long n = 100000000;
  for (int rep = 0; rep < 3; ++rep) {
    double t0 = MPI_Wtime();
    for (long i = 0; i < n; ++i) { MPI_Comm_rank(MPI_COMM_WORLD, &r); s += r; }
    double t1 = MPI_Wtime();
    printf("%.3f ns per MPI_Comm_rank\n", (t1 - t0) * 1e9 / n);
  }
  MPI_Finalize();
  return s;
}
