/* sdk_job.c: what the SDK examples' jobs check, every result against values
 * computed locally: a ring of point-to-point messages of several sizes (eager
 * and rendezvous, through the transport under test), MPI_Allreduce of int,
 * double and a non-commutative user op (2x2 integer matrix product, so a
 * module that reduced out of rank order gives another matrix) on
 * MPI_COMM_WORLD and on a split communicator, in place too, and a barrier
 * and bcast (which coll/allring leaves to the next module). Prints
 * "sdk_job: errors 0" on rank 0 when all is right. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors = 0;
#define CHECK(c, ...)                          \
  do {                                         \
    if (!(c)) {                                \
      ++errors;                                \
      fprintf(stderr, "rank check failed: " __VA_ARGS__); \
      fprintf(stderr, "\n");                   \
    }                                          \
  } while (0)

/* inout = in * inout, 2x2 matrices of ints mod 1000003, row major. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  int *a = in, *b = inout;
  for (int k = 0; k < *len; ++k, a += 4, b += 4) {
    long r0 = ((long)a[0] * b[0] + (long)a[1] * b[2]) % 1000003, r1 = ((long)a[0] * b[1] + (long)a[1] * b[3]) % 1000003;
    long r2 = ((long)a[2] * b[0] + (long)a[3] * b[2]) % 1000003, r3 = ((long)a[2] * b[1] + (long)a[3] * b[3]) % 1000003;
    b[0] = (int)r0, b[1] = (int)r1, b[2] = (int)r2, b[3] = (int)r3;
  }
}

static void mat_of(int r, int k, int *m) { m[0] = r + 1; m[1] = k + 2; m[2] = r * k % 7; m[3] = 1; }

static void check_allreduce(MPI_Comm comm, const char *what) {
  int me, n;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  for (int count = 1; count <= 5000; count *= 7) {
    int *si = malloc(sizeof(int) * count), *ri = malloc(sizeof(int) * count);
    double *sd = malloc(sizeof(double) * count), *rd = malloc(sizeof(double) * count);
    for (int i = 0; i < count; ++i) si[i] = me * 3 + i, sd[i] = 0.5 * me + i;
    MPI_Allreduce(si, ri, count, MPI_INT, MPI_SUM, comm);
    MPI_Allreduce(sd, rd, count, MPI_DOUBLE, MPI_MAX, comm);
    for (int i = 0; i < count; ++i) {
      CHECK(ri[i] == 3 * n * (n - 1) / 2 + n * i, "%s: int sum[%d] count %d: %d", what, i, count, ri[i]);
      CHECK(rd[i] == 0.5 * (n - 1) + i, "%s: double max[%d]: %g", what, i, rd[i]);
    }
    memcpy(ri, si, sizeof(int) * count);
    MPI_Allreduce(MPI_IN_PLACE, ri, count, MPI_INT, MPI_MIN, comm);
    for (int i = 0; i < count; ++i) CHECK(ri[i] == i, "%s: in-place int min[%d]: %d", what, i, ri[i]);
    free(si), free(ri), free(sd), free(rd);
  }
  MPI_Datatype mat;
  MPI_Type_contiguous(4, MPI_INT, &mat);
  MPI_Type_commit(&mat);
  MPI_Op op;
  MPI_Op_create(matmul, 0, &op);
  enum { K = 3 };
  int s[4 * K], r[4 * K];
  for (int k = 0; k < K; ++k) mat_of(me, k, s + 4 * k);
  MPI_Allreduce(s, r, K, mat, op, comm);
  for (int k = 0; k < K; ++k) {
    int want[4], m[4];
    mat_of(n - 1, k, want);
    for (int q = n - 2; q >= 0; --q) {
      int one = 1;
      mat_of(q, k, m);
      matmul(m, want, &one, NULL); /* want = x_q * want */
    }
    CHECK(memcmp(want, r + 4 * k, sizeof want) == 0, "%s: non-commutative allreduce, matrix %d out of rank order", what, k);
  }
  MPI_Op_free(&op);
  MPI_Type_free(&mat);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  /* A ring, sizes from empty to rendezvous. */
  for (int len = 0; len <= (1 << 20); len = len ? len * 8 : 1) {
    char *out = malloc(len + 1), *in = malloc(len + 1);
    for (int i = 0; i < len; ++i) out[i] = (char)(me * 31 + i);
    MPI_Sendrecv(out, len, MPI_CHAR, (me + 1) % n, len & 0x7fff, in, len, MPI_CHAR, (me - 1 + n) % n, len & 0x7fff,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const int from = (me - 1 + n) % n;
    for (int i = 0; i < len; ++i)
      if (in[i] != (char)(from * 31 + i)) { CHECK(0, "ring of %d bytes: byte %d", len, i); break; }
    free(out), free(in);
  }
  check_allreduce(MPI_COMM_WORLD, "world");
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, n - me, &half);
  check_allreduce(half, "split");
  MPI_Comm_free(&half);
  int v = me == 0 ? 4242 : -1;
  MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK(v == 4242, "bcast: %d", v);
  MPI_Barrier(MPI_COMM_WORLD);
  int total = 0;
  MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0) printf("sdk_job: np %d errors %d\n", n, total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
