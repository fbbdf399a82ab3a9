/* lazarus/checkpoint.h: application-level checkpoint/restart (cr/app).
 *
 * A program registers what must survive a failure, calls LZ_Checkpoint at
 * safe points (places where it has no receive pending), and on a restart
 * loads its variables instead of computing them:
 *
 *   int it = 0; double grid[...];
 *   LZ_Register("it", &it, 1, MPI_INT);
 *   LZ_Register_decomposed("grid", grid, MPI_DOUBLE, 2, global, start, owned, alloc, offset);
 *   int restarting; LZ_Restarting(&restarting);
 *   if (restarting) LZ_Restore(); else init(grid);
 *   for (; it < n; ++it) { LZ_Checkpoint(NULL); step(grid); }
 *
 * A restarted program runs from main again: it registers, sees
 * LZ_Restarting() == 1, restores, and resumes at the safe point whose call
 * wrote the snapshot (that LZ_Checkpoint call is not counted twice and
 * takes nothing). Checkpoints are taken under `--mca cr app` every
 * cr_app_every calls, every cr_app_interval seconds, on `lazarus checkpoint
 * <job>` and with `--checkpoint-interval`; every rank writes the snapshot of
 * the same call count. Under another cr back end (criu, none) the calls are
 * valid and cheap: LZ_Checkpoint is a safe point that writes nothing.
 *
 * Every call returns LZ_SUCCESS (0) or an MPI error class and, like an MPI
 * call, goes through MPI_COMM_WORLD's error handler. Valid between MPI_Init
 * and MPI_Finalize.
 */
#ifndef LAZARUS_CHECKPOINT_H
#define LAZARUS_CHECKPOINT_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LZ_SUCCESS 0

/* `count` elements of `type` at `addr` (any predefined type or one derived
 * from them, committed). Names are unique; registering a name again is an
 * error (MPI_ERR_ARG) until LZ_Unregister. */
int LZ_Register(const char *name, void *addr, int count, MPI_Datatype type);

/* A block-decomposed C-order array: this rank owns the block of extent
 * owned_shape starting at global index owned_start of an array of
 * global_shape; its local allocation has alloc_shape (NULL: owned_shape) and
 * the owned block sits at alloc_offset in it (NULL: zeros). LZ_Restore fills
 * every element of the allocation that lies inside the global array, halo
 * cells included, from whichever ranks' blocks hold them, so a job can
 * restart on another number of ranks. */
int LZ_Register_decomposed(const char *name, void *addr, MPI_Datatype type, int ndims,
                           const int global_shape[], const int owned_start[], const int owned_shape[],
                           const int alloc_shape[], const int alloc_offset[]);

/* Forgets a registration (a name not registered: MPI_ERR_ARG). */
int LZ_Unregister(const char *name);

/* *flag = 1 in a process started to resume from a snapshot. */
int LZ_Restarting(int *flag);

/* Loads every variable registered so far (call again after registering
 * more: restore a size, allocate, register the array, restore again). A
 * variable the snapshot does not hold is an error naming it. */
int LZ_Restore(void);

/* A safe point. *taken = 1 where this call wrote this rank's part of a
 * snapshot (taken may be NULL). No receive may be pending here. */
int LZ_Checkpoint(int *taken);

#ifdef __cplusplus
}
#endif

#endif /* LAZARUS_CHECKPOINT_H */
