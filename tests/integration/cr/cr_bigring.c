/* A ring of 1 MiB messages for the checkpoint/restart scenarios (cr_test.sh
 * `large`): every iteration each rank sends 1 MiB to its right neighbour and
 * receives 1 MiB from its left one (a rendezvous, over shm, ucx and ofi a
 * get), checks every word, folds it into its value and sums the values with
 * MPI_Allreduce, then sleeps 20 ms (cr_pace.h), so that checkpoints land
 * while large transfers are under way. Rank 0 prints "result N".
 * Usage: cr_bigring ITERATIONS */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cr_pace.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 100;
  const int n = 1 << 17; /* 1 MiB of uint64_t */
  uint64_t* out = malloc(n * sizeof *out);
  uint64_t* in = malloc(n * sizeof *in);
  uint64_t v = (uint64_t)rank + 1, sum = 0;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int it = 0; it < iters; ++it) {
    for (int k = 0; k < n; ++k) out[k] = v * (uint64_t)(k + 1) + (uint64_t)it;
    MPI_Sendrecv(out, n, MPI_UINT64_T, right, 3, in, n, MPI_UINT64_T, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const uint64_t lv = in[0] - (uint64_t)it;
    for (int k = 0; k < n; ++k) {
      if (in[k] != lv * (uint64_t)(k + 1) + (uint64_t)it) {
        fprintf(stderr, "rank %d: bad word %d at iteration %d\n", rank, k, it);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
    }
    v = v * 6364136223846793005ull + lv;
    MPI_Allreduce(&v, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    cr_pace();
  }
  if (rank == 0) printf("result %llu\n", (unsigned long long)(sum % 1000000007ull));
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
