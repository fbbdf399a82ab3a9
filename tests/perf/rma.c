/*
 * rma.c: one-sided communication (MPI-3 RMA) between ranks 0 and 1.
 *
 * Plain MPI-3 C, so the same source builds with Lazarus' mpicc, Open MPI's and
 * MPICH's, and the numbers compare like with like (tests/perf/run_bench --rma).
 *
 *   mpicc -O2 rma.c -o rma && mpirun -np 2 ./rma [options]
 *
 *   -q        quick: fewer iterations and repetitions
 *   -r N      repetitions per operation (default 7, quick 3)
 *   -t SEC    longest repetition allowed (default 0.5 s, quick 0.1 s)
 *   -n        the passive-target epochs of put_lat, get_lat, put_bw, get_bw
 *             and fop_lat open with MPI_Win_lock_all(MPI_MODE_NOCHECK)
 *             (access certain without a lock message: what lets an
 *             implementation use the network's own puts and gets)
 *
 * One window of MPI_Win_allocate on every rank (4 MiB + 64 B, disp_unit 1).
 * Rank 0 is the origin, rank 1 the target; the target (and any rank above 1)
 * waits in MPI_Barrier while rank 0 works on a passive-target operation.
 * Operations, each timed per call on rank 0:
 *
 *   put_lat   MPI_Put of 8 B + MPI_Win_flush(1), inside one MPI_Win_lock_all
 *   get_lat   MPI_Get of 8 B + MPI_Win_flush(1), inside one MPI_Win_lock_all
 *   put_bw    MPI_Put of 1 MiB, 8 in a row (to 4 distinct MiB of the target)
 *             then MPI_Win_flush(1), inside one MPI_Win_lock_all; time per put
 *   get_bw    the same with MPI_Get
 *   fop_lat   MPI_Fetch_and_op(MPI_LONG, MPI_SUM) + MPI_Win_flush(1), inside
 *             one MPI_Win_lock_all
 *   lock      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1) + MPI_Win_unlock(1), no
 *             operation
 *   fence     MPI_Win_fence(0) with no operation, on every rank (rank 0's
 *             time); last, the sequence then closed by a MPI_MODE_NOSUCCEED
 *             fence before the passive-target checks
 *
 * Method, per operation (as pingpong.c): a short probe, warm-up calls, then
 * N repetitions of `iters` calls, each started by a barrier. iters is fixed per
 * operation (10000 calls for the small ones, 200 puts/gets of 1 MiB; a tenth
 * with -q), lowered only when the probe predicts a repetition longer than -t
 * or a repetition runs past twice -t (then the line carries capped=1). The
 * median over repetitions is lat_us, the minimum lat_min_us; for put_bw and
 * get_bw also bytes / that time in MB/s (10^6 B/s). After timing, a 1 MiB
 * pattern is put, read back by the target (under a lock of its own window)
 * and got back by the origin, and the fetch-and-op counter is compared with
 * the number of additions made, so an implementation that moves garbage fails.
 *
 * Output (rank 0, stdout): lines starting with '#' are comments; one line per
 * operation:
 *   rma op=<name> bytes=<b> iters=<n> reps=<r> lat_us=<x> lat_min_us=<x>
 *       [bw_MBps=<y> bw_max_MBps=<y>] [capped=1]
 * and at the end "# rma data check ok" (exit 0) or "# rma FAILED: ..." (exit 1).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxReps = 64, kBurst = 8, kRegions = 4 };
static const MPI_Aint kBig = 1048576;  /* the bandwidth message, 1 MiB */
static const int kSmall = 8;           /* the latency message, 8 B */
static int lock_all_assert = 0;        /* -n: MPI_MODE_NOCHECK */

/* Fence last: its epochs end with a closing fence before verify()'s locks. */
enum Op { PUT_LAT, GET_LAT, PUT_BW, GET_BW, FOP_LAT, LOCK, FENCE, kNumOps };
static const char* const kName[kNumOps] = {"put_lat", "get_lat", "put_bw", "get_bw",
                                           "fop_lat", "lock",    "fence"};

static MPI_Win win;
static char* base;      /* this rank's window memory */
static char* local;     /* the origin buffer (1 MiB) */
static long fop_count;  /* additions made by rank 0 to the target's counter */
static MPI_Aint counter_disp;

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static unsigned char pattern(long i) { return (unsigned char)((i * 131 + 17) & 0xff); }

