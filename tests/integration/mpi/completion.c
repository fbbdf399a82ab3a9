/* Completion calls and probes: Waitany/Waitsome/Testany/Testsome/Testall over
 * receives from every rank, Probe + Get_count before a receive of the probed
 * size, Iprobe, cancelling a receive that never matches, MPI_PROC_NULL. */
#include <string.h>
#include "lz_test.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm bar;
  MPI_Comm_dup(MPI_COMM_WORLD, &bar);

  /* Waitany / Waitsome / Testany / Testsome: one message from every rank. */
  for (int variant = 0; variant < 4; ++variant) {
    int *in = calloc((size_t)size, sizeof(int));
    MPI_Request *rr = malloc(sizeof(MPI_Request) * (size_t)size), *sr = malloc(sizeof(MPI_Request) * (size_t)size);
    for (int s = 0; s < size; ++s) MPI_Irecv(&in[s], 1, MPI_INT, s, 10 + variant, MPI_COMM_WORLD, &rr[s]);
    int val = rank * 100 + variant;
    for (int d = 0; d < size; ++d) MPI_Isend(&val, 1, MPI_INT, d, 10 + variant, MPI_COMM_WORLD, &sr[d]);
    int done = 0, *seen = calloc((size_t)(size > 0 ? size : 1), sizeof(int));
    while (done < size) {
      int idx[64], n = 0;
      MPI_Status st[64];
      if (variant == 0) {
        MPI_Waitany(size, rr, &idx[0], &st[0]);
        n = 1;
      } else if (variant == 1) {
        MPI_Waitsome(size, rr, &n, idx, st);
      } else if (variant == 2) {
        int flag = 0;
        MPI_Testany(size, rr, &idx[0], &flag, &st[0]);
        n = flag && idx[0] != MPI_UNDEFINED ? 1 : 0;
      } else {
        MPI_Testsome(size, rr, &n, idx, st);
      }
      for (int k = 0; k < n; ++k) {
        CHECK(!seen[idx[k]], "index %d reported twice", idx[k]);
        CHECK(rr[idx[k]] == MPI_REQUEST_NULL, "completed request not freed");
        CHECK(st[k].MPI_SOURCE == idx[k], "status source %d for index %d", st[k].MPI_SOURCE, idx[k]);
        seen[idx[k]] = 1;
        ++done;
      }
    }
    int idx, flag;
    MPI_Waitany(size, rr, &idx, MPI_STATUS_IGNORE);
    CHECK(idx == MPI_UNDEFINED, "Waitany on null requests gave %d", idx);
    for (int s = 0; s < size; ++s) CHECK(in[s] == s * 100 + variant, "value %d from %d", in[s], s);
    do MPI_Testall(size, sr, &flag, MPI_STATUSES_IGNORE); while (!flag);
    free(in), free(rr), free(sr), free(seen);
    lz_barrier(bar);
  }

  /* Probe + Get_count, then a receive of exactly that size. */
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int n = 1000 + rank * 37;
  int *msg = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) msg[i] = rank + i;
  MPI_Request sreq;
  MPI_Isend(msg, n, MPI_INT, next, 20, MPI_COMM_WORLD, &sreq);
  MPI_Status st;
  MPI_Probe(MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, &st);
  int count;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(st.MPI_SOURCE == prev && count == 1000 + prev * 37, "probe: source %d count %d", st.MPI_SOURCE, count);
  int flag = 0;
  MPI_Iprobe(prev, 20, MPI_COMM_WORLD, &flag, &st);
  CHECK(flag, "Iprobe missed a message Probe found");
  int *got = malloc(sizeof(int) * (size_t)count);
  MPI_Recv(got, count, MPI_INT, st.MPI_SOURCE, 20, MPI_COMM_WORLD, &st);
  for (int i = 0; i < count; ++i) CHECK(got[i] == prev + i, "element %d", i);
  MPI_Get_elements(&st, MPI_INT, &count);
  CHECK(count == 1000 + prev * 37, "Get_elements %d", count);
  MPI_Wait(&sreq, MPI_STATUS_IGNORE);
  free(msg), free(got);

  /* Cancel a receive nobody sends to. */
  MPI_Request creq;
  int dummy;
  MPI_Irecv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &creq);
  MPI_Cancel(&creq);
  MPI_Wait(&creq, &st);
  int cancelled;
  MPI_Test_cancelled(&st, &cancelled);
  CHECK(cancelled, "receive was not cancelled");

  /* MPI_PROC_NULL */
  MPI_Send(&dummy, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
  MPI_Recv(&dummy, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && count == 0, "PROC_NULL status %d/%d", st.MPI_SOURCE, count);
  lz_barrier(bar);
  MPI_Comm_free(&bar);
  if (rank == 0) printf("completion: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
