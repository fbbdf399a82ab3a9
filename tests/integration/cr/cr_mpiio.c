/* cr_mpiio: MPI files (MPI_File_*) held open across every checkpoint and
 * written at every iteration, so that the files an uninterrupted run leaves
 * are fully determined by the iterations run (cr_mpiio_test.sh compares
 * them byte for byte with a reference run's):
 *
 *   ind.out     one file of all ranks, a view (disp 0, etype MPI_INT, a
 *               filetype that interleaves the ranks' records: a record at
 *               rank * REC ints, resized to np * REC ints); MPI_File_write
 *               at the individual pointer, which is state the checkpoint
 *               keeps
 *   shared.out  MPI_File_write_ordered, one line per rank and iteration
 *               ("it <it> rank <r> " and r + 1 '#': a length that depends
 *               on the rank), at the shared pointer (rank 0's window)
 *   coll.out    MPI_File_write_at_all of BLOCK doubles at (it * np + rank)
 *               * BLOCK (a view of etype MPI_DOUBLE); every 10 iterations,
 *               after sync-barrier-sync, rank 0 reads back a double that
 *               rank np - 1 wrote with MPI_File_read_at and adds it to the
 *               sum (so reading works after a restart too)
 *   nb.out      MPI_File_iwrite_at of a NBREC-byte record at (it * np +
 *               rank) * NBREC, waited for in the NEXT iteration: a
 *               non-blocking write is in flight across a checkpoint that
 *               lands between iterations (the last one is waited for before
 *               the close)
 *   log.<r>     fopen(..., "a"), one line per iteration, written last (the
 *               test counts rank 0's lines)
 *
 * Iterations are paced by cr_pace() (20 ms until CR_ITER_RELEASE exists).
 * Usage: cr_mpiio ITERS TAG    (files in the current directory; TAG unused)
 * Under cr=app (LZ_Register/LZ_Restore) it re-opens every file, sets the
 * views again and moves the individual and shared pointers to where the
 * restored iteration starts, as a program restarting itself does (the
 * restart rolled the files back to their sizes at the checkpoint); with
 * CR_MPIIO_SEEK=0 in its environment it does not move them, and checks
 * that the restart put them there (mpi/io/file_record.h), also on another
 * rank count than the snapshot's (the shared pointer then counts the lines
 * of the snapshot's ranks); with CR_MPIIO_OPEN=before it opens them before
 * LZ_Restore, which then puts the pointers back.
 * Prints "result <sum>" on rank 0. */
#include <lazarus/checkpoint.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cr_pace.h"

#define REC 4    /* ints of one rank's record in ind.out */
#define BLOCK 8  /* doubles of one rank's block in coll.out */
#define NBREC 32 /* bytes of one rank's record in nb.out */

static int rank, np;
static int np0; /* the rank count of the iterations shared.out holds (a restart may change it) */

static void check(int rc, const char* what, int it) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  fprintf(stderr, "cr_mpiio: rank %d: %s at iteration %d: %s\n", rank, what, it, msg);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

