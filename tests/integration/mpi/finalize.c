/* Messages sent just before MPI_Finalize must arrive.
 *
 * Each scenario's only communication is a few messages right before
 * MPI_Finalize, so over tcp they are the first (and last) on their
 * connections: a send completes locally while its connection's handshake is
 * still under way, and nothing but MPI_Finalize is left to finish it.
 *
 *   finalize reduce             the simplest program: MPI_Reduce of rank+1, prints "sum N"
 *   finalize coll NAME          NAME is one collective (barrier, bcast, ..., exscan) or "all"
 *                               (each in a fresh job is the driver's business)
 *   finalize last_first         every rank's last message is its first to that peer:
 *                               rank r sends to r+1 and r-1 once, then finalizes
 *   finalize late_receiver MS   ranks > 0 send to rank 0 and finalize; rank 0 computes
 *                               (no MPI call) for MS ms before it receives
 *   finalize busy_sender MS     ranks > 0 send to rank 0, then compute MS ms outside MPI
 *                               while rank 0 waits for them, then finalize
 *   finalize large_last         every rank sends 256 KiB to r+1 and receives from r-1, then
 *                               finalizes: over UCX's tcp the receiver makes its bulk
 *                               endpoint to the sender just as the sender finalizes
 *                               (transport/ucx's handshake, ucx_bulk_endpoint.cpp)
 *   finalize after_file PATH    one allreduce (connections made), then waits outside MPI
 *                               until PATH exists (the driver checkpoints meanwhile), then
 *                               the reduce scenario
 *
 * Every check aborts the job with a message (lz_test.h); success prints "ok".
 */
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lz_test.h"

static int rank, size;

/* Busy work outside MPI for `ms` milliseconds (no sleep: a rank that
 * computes is what the scenarios model). */
