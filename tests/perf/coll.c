/*
 * coll.c: latency of the MPI collectives, and the overlap of three
 * non-blocking ones with computation.
 *
 * Plain C99 + MPI-3.1, built with each implementation's mpicc by
 * tests/perf/run_bench (--coll).
 *
 *   mpicc -O2 coll.c -o coll && mpirun -np 4 ./coll [options]
 *
 *   -q        quick: fewer iterations and repetitions
 *   -r N      repetitions per (operation, size) (default 7, quick 3)
 *   -t SEC    longest repetition allowed (default 0.25 s, quick 0.05 s)
 *   -m BYTES  largest size of the default list (default 16777216)
 *   -o LIST   operations, comma-separated (default: all, in this order):
 *             barrier bcast reduce allreduce gather scatter allgather
 *             allgatherv alltoall alltoallv reduce_scatter_block scan
 *             iallreduce ialltoall ibcast
 *   -s LIST   sizes in bytes, comma-separated (default 8,64,512,4096,32768,
 *             262144,2097152,16777216, those <= -m; a list given here is
 *             taken as it is)
 *
 * Size: the bytes of one rank's contribution. bcast, reduce, allreduce, scan,
 * iallreduce, ibcast: the whole buffer; gather, scatter, allgather(v),
 * alltoall(v), ialltoall, reduce_scatter_block: the block of one rank (of one
 * pair for the all-to-alls). Reductions are MPI_DOUBLE + MPI_SUM on size / 8
 * doubles (at least one), the others MPI_BYTE. Roots are rank 0; the v
 * variants use equal counts. barrier has one line, bytes=0. A size whose
 * buffers would take more than 512 MiB on one rank is skipped ('#' line).
 *
 * Before the first: barriers for 4 * -t. Per (operation, size): a first call
 * (checked, see below) and a short probe, warm-up calls, then N repetitions of `iters` calls, each started by a
 * barrier. A repetition's time per call is the slowest rank's elapsed / iters
 * (the collective is done when the last rank is). Reported: median over
 * repetitions (lat_us) and minimum (lat_min_us). iters: 5000 calls up to
 * 4 KiB, then 16 MiB worth, at least 5 (quick: a tenth, at least 3), lowered
 * when the probe predicts a repetition longer than -t (at least 1 call; a '#'
 * line says so). Budget of one (operation, size): 20 * -t. A first call
 * slower than that is the whole measurement (iters=1 reps=1) and the larger
 * sizes of that operation are skipped ('#' line); repetitions of one call
 * that would pass it are fewer (reps= says how many). Oversubscribed
 * busy-polling implementations can take seconds per call.
 *
 * Non-blocking operations: lat_us is the call + MPI_Wait; overlap_pct is
 * measured as the OSU micro-benchmarks do: t_pure = icoll + wait (median),
 * t_cpu = a busy loop of plain arithmetic (no MPI call) calibrated once to
 * last about t_pure, t_ovl = icoll, that loop, wait (median over the same
 * repetitions); overlap = 100 * (1 - (t_ovl - t_cpu) / t_pure), clipped to
 * [0, 100]. The three times go to a '#' line.
 *
 * Data: the first call and the last (after all the timed ones) of each
 * (operation, size) are checked on every rank against the closed form, with a
 * sentinel in the result buffers (values differ per rank, block and position,
 * so a missing, wrong or misplaced block shows; reductions are sums of small
 * integers, exact in any order); a mismatch is printed on stderr and the run
 * ends through MPI_Abort. So every printed line is of calls that gave the
 * right result. barrier has no data to check.
 *
 * Output (rank 0, stdout): '#' lines are comments; one line per (op, size):
 *   coll op=<op> np=<p> bytes=<b> iters=<i> reps=<r> lat_us=<x> lat_min_us=<x>
 *        [overlap_pct=<x>]
 * and last '# data check ok'.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  OP_BARRIER,
  OP_BCAST,
  OP_REDUCE,
  OP_ALLREDUCE,
  OP_GATHER,
  OP_SCATTER,
  OP_ALLGATHER,
  OP_ALLGATHERV,
  OP_ALLTOALL,
  OP_ALLTOALLV,
  OP_REDUCE_SCATTER_BLOCK,
  OP_SCAN,
  OP_IALLREDUCE,
  OP_IALLTOALL,
  OP_IBCAST,
  kNumOps
};
/* clang-format off */
static const char* const kOpNames[kNumOps] = {
    "barrier",  "bcast",     "reduce",               "allreduce",
    "gather",   "scatter",   "allgather",            "allgatherv",
    "alltoall", "alltoallv", "reduce_scatter_block", "scan",
    "iallreduce", "ialltoall", "ibcast"};
