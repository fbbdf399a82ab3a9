/* jacobi.c: 1-D heat equation by Jacobi iteration, block-distributed over the
 * ranks, with halo exchange (MPI_Sendrecv) and a global residual
 * (MPI_Allreduce) every iteration. The main job of scripts/demo.
 *
 *   mpicc jacobi.c -o jacobi && mpirun -np 4 ./jacobi [cells] [iterations]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long cells = argc > 1 ? atol(argv[1]) : 1 << 16;
  int iters = argc > 2 ? atoi(argv[2]) : 2000;
  long n = cells / size + (rank < cells % size ? 1 : 0);
  double *u = calloc((size_t)n + 2, sizeof(double)), *v = calloc((size_t)n + 2, sizeof(double));
  if (!u || !v) MPI_Abort(MPI_COMM_WORLD, 1);
  /* Hot left wall, cold right wall. */
  if (rank == 0) u[0] = v[0] = 100.0;
  int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  double residual = 0.0;
  for (int it = 0; it < iters; ++it) {
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 0) u[0] = 100.0;
    double local = 0.0;
    for (long i = 1; i <= n; ++i) {
      v[i] = 0.5 * (u[i - 1] + u[i + 1]);
      double d = v[i] - u[i];
      local += d * d;
    }
    double *t = u; u = v; v = t;
    MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  /* Checksum: the temperature weighted by the square of the global cell index. */
  long first = rank * (cells / size) + (rank < cells % size ? rank : cells % size);
  double local_sum = 0.0, total = 0.0;
  for (long i = 1; i <= n; ++i) {
    double g = (double)(first + i);
    local_sum += u[i] * g * g;
  }
  MPI_Reduce(&local_sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("jacobi: %d ranks, %ld cells, %d iterations: residual %.12e checksum %.12e\n", size, cells, iters, residual, total);
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