/* The count of `st` must be `want` elements of `dt`. */
static void check_count(MPI_Status* st, MPI_Datatype dt, int want, const char* what, int it) {
  int n = -1;
  MPI_Get_count(st, dt, &n);
  if (n == want) return;
  fprintf(stderr, "cr_mpiio: rank %d: %s at iteration %d moved %d elements, not %d\n", rank, what, it, n, want);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

/* Rank r's line of shared.out at iteration it (returns its length). */
static int ordered_line(char* buf, size_t size, int it, int r) {
  return snprintf(buf, size, "it %d rank %d %.*s\n", it, r, r + 1, "################");
}

/* The bytes shared.out holds before iteration it: every rank's lines of
 * the iterations before. */
static MPI_Offset ordered_bytes_before(int it) {
  MPI_Offset n = 0;
  char line[64];
  for (int j = 0; j < it; ++j)
    for (int r = 0; r < np0; ++r) n += ordered_line(line, sizeof line, j, r);
  return n;
}

static double coll_value(int it, int r, int k) { return it * 1000.0 + r * 100.0 + k + 0.5; }

struct files {
  MPI_File ind, shared, coll, nb;
  MPI_Datatype rec_type; /* ind.out's filetype */
};

/* Opens (collectively) the four files and sets the views; `it` is the
 * iteration the run starts at (0, or the restored one under cr=app), where
 * the pointers are put. */
static void open_files(struct files* f, int it, int restarting) {
  const int wr = MPI_MODE_CREATE | MPI_MODE_WRONLY;
  check(MPI_File_open(MPI_COMM_WORLD, "ind.out", wr, MPI_INFO_NULL, &f->ind), "open ind.out", it);
  check(MPI_File_open(MPI_COMM_WORLD, "shared.out", wr, MPI_INFO_NULL, &f->shared), "open shared.out", it);
  check(MPI_File_open(MPI_COMM_WORLD, "coll.out", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &f->coll),
        "open coll.out", it);
  check(MPI_File_open(MPI_COMM_WORLD, "nb.out", wr, MPI_INFO_NULL, &f->nb), "open nb.out", it);
  if (!restarting) {
    /* A fresh run starts from empty files (a reference run in a reused
     * directory, say). A restart keeps them: rolled back to the checkpoint. */
    check(MPI_File_set_size(f->ind, 0), "set_size ind.out", it);
    check(MPI_File_set_size(f->shared, 0), "set_size shared.out", it);
    check(MPI_File_set_size(f->coll, 0), "set_size coll.out", it);
    check(MPI_File_set_size(f->nb, 0), "set_size nb.out", it);
  }
  /* ind.out: this rank's REC ints at rank * REC, the tile np * REC ints. */
  MPI_Datatype placed;
  MPI_Aint disp = (MPI_Aint)rank * REC * (MPI_Aint)sizeof(int);
  int len = REC;
  MPI_Type_create_hindexed(1, &len, &disp, MPI_INT, &placed);
  MPI_Type_create_resized(placed, 0, (MPI_Aint)np * REC * (MPI_Aint)sizeof(int), &f->rec_type);
  MPI_Type_commit(&f->rec_type);
  MPI_Type_free(&placed);
  check(MPI_File_set_view(f->ind, 0, MPI_INT, f->rec_type, "native", MPI_INFO_NULL), "set_view ind.out", it);
  check(MPI_File_set_view(f->coll, 0, MPI_DOUBLE, MPI_DOUBLE, "native", MPI_INFO_NULL), "set_view coll.out", it);
  /* The pointers where iteration `it` starts (set_view put them at 0). */
  const char* seek = getenv("CR_MPIIO_SEEK");
  if (!restarting || !seek || strcmp(seek, "0") != 0) {
    check(MPI_File_seek(f->ind, (MPI_Offset)it * REC, MPI_SEEK_SET), "seek ind.out", it);
    check(MPI_File_seek_shared(f->shared, ordered_bytes_before(it), MPI_SEEK_SET), "seek_shared shared.out", it);
  } else {
    fprintf(stderr, "cr_mpiio: rank %d: pointers left to the restart\n", rank);
  }
}

/* Both pointers where iteration `it` starts. */
static void check_pointers(struct files* f, int it) {
  MPI_Offset pos = -1, shared_pos = -1;
  MPI_File_get_position(f->ind, &pos);
  MPI_File_get_position_shared(f->shared, &shared_pos);
  if (pos != (MPI_Offset)it * REC || shared_pos != ordered_bytes_before(it)) {
    fprintf(stderr, "cr_mpiio: rank %d: pointers at %lld and %lld where iteration %d starts (%lld and %lld)\n",
            rank, (long long)pos, (long long)shared_pos, it, (long long)it * REC,
            (long long)ordered_bytes_before(it));
    MPI_Abort(MPI_COMM_WORLD, 4);
  }
}

static void close_files(struct files* f) {
  check(MPI_File_close(&f->ind), "close ind.out", -1);
  check(MPI_File_close(&f->shared), "close shared.out", -1);
  check(MPI_File_close(&f->coll), "close coll.out", -1);
  check(MPI_File_close(&f->nb), "close nb.out", -1);
  MPI_Type_free(&f->rec_type);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int iters = argc > 1 ? atoi(argv[1]) : 200;

  int it = 0;
  long sum = 0;
  LZ_Register("it", &it, 1, MPI_INT);
  LZ_Register("sum", &sum, 1, MPI_LONG);
  np0 = np;
  LZ_Register("np0", &np0, 1, MPI_INT);
  int restarting = 0;
  LZ_Restarting(&restarting);
  /* CR_MPIIO_OPEN=before: the files are open when LZ_Restore runs. */
  const char* when = getenv("CR_MPIIO_OPEN");
  const int open_first = when && strcmp(when, "before") == 0;
  struct files f;
  if (open_first) open_files(&f, 0, restarting);
  if (restarting) LZ_Restore();

  char name[64];
  snprintf(name, sizeof name, "log.%d", rank);
  if (!restarting) unlink(name);
  FILE* log = fopen(name, "a");
  if (!log) {
    perror(name);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (!open_first) open_files(&f, it, restarting);
  check_pointers(&f, it);

  MPI_Request nb_req = MPI_REQUEST_NULL;
  int nb_it = -1; /* the iteration whose nb.out record is in flight */
  char nb_rec[NBREC + 1];
  MPI_Status st;
  for (; it < iters; ++it) {
    LZ_Checkpoint(NULL);
    /* The previous iteration's non-blocking write ends here (it was in
     * flight across the pause, and across a checkpoint that landed there). */
    if (nb_req != MPI_REQUEST_NULL) {
      check(MPI_Wait(&nb_req, &st), "MPI_Wait of MPI_File_iwrite_at", nb_it);
      check_count(&st, MPI_CHAR, NBREC, "MPI_File_iwrite_at", nb_it);
    }
    long v = it + rank, r;
    MPI_Allreduce(&v, &r, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    sum += r;

    int rec[REC] = {it, rank, it * np + rank, (it * 31 + rank * 7) ^ 0x5a5a};
    check(MPI_File_write(f.ind, rec, REC, MPI_INT, &st), "MPI_File_write ind.out", it);
    check_count(&st, MPI_INT, REC, "MPI_File_write ind.out", it);

    char line[64];
    const int n = ordered_line(line, sizeof line, it, rank);
    check(MPI_File_write_ordered(f.shared, line, n, MPI_CHAR, &st), "MPI_File_write_ordered shared.out", it);
    check_count(&st, MPI_CHAR, n, "MPI_File_write_ordered shared.out", it);

    double block[BLOCK];
    for (int k = 0; k < BLOCK; ++k) block[k] = coll_value(it, rank, k);
    check(MPI_File_write_at_all(f.coll, (MPI_Offset)(it * np + rank) * BLOCK, block, BLOCK, MPI_DOUBLE, &st),
          "MPI_File_write_at_all coll.out", it);
    check_count(&st, MPI_DOUBLE, BLOCK, "MPI_File_write_at_all coll.out", it);
    if (it % 10 == 9) {
      /* sync-barrier-sync: rank np - 1's block is visible to rank 0. */
      check(MPI_File_sync(f.coll), "MPI_File_sync coll.out", it);
      MPI_Barrier(MPI_COMM_WORLD);
      check(MPI_File_sync(f.coll), "MPI_File_sync coll.out", it);
      double back = -1;
      if (rank == 0) {
        const int k = it % BLOCK;
        check(MPI_File_read_at(f.coll, (MPI_Offset)(it * np + np - 1) * BLOCK + k, &back, 1, MPI_DOUBLE, &st),
              "MPI_File_read_at coll.out", it);
        check_count(&st, MPI_DOUBLE, 1, "MPI_File_read_at coll.out", it);
        if (back != coll_value(it, np - 1, k)) {
          fprintf(stderr, "cr_mpiio: rank 0: coll.out holds %g where rank %d wrote %g at iteration %d\n", back,
                  np - 1, coll_value(it, np - 1, k), it);
          MPI_Abort(MPI_COMM_WORLD, 5);
        }
      }
      /* Every rank's sum the same: a restart on another rank count takes it. */
      MPI_Bcast(&back, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      sum += (long)back;
    }

    snprintf(nb_rec, sizeof nb_rec, "nb %06d rank %02d %013ld\n", it, rank, sum);
    check(MPI_File_iwrite_at(f.nb, (MPI_Offset)(it * np + rank) * NBREC, nb_rec, NBREC, MPI_CHAR, &nb_req),
          "MPI_File_iwrite_at nb.out", it);
    nb_it = it;

    fprintf(log, "rank %d iteration %d sum %ld\n", rank, it, sum);
    fflush(log);
    cr_pace();
  }
  if (nb_req != MPI_REQUEST_NULL) {
    check(MPI_Wait(&nb_req, &st), "MPI_Wait of MPI_File_iwrite_at", nb_it);
    check_count(&st, MPI_CHAR, NBREC, "MPI_File_iwrite_at", nb_it);
  }
  close_files(&f);
  fclose(log);
  if (rank == 0) printf("result %ld\n", sum);
  MPI_Finalize();
  return 0;
}