/* clang-format on */

static const long kDefaultSizes[] = {8, 64, 512, 4096, 32768, 262144, 2097152, 16777216};
enum { kNumDefaultSizes = sizeof kDefaultSizes / sizeof kDefaultSizes[0], kMaxReps = 64, kMaxSizes = 64 };
static const double kMemLimit = 512.0 * 1024 * 1024;

enum { MODE_PURE, MODE_OVERLAP, MODE_CPU };

static int rank, nprocs;

/* The buffers and arguments of one (operation, size). */
typedef struct {
  int op;
  long n;        /* elements per contribution: doubles (reductions) or bytes */
  size_t sbytes; /* send buffer */
  size_t rbytes; /* receive buffer */
  void* sbuf;
  void* rbuf;
  int* counts; /* v variants: n per rank */
  int* displs; /* v variants: r * n */
  long spin;   /* busy-loop length for the overlap measurement */
} Case;

static int is_reduction(int op) {
  return op == OP_REDUCE || op == OP_ALLREDUCE || op == OP_REDUCE_SCATTER_BLOCK || op == OP_SCAN || op == OP_IALLREDUCE;
}
static int is_nonblocking(int op) { return op == OP_IALLREDUCE || op == OP_IALLTOALL || op == OP_IBCAST; }

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median_of(double* v, int k) {
  qsort(v, (size_t)k, sizeof v[0], cmp_double);
  return (k % 2) ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/* --- Busy loop (overlap) ------------------------------------------------- */

static volatile double spin_sink;

/* Plain dependent floating-point arithmetic, no memory traffic, no MPI. */
static void spin(long n) {
  double x = 1.0, y = 0.5;
  long i;
  for (i = 0; i < n; i++) {
    x = x * 0.999999 + y;
    y = y * 0.5 + 1e-3;
  }
  spin_sink = x + y;
}

/* Loop iterations per second, measured once with every rank spinning at the
 * same time (as they do during the measurement; oversubscribed ranks share a
 * core then too). The slowest rank's rate, so that a loop calibrated to a
 * time lasts at least that long everywhere. */
static double spin_rate(void) {
  long n = 1000;
  double t = 0.0, rate, slowest;
  MPI_Barrier(MPI_COMM_WORLD);
  for (;;) {
    double t0 = MPI_Wtime();
    spin(n);
    t = MPI_Wtime() - t0;
    if (t >= 0.02 || n >= (1L << 40)) break;
    n *= 2;
  }
  rate = (double)n / (t > 0 ? t : 1e-9);
  MPI_Allreduce(&rate, &slowest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  return slowest;
}

/* --- Data: values and their closed forms ------------------------------- */

/* The byte that rank src sends to rank dst at position i of its block. */
static unsigned char byte_of(int src, int dst, long i) {
  return (unsigned char)((src * 31 + dst * 17 + i * 7 + 5) % 251);
}

/* The double that rank src contributes at position j: small integers, so every
 * partial sum is exact whatever the reduction order. */
static double double_of(int src, long j) { return (double)(src + 1) + (double)(j % 1021); }

/* Fill the send buffer (values) and the receive buffer (a sentinel, so that a
 * call that writes nothing or the wrong block shows). */
static void fill(Case* c) {
  long i, j;
  int r;
  unsigned char* sb = (unsigned char*)c->sbuf;
  double* sd = (double*)c->sbuf;
  switch (c->op) {
    case OP_BCAST:
    case OP_IBCAST:
      /* one buffer: the root's values, a sentinel elsewhere */
      for (i = 0; i < c->n; i++) sb[i] = rank == 0 ? byte_of(0, 0, i) : (unsigned char)0xff;
      return;
    case OP_SCATTER:
      if (rank == 0)
        for (r = 0; r < nprocs; r++)
          for (i = 0; i < c->n; i++) sb[(size_t)r * c->n + i] = byte_of(0, r, i);
      break;
    case OP_GATHER:
    case OP_ALLGATHER:
    case OP_ALLGATHERV:
      for (i = 0; i < c->n; i++) sb[i] = byte_of(rank, 0, i);
      break;
    case OP_ALLTOALL:
    case OP_ALLTOALLV:
    case OP_IALLTOALL:
      for (r = 0; r < nprocs; r++)
        for (i = 0; i < c->n; i++) sb[(size_t)r * c->n + i] = byte_of(rank, r, i);
      break;
    case OP_REDUCE:
    case OP_ALLREDUCE:
    case OP_SCAN:
    case OP_IALLREDUCE:
    case OP_REDUCE_SCATTER_BLOCK:
      for (j = 0; j < (long)(c->sbytes / sizeof(double)); j++) sd[j] = double_of(rank, j);
      break;
    default:
      break;
  }
  if (c->rbuf) {
    if (is_reduction(c->op)) {
      double* rd = (double*)c->rbuf;
      for (j = 0; j < (long)(c->rbytes / sizeof(double)); j++) rd[j] = -1.0;
    } else {
      memset(c->rbuf, 0xff, c->rbytes);
    }
  }
}

/* Mismatches of the result of one call on this rank; the first is printed. */
static long check(const Case* c) {
  long i, j, bad = 0;
  int r;
  const unsigned char* rb = (const unsigned char*)c->rbuf;
  const double* rd = (const double*)c->rbuf;
  double sum_ranks = (double)nprocs * (nprocs + 1) / 2.0; /* sum over q of (q + 1) */

#define MISMATCH(fmt_, ...)                                                                                           \
  do {                                                                                                                \
    if (bad++ == 0) fprintf(stderr, "coll: rank %d: %s n=%ld: " fmt_ "\n", rank, kOpNames[c->op], c->n, __VA_ARGS__); \
  } while (0)

  switch (c->op) {
    case OP_BCAST:
    case OP_IBCAST:
      rb = (const unsigned char*)c->sbuf;
      for (i = 0; i < c->n; i++)
        if (rb[i] != byte_of(0, 0, i)) MISMATCH("byte %ld is %d, want %d", i, rb[i], byte_of(0, 0, i));
      break;
    case OP_SCATTER:
      for (i = 0; i < c->n; i++)
        if (rb[i] != byte_of(0, rank, i)) MISMATCH("byte %ld is %d, want %d", i, rb[i], byte_of(0, rank, i));
      break;
    case OP_GATHER:
      if (rank != 0) break;
      /* fall through */
    case OP_ALLGATHER:
    case OP_ALLGATHERV:
      for (r = 0; r < nprocs; r++)
        for (i = 0; i < c->n; i++)
          if (rb[(size_t)r * c->n + i] != byte_of(r, 0, i))
            MISMATCH("block %d byte %ld is %d, want %d", r, i, rb[(size_t)r * c->n + i], byte_of(r, 0, i));
      break;
    case OP_ALLTOALL:
    case OP_ALLTOALLV:
    case OP_IALLTOALL:
      for (r = 0; r < nprocs; r++)
        for (i = 0; i < c->n; i++)
          if (rb[(size_t)r * c->n + i] != byte_of(r, rank, i))
            MISMATCH("block from %d byte %ld is %d, want %d", r, i, rb[(size_t)r * c->n + i], byte_of(r, rank, i));
      break;
    case OP_REDUCE:
      if (rank != 0) break;
      /* fall through */
    case OP_ALLREDUCE:
    case OP_IALLREDUCE:
      for (j = 0; j < c->n; j++) {
        double want = sum_ranks + (double)nprocs * (double)(j % 1021);
        if (rd[j] != want) MISMATCH("element %ld is %.17g, want %.17g", j, rd[j], want);
      }
      break;
    case OP_SCAN:
      for (j = 0; j < c->n; j++) {
        double want = (double)(rank + 1) * (rank + 2) / 2.0 + (double)(rank + 1) * (double)(j % 1021);
        if (rd[j] != want) MISMATCH("element %ld is %.17g, want %.17g", j, rd[j], want);
      }
      break;
    case OP_REDUCE_SCATTER_BLOCK:
      for (j = 0; j < c->n; j++) {
        long g = (long)rank * c->n + j; /* position in the contributions */
        double want = sum_ranks + (double)nprocs * (double)(g % 1021);
        if (rd[j] != want) MISMATCH("element %ld is %.17g, want %.17g", j, rd[j], want);
      }
      break;
    default:
      break;
  }
#undef MISMATCH
  return bad;
}

/* Check the result of the last call on every rank: a mismatch anywhere ends
 * the run (MPI_Abort) after its first wrong element went to stderr. */
static void verify(const Case* c, long bytes) {
  long errors = check(c), all_errors = 0;
  MPI_Allreduce(&errors, &all_errors, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (all_errors) {
    if (rank == 0) {
      fprintf(stderr, "coll: op=%s bytes=%ld np=%d: %ld wrong elements over all ranks\n", kOpNames[c->op], bytes,
              nprocs, all_errors);
      printf("# coll FAILED: op=%s bytes=%ld: %ld wrong elements\n", kOpNames[c->op], bytes, all_errors);
      fflush(stdout);
    }
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
}

/* --- The calls ----------------------------------------------------------- */

static void start(Case* c, MPI_Request* req) {
  switch (c->op) {
    case OP_IALLREDUCE:
      MPI_Iallreduce(c->sbuf, c->rbuf, (int)c->n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, req);
      break;
    case OP_IALLTOALL:
      MPI_Ialltoall(c->sbuf, (int)c->n, MPI_BYTE, c->rbuf, (int)c->n, MPI_BYTE, MPI_COMM_WORLD, req);
      break;
    case OP_IBCAST:
      MPI_Ibcast(c->sbuf, (int)c->n, MPI_BYTE, 0, MPI_COMM_WORLD, req);
      break;
    default:
      *req = MPI_REQUEST_NULL;
      break;
  }
}

static void call(Case* c, int mode) {
  int n = (int)c->n;
  MPI_Request req;
  switch (c->op) {
    case OP_BARRIER:
      MPI_Barrier(MPI_COMM_WORLD);
      break;
    case OP_BCAST:
      MPI_Bcast(c->sbuf, n, MPI_BYTE, 0, MPI_COMM_WORLD);
      break;
    case OP_REDUCE:
      MPI_Reduce(c->sbuf, c->rbuf, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      break;
    case OP_ALLREDUCE:
      MPI_Allreduce(c->sbuf, c->rbuf, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      break;
    case OP_GATHER:
      MPI_Gather(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, 0, MPI_COMM_WORLD);
      break;
    case OP_SCATTER:
      MPI_Scatter(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, 0, MPI_COMM_WORLD);
      break;
    case OP_ALLGATHER:
      MPI_Allgather(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, MPI_COMM_WORLD);
      break;
    case OP_ALLGATHERV:
      MPI_Allgatherv(c->sbuf, n, MPI_BYTE, c->rbuf, c->counts, c->displs, MPI_BYTE, MPI_COMM_WORLD);
      break;
    case OP_ALLTOALL:
      MPI_Alltoall(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, MPI_COMM_WORLD);
      break;
    case OP_ALLTOALLV:
      MPI_Alltoallv(c->sbuf, c->counts, c->displs, MPI_BYTE, c->rbuf, c->counts, c->displs, MPI_BYTE, MPI_COMM_WORLD);
      break;
    case OP_REDUCE_SCATTER_BLOCK:
      MPI_Reduce_scatter_block(c->sbuf, c->rbuf, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      break;
    case OP_SCAN:
      MPI_Scan(c->sbuf, c->rbuf, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      break;
    case OP_IALLREDUCE:
    case OP_IALLTOALL:
    case OP_IBCAST:
      if (mode == MODE_CPU) {
        spin(c->spin);
        break;
      }
      start(c, &req);
      if (mode == MODE_OVERLAP) spin(c->spin);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      break;
    default:
      break;
  }
}

/* Elapsed seconds per call on the slowest rank. */
static double timed(Case* c, int mode, long iters) {
  double t0, local, slowest;
  long i;
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (i = 0; i < iters; i++) call(c, mode);
  local = (MPI_Wtime() - t0) / (double)iters;
  MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

/* Buffers of one (operation, size): bytes per rank, the largest over ranks
 * (the root's for gather and scatter). */
static void sizes_of(int op, long n, size_t* sbytes, size_t* rbytes) {
  size_t p = (size_t)nprocs, b = (size_t)n, d = sizeof(double);
  *sbytes = *rbytes = 0;
  switch (op) {
    case OP_BARRIER:
      break;
    case OP_BCAST:
    case OP_IBCAST:
      *sbytes = b;
      break;
    case OP_REDUCE:
    case OP_ALLREDUCE:
    case OP_SCAN:
    case OP_IALLREDUCE:
      *sbytes = *rbytes = b * d;
      break;
    case OP_REDUCE_SCATTER_BLOCK:
      *sbytes = p * b * d;
      *rbytes = b * d;
      break;
    case OP_GATHER:
      *sbytes = b;
      *rbytes = rank == 0 ? p * b : 0;
      break;
    case OP_SCATTER:
      *sbytes = rank == 0 ? p * b : 0;
      *rbytes = b;
      break;
    case OP_ALLGATHER:
    case OP_ALLGATHERV:
      *sbytes = b;
      *rbytes = p * b;
      break;
    case OP_ALLTOALL:
    case OP_ALLTOALLV:
    case OP_IALLTOALL:
      *sbytes = *rbytes = p * b;
      break;
    default:
      break;
  }
}

static double root_bytes(int op, long n) {
  /* what rank 0 (the largest) needs, the same on every rank */
  size_t p = (size_t)nprocs, b = (size_t)n;
  switch (op) {
    case OP_GATHER:
    case OP_SCATTER:
      return (double)(p + 1) * (double)b;
    default: {
      size_t s, r;
      sizes_of(op, n, &s, &r);
      return (double)s + (double)r;
    }
  }
}

static void* xmalloc(size_t bytes) {
  void* p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "coll: rank %d: out of memory (%zu bytes)\n", rank, bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(p, 0, bytes ? bytes : 1); /* touch: no page faults in the timed calls */
  return p;
}

static int parse_list(const char* s, char items[][32], int max) {
  int k = 0;
  const char* p = s;
  while (*p && k < max) {
    size_t len = strcspn(p, ",");
    if (len > 0 && len < 32) {
      memcpy(items[k], p, len);
      items[k][len] = '\0';
      k++;
    } else if (len >= 32) {
      return -1;
    }
    p += len;
    if (*p == ',') p++;
  }
  return k;
}

static void usage_error(const char* what, const char* arg) {
  if (rank == 0) fprintf(stderr, "coll: %s '%s'\n", what, arg);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char** argv) {
  int quick = 0, reps = -1, a, k, s, nops = 0, nsizes = 0, ops[kNumOps];
  long max_bytes = 16777216, sizes[kMaxSizes], slow_from[kNumOps];
  double max_time = -1.0, rate, budget;
  const char *ops_arg = NULL, *sizes_arg = NULL;
  char items[kMaxSizes][32];

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

  for (a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "-q")) {
      quick = 1;
    } else if (!strcmp(argv[a], "-r") && a + 1 < argc) {
      reps = atoi(argv[++a]);
    } else if (!strcmp(argv[a], "-m") && a + 1 < argc) {
      max_bytes = atol(argv[++a]);
    } else if (!strcmp(argv[a], "-t") && a + 1 < argc) {
      max_time = atof(argv[++a]);
    } else if (!strcmp(argv[a], "-o") && a + 1 < argc) {
      ops_arg = argv[++a];
    } else if (!strcmp(argv[a], "-s") && a + 1 < argc) {
      sizes_arg = argv[++a];
    } else {
      usage_error("unknown option", argv[a]);
    }
  }
  if (reps < 0) reps = quick ? 3 : 7;
  if (reps < 1) reps = 1;
  if (reps > kMaxReps) reps = kMaxReps;
  if (max_time <= 0) max_time = quick ? 0.05 : 0.25;
  budget = 20 * max_time;
  for (k = 0; k < kNumOps; k++) slow_from[k] = -1;

  if (ops_arg) {
    int m = parse_list(ops_arg, items, kMaxSizes);
    if (m < 0) usage_error("bad operation list", ops_arg);
    for (k = 0; k < m; k++) {
      int o;
      for (o = 0; o < kNumOps && strcmp(items[k], kOpNames[o]); o++) {
      }
      if (o == kNumOps) usage_error("unknown operation", items[k]);
      if (nops < kNumOps) ops[nops++] = o;
    }
  } else {
    for (k = 0; k < kNumOps; k++) ops[nops++] = k;
  }
  if (sizes_arg) {
    int m = parse_list(sizes_arg, items, kMaxSizes);
    if (m < 0) usage_error("bad size list", sizes_arg);
    for (k = 0; k < m; k++) {
      char* end;
      long v = strtol(items[k], &end, 10);
      if (*end || v < 1) usage_error("bad size", items[k]);
      sizes[nsizes++] = v;
    }
  } else {
    for (k = 0; k < kNumDefaultSizes; k++)
      if (kDefaultSizes[k] <= max_bytes) sizes[nsizes++] = kDefaultSizes[k];
  }

  rate = spin_rate();
  /* Barriers for 4 * -t before the first measurement: the first calls of a
   * run pay for connections, and unbound ranks for the scheduler's first
   * placement (two on one core for a while). */
  {
    double t0 = MPI_Wtime(), local, longest = 0.0;
    while (longest < 4 * max_time) {
      for (k = 0; k < 10; k++) MPI_Barrier(MPI_COMM_WORLD);
      local = MPI_Wtime() - t0;
      MPI_Allreduce(&local, &longest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
  }
  if (rank == 0) {
    printf("# coll np=%d reps=%d max_rep_s=%g quick=%d ops=%d sizes=%d spin_per_us=%.1f\n", nprocs, reps, max_time,
           quick, nops, nsizes, rate * 1e-6);
    fflush(stdout);
  }

  for (k = 0; k < nops; k++) {
    int op = ops[k];
    for (s = 0; s < (op == OP_BARRIER ? 1 : nsizes); s++) {
      Case c;
      long iters, warm, bytes, r;
      double per, times[kMaxReps], lat_med, lat_min, t_cpu = 0, t_ovl = 0;
      int nreps = reps, capped = 0, slow = 0;

      memset(&c, 0, sizeof c);
      c.op = op;
      if (op == OP_BARRIER) {
        c.n = 0;
        bytes = 0;
      } else if (is_reduction(op)) {
        c.n = sizes[s] / 8 < 1 ? 1 : sizes[s] / 8;
        bytes = c.n * 8;
      } else {
        c.n = sizes[s];
        bytes = c.n;
      }
      if (slow_from[op] >= 0 && bytes >= slow_from[op]) {
        if (rank == 0) {
          printf("# skipped: op=%s bytes=%ld: bytes=%ld took more than %g s a call\n", kOpNames[op], bytes,
                 slow_from[op], budget);
          fflush(stdout);
        }
        continue;
      }
      {
        double need = root_bytes(op, c.n);
        if (need > kMemLimit || bytes > 2147483647L) {
          if (rank == 0) {
            printf("# skipped: op=%s bytes=%ld needs %.0f MiB on a rank (limit %.0f MiB)\n", kOpNames[op], bytes,
                   need / 1048576.0, kMemLimit / 1048576.0);
            fflush(stdout);
          }
          continue;
        }
      }
      sizes_of(op, c.n, &c.sbytes, &c.rbytes);
      c.sbuf = c.sbytes ? xmalloc(c.sbytes) : NULL;
      c.rbuf = c.rbytes ? xmalloc(c.rbytes) : NULL;
      if (op == OP_ALLGATHERV || op == OP_ALLTOALLV) {
        int q;
        c.counts = (int*)xmalloc((size_t)nprocs * sizeof(int));
        c.displs = (int*)xmalloc((size_t)nprocs * sizeof(int));
        for (q = 0; q < nprocs; q++) {
          c.counts[q] = (int)c.n;
          c.displs[q] = (int)((long)q * c.n);
        }
      }
      fill(&c);

      /* iters before the probe: a fixed count (as allreduce.c: 5000 calls
       * up to 4 KiB, then 16 MiB worth, at least 5; quick a tenth, at
       * least 3), lowered to fit -t. */
      iters = bytes > 0 ? 16777216L / bytes : 5000;
      if (iters > 5000) iters = 5000;
      if (iters < 5) iters = 5;
      if (quick) iters = iters / 10 < 3 ? 3 : iters / 10;

      /* The first call: checked (fresh values, sentinels in the results) and
       * timed. Slower than the budget (20 * -t), it is the whole measurement
       * (iters=1, reps=1) and the larger sizes of the operation are skipped:
       * an oversubscribed busy-polling implementation can take seconds per
       * call. Otherwise the probe: one more timed call, then the best of it
       * and up to three runs of 4 while 4 calls take less than -t / 2 (a
       * long first call is the probe).
       * Every rank sees the same slowest-rank times, so all agree. */
      per = timed(&c, MODE_PURE, 1);
      verify(&c, bytes);
      if (per > budget) {
        slow = 1;
        slow_from[op] = bytes;
        iters = 1;
        nreps = 1;
        times[0] = per;
        capped = 1;
      } else {
        /* (A first call that is long already is the probe.) */
        if (per * 4 < max_time / 2) per = timed(&c, MODE_PURE, 1);
        for (r = 0; r < 3 && per * 4 < max_time / 2; r++) {
          double p = timed(&c, MODE_PURE, 4);
          if (p < per) per = p;
        }
        if (per * (double)iters > max_time) {
          long fit = (long)(max_time / per);
          iters = fit < 1 ? 1 : fit;
          capped = 1;
        }
        /* Repetitions of one call each that would together pass the budget:
         * fewer of them. */
        if (per * (double)iters * nreps > budget) {
          nreps = (int)(budget / (per * (double)iters));
          if (nreps < 1) nreps = 1;
        }
        warm = iters / 10;
        if (warm > 0) (void)timed(&c, MODE_PURE, warm);
        for (r = 0; r < nreps; r++) {
          times[r] = timed(&c, MODE_PURE, iters);
          /* A repetition far past -t (a loaded machine): fewer calls, alike
           * on every rank. */
          if (times[r] * (double)iters > 2 * max_time) {
            long fit = (long)(max_time / times[r]);
            iters = fit < 1 ? 1 : fit;
            capped = 1;
          }
        }
      }
      lat_min = times[0];
      for (r = 1; r < nreps; r++)
        if (times[r] < lat_min) lat_min = times[r];
      lat_med = median_of(times, nreps);

      if (is_nonblocking(op)) {
        /* OSU-style overlap: the loop lasts about t_pure (the median). */
        double cpu[kMaxReps], ovl[kMaxReps];
        c.spin = (long)(rate * lat_med);
        if (c.spin < 1) c.spin = 1;
        if (!slow) (void)timed(&c, MODE_OVERLAP, 1);
        for (r = 0; r < nreps; r++) {
          cpu[r] = timed(&c, MODE_CPU, iters);
          ovl[r] = timed(&c, MODE_OVERLAP, iters);
        }
        t_cpu = median_of(cpu, nreps);
        t_ovl = median_of(ovl, nreps);
      }

      /* And the last call, after all the others. */
      if (!slow) {
        fill(&c);
        call(&c, MODE_PURE);
        verify(&c, bytes);
      }

      if (rank == 0) {
        printf("coll op=%s np=%d bytes=%ld iters=%ld reps=%d lat_us=%.3f lat_min_us=%.3f", kOpNames[op], nprocs, bytes,
               iters, nreps, lat_med * 1e6, lat_min * 1e6);
        if (is_nonblocking(op)) {
          double ov = 100.0 * (1.0 - (t_ovl - t_cpu) / lat_med);
          if (ov < 0) ov = 0;
          if (ov > 100) ov = 100;
          printf(" overlap_pct=%.1f\n", ov);
          printf("# %s bytes=%ld t_pure_us=%.3f t_cpu_us=%.3f t_ovl_us=%.3f%s\n", kOpNames[op], bytes, lat_med * 1e6,
                 t_cpu * 1e6, t_ovl * 1e6,
                 slow     ? " (one call: slower than the budget)"
                 : capped ? " (capped to -t)"
                          : "");
        } else {
          printf("\n");
          if (slow)
            printf("# %s bytes=%ld: one call, slower than the budget (%g s)\n", kOpNames[op], bytes, budget);
          else if (capped)
            printf("# %s bytes=%ld: iters capped to -t\n", kOpNames[op], bytes);
        }
        fflush(stdout);
      }
      free(c.sbuf);
      free(c.rbuf);
      free(c.counts);
      free(c.displs);
    }
  }

  if (rank == 0) printf("# data check ok\n");
  MPI_Finalize();
  return 0;
}