static void compute(long ms) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  volatile double x = 1;
  do {
    for (int i = 0; i < 10000; ++i) x = x * 1.0000001 + 1e-9;
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static void reduce_sum(void) {
  int x = rank + 1, s = 0;
  MPI_Reduce(&x, &s, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    CHECK(s == size * (size + 1) / 2, "sum %d, expected %d", s, size * (size + 1) / 2);
    printf("sum %d\n", s);
  }
}

/* Runs collective `name` once with small, rank-dependent data and checks the
 * result; returns 0 when the name is unknown. */
static int one_collective(const char *name) {
  const int n = size;
  int a[64], b[64], counts[64], displs[64];
  CHECK(n <= 64, "at most 64 ranks");
  for (int i = 0; i < n; ++i) {
    a[i] = rank * 100 + i;
    b[i] = -1;
    counts[i] = 1;
    displs[i] = i;
  }
  const int root = n - 1;
  if (!strcmp(name, "barrier")) {
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (!strcmp(name, "bcast")) {
    int v = rank == root ? 4242 : 0;
    MPI_Bcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD);
    CHECK(v == 4242, "bcast gave %d", v);
  } else if (!strcmp(name, "reduce")) {
    int v = rank + 1, s = 0;
    MPI_Reduce(&v, &s, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    if (rank == root) CHECK(s == n * (n + 1) / 2, "reduce gave %d", s);
  } else if (!strcmp(name, "allreduce")) {
    int v = rank + 1, s = 0;
    MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(s == n, "allreduce gave %d", s);
  } else if (!strcmp(name, "gather") || !strcmp(name, "gatherv")) {
    int v = rank * 7;
    if (name[6] == 'v')
      MPI_Gatherv(&v, 1, MPI_INT, b, counts, displs, MPI_INT, root, MPI_COMM_WORLD);
    else
      MPI_Gather(&v, 1, MPI_INT, b, 1, MPI_INT, root, MPI_COMM_WORLD);
    if (rank == root)
      for (int i = 0; i < n; ++i) CHECK(b[i] == i * 7, "%s: b[%d] = %d", name, i, b[i]);
  } else if (!strcmp(name, "scatter") || !strcmp(name, "scatterv")) {
    int v = -1;
    if (name[7] == 'v')
      MPI_Scatterv(a, counts, displs, MPI_INT, &v, 1, MPI_INT, root, MPI_COMM_WORLD);
    else
      MPI_Scatter(a, 1, MPI_INT, &v, 1, MPI_INT, root, MPI_COMM_WORLD);
    CHECK(v == root * 100 + rank, "%s gave %d", name, v);
  } else if (!strcmp(name, "allgather") || !strcmp(name, "allgatherv")) {
    int v = rank * 3;
    if (name[9] == 'v')
      MPI_Allgatherv(&v, 1, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD);
    else
      MPI_Allgather(&v, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < n; ++i) CHECK(b[i] == i * 3, "%s: b[%d] = %d", name, i, b[i]);
  } else if (!strcmp(name, "alltoall") || !strcmp(name, "alltoallv")) {
    if (name[8] == 'v')
      MPI_Alltoallv(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD);
    else
      MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < n; ++i) CHECK(b[i] == i * 100 + rank, "%s: b[%d] = %d", name, i, b[i]);
  } else if (!strcmp(name, "reduce_scatter") || !strcmp(name, "reduce_scatter_block")) {
    int v = -1;
    if (!strcmp(name, "reduce_scatter"))
      MPI_Reduce_scatter(a, &v, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else
      MPI_Reduce_scatter_block(a, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    /* sum over ranks q of (q * 100 + rank) */
    CHECK(v == 100 * n * (n - 1) / 2 + n * rank, "%s gave %d", name, v);
  } else if (!strcmp(name, "scan") || !strcmp(name, "exscan")) {
    int v = rank + 1, s = -1;
    if (name[0] == 'e') {
      MPI_Exscan(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      if (rank > 0) CHECK(s == rank * (rank + 1) / 2, "exscan gave %d", s);
    } else {
      MPI_Scan(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      CHECK(s == (rank + 1) * (rank + 2) / 2, "scan gave %d", s);
    }
  } else {
    return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *scen = argc > 1 ? argv[1] : "reduce";
  const char *arg = argc > 2 ? argv[2] : "";

  if (!strcmp(scen, "reduce")) {
    reduce_sum();
  } else if (!strcmp(scen, "coll")) {
    CHECK(one_collective(arg), "unknown collective '%s'", arg);
  } else if (!strcmp(scen, "last_first")) {
    int up = -1, down = -1, mine = rank;
    MPI_Request rq[4];
    int nr = 0;
    if (rank + 1 < size) {
      MPI_Isend(&mine, 1, MPI_INT, rank + 1, 1, MPI_COMM_WORLD, &rq[nr++]);
      MPI_Irecv(&up, 1, MPI_INT, rank + 1, 2, MPI_COMM_WORLD, &rq[nr++]);
    }
    if (rank > 0) {
      MPI_Isend(&mine, 1, MPI_INT, rank - 1, 2, MPI_COMM_WORLD, &rq[nr++]);
      MPI_Irecv(&down, 1, MPI_INT, rank - 1, 1, MPI_COMM_WORLD, &rq[nr++]);
    }
    MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
    if (rank + 1 < size) CHECK(up == rank + 1, "from rank %d got %d", rank + 1, up);
    if (rank > 0) CHECK(down == rank - 1, "from rank %d got %d", rank - 1, down);
  } else if (!strcmp(scen, "large_last")) {
    enum { N = 256 * 1024 };
    static unsigned char out[N], in[N];
    const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int i = 0; i < N; ++i) out[i] = (unsigned char)(rank * 31 + i * 7);
    MPI_Request rq[2];
    MPI_Irecv(in, N, MPI_BYTE, prev, 3, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(out, N, MPI_BYTE, next, 3, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    for (int i = 0; i < N; ++i)
      CHECK(in[i] == (unsigned char)(prev * 31 + i * 7), "byte %d from rank %d is %u", i, prev, in[i]);
  } else if (!strcmp(scen, "late_receiver") || !strcmp(scen, "busy_sender")) {
    const long ms = atol(arg);
    const int late = !strcmp(scen, "late_receiver");
    if (rank == 0) {
      if (late) compute(ms);
      long sum = 0;
      for (int i = 1; i < size; ++i) {
        int v = -1;
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sum += v;
      }
      CHECK(sum == (long)size * (size - 1) / 2, "sum %ld", sum);
    } else {
      MPI_Send(&rank, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
      if (!late) compute(ms);
    }
  } else if (!strcmp(scen, "after_file")) {
    int v = 1, s = 0;
    MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(s == size, "allreduce gave %d", s);
    printf("rank %d ready\n", rank);
    fflush(stdout);
    struct stat st;
    for (int i = 0; stat(arg, &st) != 0; ++i) {
      CHECK(i < 60000, "%s did not appear within 600 s", arg);
      usleep(10000);
    }
    reduce_sum();
  } else {
    CHECK(0, "unknown scenario '%s'", scen);
  }
  if (rank == 0) printf("ok\n");
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
