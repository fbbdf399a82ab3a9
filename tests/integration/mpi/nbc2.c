/* Non-blocking collectives, the rest: MPI_Igatherv, MPI_Iscatterv,
 * MPI_Iallgatherv, MPI_Ialltoallv (uneven counts, gaps between blocks that
 * must stay untouched, MPI_IN_PLACE), MPI_(I)alltoallw (a type per peer), MPI_Ireduce_scatter(_block) and
 * MPI_Iscan / MPI_Iexscan (with a sum and with a non-commutative op). */
#include <stdlib.h>
#include <string.h>
#include "lz_test.h"

#define GAP (-7)

/* Concatenation of decimal digit strings {value, 10^length}: associative,
 * not commutative. */
static void concat(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  long *a = in, *b = inout;
  for (int i = 0; i < *len; ++i) {
    b[2 * i] = a[2 * i] * b[2 * i + 1] + b[2 * i];
    b[2 * i + 1] *= a[2 * i + 1];
  }
}

static int cnt(int s, int d) { return (s + d) % 3 + 1; } /* alltoallv: ints s sends d */

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Request r;
  int *counts = malloc(sizeof(int) * (size_t)n), *displs = malloc(sizeof(int) * (size_t)n);
  int total = 0;
  for (int i = 0; i < n; ++i) {
    counts[i] = i + 1;
    displs[i] = total + i + 1; /* one untouched slot before each block */
    total += i + 1;
  }
  const int span = total + n + 1;
  int *buf = malloc(sizeof(int) * (size_t)span), mine[64], got[64];

  /* ---- gatherv to every root, then scatterv back ---- */
  for (int root = 0; root < n; ++root) {
    for (int i = 0; i < span; ++i) buf[i] = GAP;
    for (int i = 0; i <= rank; ++i) mine[i] = rank * 100 + i;
    if (rank == root && root % 2 == 1) {
      memcpy(buf + displs[rank], mine, sizeof(int) * (size_t)(rank + 1));
      MPI_Igatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, counts, displs, MPI_INT, root, MPI_COMM_WORLD, &r);
    } else {
      MPI_Igatherv(mine, rank + 1, MPI_INT, buf, counts, displs, MPI_INT, root, MPI_COMM_WORLD, &r);
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (rank == root)
      for (int s = 0; s < n; ++s) {
        CHECK(buf[displs[s] - 1] == GAP, "Igatherv to %d: the gap before block %d was written (%d)", root, s,
              buf[displs[s] - 1]);
        for (int i = 0; i <= s; ++i)
          CHECK(buf[displs[s] + i] == s * 100 + i, "Igatherv to %d: block %d [%d] = %d", root, s, i,
                buf[displs[s] + i]);
      }
    if (rank == root)
      for (int i = 0; i < span; ++i) buf[i] += 1;
    for (int i = 0; i < 64; ++i) got[i] = GAP;
    MPI_Iscatterv(buf, counts, displs, MPI_INT, got, rank + 1, MPI_INT, root, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int i = 0; i <= rank; ++i) CHECK(got[i] == rank * 100 + i + 1, "Iscatterv from %d: [%d] = %d", root, i, got[i]);
    CHECK(got[rank + 1] == GAP, "Iscatterv wrote past the receive count");
  }

  /* ---- allgatherv, plain and in place ---- */
  for (int ip = 0; ip < 2; ++ip) {
    for (int i = 0; i < span; ++i) buf[i] = GAP;
    for (int i = 0; i <= rank; ++i) mine[i] = rank * 10 + i;
    if (ip) {
      memcpy(buf + displs[rank], mine, sizeof(int) * (size_t)(rank + 1));
      MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, counts, displs, MPI_INT, MPI_COMM_WORLD, &r);
    } else {
      MPI_Iallgatherv(mine, rank + 1, MPI_INT, buf, counts, displs, MPI_INT, MPI_COMM_WORLD, &r);
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int s = 0; s < n; ++s) {
      CHECK(buf[displs[s] - 1] == GAP, "Iallgatherv: the gap before block %d was written", s);
      for (int i = 0; i <= s; ++i)
        CHECK(buf[displs[s] + i] == s * 10 + i, "Iallgatherv%s: block %d [%d] = %d", ip ? " in place" : "", s, i,
              buf[displs[s] + i]);
    }
  }

  /* ---- alltoallv, plain and in place ---- */
  {
    int *sc = malloc(sizeof(int) * (size_t)n), *sd = malloc(sizeof(int) * (size_t)n);
    int *rc = malloc(sizeof(int) * (size_t)n), *rd = malloc(sizeof(int) * (size_t)n);
    int st = 0, rt = 0;
    for (int p = 0; p < n; ++p) {
      sc[p] = cnt(rank, p);
      sd[p] = st;
      st += sc[p] + 1;
      rc[p] = cnt(p, rank);
      rd[p] = rt;
      rt += rc[p] + 1;
    }
    int *sb = malloc(sizeof(int) * (size_t)st), *rb = malloc(sizeof(int) * (size_t)rt);
    for (int p = 0; p < n; ++p)
      for (int i = 0; i < sc[p]; ++i) sb[sd[p] + i] = rank * 1000 + p * 10 + i;
    for (int ip = 0; ip < 2; ++ip) {
      for (int i = 0; i < rt; ++i) rb[i] = GAP;
      if (ip) {
        /* in place: the same counts both ways (symmetric cnt) and rb holds what goes out */
        for (int p = 0; p < n; ++p)
          for (int i = 0; i < rc[p]; ++i) rb[rd[p] + i] = rank * 1000 + p * 10 + i;
        MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rb, rc, rd, MPI_INT, MPI_COMM_WORLD, &r);
      } else {
        MPI_Ialltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD, &r);
      }
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      for (int p = 0; p < n; ++p) {
        for (int i = 0; i < rc[p]; ++i)
          CHECK(rb[rd[p] + i] == p * 1000 + rank * 10 + i, "Ialltoallv%s from %d [%d] = %d", ip ? " in place" : "", p,
                i, rb[rd[p] + i]);
        CHECK(rb[rd[p] + rc[p]] == GAP, "Ialltoallv wrote past the block from %d", p);
      }
    }
    free(sc), free(sd), free(rc), free(rd), free(sb), free(rb);
  }

  /* ---- alltoallw (blocking and not, in place): a type per peer, byte
   *      displacements; ints to even peers as MPI_INT, to odd ones as pairs ---- */
  {
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int *sc = malloc(sizeof(int) * (size_t)n), *sd = malloc(sizeof(int) * (size_t)n);
    MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * (size_t)n);
    int off = 0;
    for (int p = 0; p < n; ++p) {
      ty[p] = p % 2 ? pair : MPI_INT;
      sc[p] = p % 2 ? 1 : 2; /* two ints either way */
      sd[p] = off;
      off += 2 * (int)sizeof(int) + (int)sizeof(int); /* one int of gap after each block */
    }
    int *sb = malloc((size_t)off), *rb = malloc((size_t)off);
    for (int mode = 0; mode < 3; ++mode) {
      for (int p = 0; p < n; ++p) {
        int *blk = (int *)((char *)sb + sd[p]);
        blk[0] = rank * 100 + p;
        blk[1] = -(rank * 100 + p);
        blk[2] = GAP;
      }
      if (mode == 2) memcpy(rb, sb, (size_t)off);
      else
        for (int i = 0; i < off / (int)sizeof(int); ++i) rb[i] = GAP;
      /* peer p's types towards me: p sends me (rank) with ty[rank] shape; I receive as ty[p]
       * shape: both are two ints, whatever the split */
      if (mode == 0) {
        MPI_Alltoallw(sb, sc, sd, ty, rb, sc, sd, ty, MPI_COMM_WORLD);
      } else {
        MPI_Ialltoallw(mode == 2 ? MPI_IN_PLACE : sb, sc, sd, ty, rb, sc, sd, ty, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
      }
      for (int p = 0; p < n; ++p) {
        int *blk = (int *)((char *)rb + sd[p]);
        CHECK(blk[0] == p * 100 + rank && blk[1] == -(p * 100 + rank) && blk[2] == GAP,
              "Alltoallw mode %d from %d: %d %d %d", mode, p, blk[0], blk[1], blk[2]);
      }
    }
    MPI_Type_free(&pair);
    free(sc), free(sd), free(ty), free(sb), free(rb);
  }

  /* ---- reduce_scatter_block and reduce_scatter (in place too) ---- */
  {
    int *in = malloc(sizeof(int) * (size_t)total), out[64];
    for (int i = 0; i < 2 * n; ++i) in[i] = rank + i;
    MPI_Ireduce_scatter_block(in, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int i = 0; i < 2; ++i) {
      int idx = 2 * rank + i, expect = n * (n - 1) / 2 + n * idx;
      CHECK(out[i] == expect, "Ireduce_scatter_block [%d] = %d, expected %d", i, out[i], expect);
    }
    for (int ip = 0; ip < 2; ++ip) {
      for (int i = 0; i < total; ++i) in[i] = rank * i;
      int *dst = out;
      if (ip) {
        MPI_Ireduce_scatter(MPI_IN_PLACE, in, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
        dst = in;
      } else {
        MPI_Ireduce_scatter(in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
      }
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      int first = rank * (rank + 1) / 2; /* where my block starts in the packed vector */
      for (int i = 0; i <= rank; ++i) {
        int expect = (n * (n - 1) / 2) * (first + i);
        CHECK(dst[i] == expect, "Ireduce_scatter%s [%d] = %d, expected %d", ip ? " in place" : "", i, dst[i], expect);
      }
    }
    free(in);
  }

  /* ---- scan and exscan: sum, and concatenation (order) ---- */
  {
    MPI_Op cat;
    MPI_Op_create(concat, 0, &cat);
    MPI_Datatype digits;
    MPI_Type_contiguous(2, MPI_LONG, &digits);
    MPI_Type_commit(&digits);
    long v = rank + 1, incl = -1, excl = -1, d[2] = {(rank + 1) % 10, 10}, dincl[2], dexcl[2] = {-5, -5};
    MPI_Request q[4];
    MPI_Iscan(&v, &incl, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &q[0]);
    MPI_Iexscan(&v, &excl, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &q[1]);
    MPI_Iscan(d, dincl, 1, digits, cat, MPI_COMM_WORLD, &q[2]);
    MPI_Iexscan(d, dexcl, 1, digits, cat, MPI_COMM_WORLD, &q[3]);
    MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
    CHECK(incl == (long)(rank + 1) * (rank + 2) / 2, "Iscan sum: %ld", incl);
    if (rank > 0) CHECK(excl == (long)rank * (rank + 1) / 2, "Iexscan sum: %ld", excl);
    long expect = 0;
    for (int i = 0; i <= rank; ++i) expect = expect * 10 + (i + 1) % 10;
    CHECK(dincl[0] == expect, "Iscan concat: %ld, expected %ld", dincl[0], expect);
    if (rank > 0) CHECK(dexcl[0] == expect / 10, "Iexscan concat: %ld, expected %ld", dexcl[0], expect / 10);
    else CHECK(dexcl[0] == -5, "Iexscan wrote rank 0's receive buffer");
    long ip = rank + 1;
    MPI_Iscan(MPI_IN_PLACE, &ip, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(ip == incl, "in-place Iscan: %ld", ip);
    MPI_Op_free(&cat);
    MPI_Type_free(&digits);
  }

  /* ---- errors ---- */
  /* (on MPI_COMM_SELF, where every rank is the root that checks displs:
   * an error at the root only would leave the others' gatherv in flight) */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int cls = -1;
  int e = MPI_Igatherv(mine, 1, MPI_INT, buf, counts, NULL, MPI_INT, 0, MPI_COMM_SELF, &r);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_ARG && r == MPI_REQUEST_NULL, "Igatherv with NULL displs: class %d", cls);
  counts[0] = -1;
  e = MPI_Ireduce_scatter(mine, got, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_COUNT, "Ireduce_scatter with a negative count: class %d", cls);

  free(buf), free(counts), free(displs);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("nbc2: ok (%d ranks)\n", n);
  MPI_Finalize();
  return 0;
}