/* `iters` calls of an operation; returns rank 0's elapsed seconds (0 on the
 * other ranks). Every rank calls it: rank 0 works, the fence is run by all,
 * the others wait in the barrier that ends the call. */
static double run_op(int rank, enum Op op, long iters) {
  double t0, t = 0.0;
  long i;
  int k;
  long one = 1, result = 0;
  if (op == FENCE) {
    t0 = MPI_Wtime();
    for (i = 0; i < iters; i++) MPI_Win_fence(0, win);
    t = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    return rank == 0 ? t : 0.0;
  }
  if (rank == 0) {
    t0 = MPI_Wtime();
    switch (op) {
      case PUT_LAT:
      case GET_LAT:
        MPI_Win_lock_all(lock_all_assert, win);
        for (i = 0; i < iters; i++) {
          if (op == PUT_LAT)
            MPI_Put(local, kSmall, MPI_BYTE, 1, 0, kSmall, MPI_BYTE, win);
          else
            MPI_Get(local, kSmall, MPI_BYTE, 1, 0, kSmall, MPI_BYTE, win);
          MPI_Win_flush(1, win);
        }
        MPI_Win_unlock_all(win);
        break;
      case PUT_BW:
      case GET_BW:
        /* iters is a multiple of kBurst: kBurst operations, then a flush. */
        MPI_Win_lock_all(lock_all_assert, win);
        for (i = 0; i < iters; i += kBurst) {
          for (k = 0; k < kBurst; k++) {
            MPI_Aint disp = (MPI_Aint)(k % kRegions) * kBig;
            if (op == PUT_BW)
              MPI_Put(local, (int)kBig, MPI_BYTE, 1, disp, (int)kBig, MPI_BYTE, win);
            else
              MPI_Get(local, (int)kBig, MPI_BYTE, 1, disp, (int)kBig, MPI_BYTE, win);
          }
          MPI_Win_flush(1, win);
        }
        MPI_Win_unlock_all(win);
        break;
      case FOP_LAT:
        MPI_Win_lock_all(lock_all_assert, win);
        for (i = 0; i < iters; i++) {
          MPI_Fetch_and_op(&one, &result, MPI_LONG, 1, counter_disp, MPI_SUM, win);
          MPI_Win_flush(1, win);
        }
        MPI_Win_unlock_all(win);
        fop_count += iters;
        break;
      case LOCK:
        for (i = 0; i < iters; i++) {
          MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
          MPI_Win_unlock(1, win);
        }
        break;
      default:
        break;
    }
    t = MPI_Wtime() - t0;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return t;
}

/* Puts a pattern, has the target read it, gets it back, reads the counter.
 * Returns the number of wrong bytes or values seen on this rank. */
static long verify(int rank) {
  long i, bad = 0, expect = 0, got = -1;
  if (rank == 0) {
    for (i = 0; i < kBig; i++) local[i] = (char)pattern(i);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(local, (int)kBig, MPI_BYTE, 1, 0, (int)kBig, MPI_BYTE, win);
    MPI_Win_unlock(1, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    /* Under a lock of its own window, the target's memory is the public copy. */
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    for (i = 0; i < kBig; i++)
      if ((unsigned char)base[i] != pattern(i)) bad++;
    MPI_Win_unlock(1, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    memset(local, 0, (size_t)kBig);
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Get(local, (int)kBig, MPI_BYTE, 1, 0, (int)kBig, MPI_BYTE, win);
    MPI_Get(&got, 1, MPI_LONG, 1, counter_disp, 1, MPI_LONG, win);
    MPI_Win_unlock(1, win);
    for (i = 0; i < kBig; i++)
      if ((unsigned char)local[i] != pattern(i)) bad++;
    expect = fop_count;
    if (got != expect) {
      fprintf(stderr, "rma: fetch-and-op counter is %ld, expected %ld\n", got, expect);
      bad++;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return bad;
}

int main(int argc, char** argv) {
  int rank, nprocs, quick = 0, reps = -1, a, r;
  double max_time = -1.0;
  long errors = 0, total_errors = 0;
  enum Op op;
  void* mem = NULL;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

  for (a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "-q")) {
      quick = 1;
    } else if (!strcmp(argv[a], "-r") && a + 1 < argc) {
      reps = atoi(argv[++a]);
    } else if (!strcmp(argv[a], "-n")) {
      lock_all_assert = MPI_MODE_NOCHECK;
    } else if (!strcmp(argv[a], "-t") && a + 1 < argc) {
      max_time = atof(argv[++a]);
    } else {
      if (rank == 0) fprintf(stderr, "rma: unknown option '%s'\n", argv[a]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (reps < 0) reps = quick ? 3 : 7;
  if (reps < 1) reps = 1;
  if (reps > kMaxReps) reps = kMaxReps;
  if (max_time <= 0) max_time = quick ? 0.1 : 0.5;
  if (nprocs < 2) {
    if (rank == 0) fprintf(stderr, "rma: needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  /* Page-aligned and touched, so first-touch page faults are not timed. */
  if (posix_memalign(&mem, 4096, (size_t)kBig) != 0) {
    fprintf(stderr, "rma: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  local = (char*)mem;
  memset(local, 1, (size_t)kBig);
  counter_disp = kRegions * kBig;
  MPI_Win_allocate(counter_disp + 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  /* Initialise the window under a lock of its own (the public copy). */
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  memset(base, 0, (size_t)(counter_disp + 64));
  MPI_Win_unlock(rank, win);
  MPI_Barrier(MPI_COMM_WORLD);

  if (rank == 0) {
    printf("# rma np=%d reps=%d max_rep_s=%g quick=%d\n", nprocs, reps, max_time, quick);
    printf("# lat_us = time per call on rank 0 (median over reps), bw in MB/s = 1e6 B/s\n");
    fflush(stdout);
  }

  for (op = 0; op < kNumOps; op++) {
    long iters, warm, bytes;
    double t = 0.0, times[kMaxReps];
    int capped = 0, bw = (op == PUT_BW || op == GET_BW);

    bytes = bw ? (long)kBig : (op == PUT_LAT || op == GET_LAT) ? kSmall : (op == FOP_LAT) ? 8 : 0;
    iters = bw ? 200 : 10000;
    if (quick) iters /= 10;

    /* Probe: one untimed burst (first-contact costs), then the best of three
     * short runs; it caps iters so a slow implementation stays bounded. */
    (void)run_op(rank, op, bw ? kBurst : 2);
    for (r = 0; r < 3; r++) {
      double tr = run_op(rank, op, bw ? kBurst : 4);
      if (r == 0 || tr < t) t = tr;
    }
    if (rank == 0) {
      double per = t / (bw ? kBurst : 4);
      if (per * (double)iters > max_time) {
        long fit = (long)(max_time / per);
        iters = fit < 3 ? 3 : fit;
        capped = 1;
      }
      if (bw) iters = (iters + kBurst - 1) / kBurst * kBurst;
    }
    MPI_Bcast(&iters, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    warm = iters / 10 < 2 ? 2 : iters / 10;
    if (bw) warm = (warm + kBurst - 1) / kBurst * kBurst;
    MPI_Barrier(MPI_COMM_WORLD);
    (void)run_op(rank, op, warm);

    for (r = 0; r < reps; r++) {
      MPI_Barrier(MPI_COMM_WORLD);
      t = run_op(rank, op, iters);
      times[r] = t / (double)iters;
      /* The probe saw the best case; on a loaded machine a repetition can be
       * far slower. Shrink the next ones so the run stays bounded. */
      if (rank == 0 && t > 2 * max_time) {
        long fit = (long)((double)iters * max_time / t);
        iters = fit < 3 ? 3 : fit;
        if (bw) iters = (iters + kBurst - 1) / kBurst * kBurst;
        capped = 1;
      }
      MPI_Bcast(&iters, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    }

    if (rank == 0) {
      double med, mn;
      qsort(times, (size_t)reps, sizeof times[0], cmp_double);
      mn = times[0];
      med = (reps % 2) ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
      printf("rma op=%s bytes=%ld iters=%ld reps=%d lat_us=%.3f lat_min_us=%.3f", kName[op], bytes,
             iters, reps, med * 1e6, mn * 1e6);
      if (bw) printf(" bw_MBps=%.1f bw_max_MBps=%.1f", (double)bytes / med / 1e6, (double)bytes / mn / 1e6);
      printf("%s\n", capped ? " capped=1" : "");
      fflush(stdout);
    }
  }

  /* The fence test left a fence epoch open: close it (no RMA follows in it). */
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  errors = verify(rank);
  MPI_Allreduce(&errors, &total_errors, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (total_errors)
      printf("# rma FAILED: %ld wrong bytes or values in the checked transfers\n", total_errors);
    else
      printf("# rma data check ok\n");
  }
  MPI_Win_free(&win);
  free(mem);
  MPI_Finalize();
  return total_errors ? 1 : 0;
}
