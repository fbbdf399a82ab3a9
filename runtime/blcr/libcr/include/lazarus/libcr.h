/* lazarus/libcr.h: BLCR's libcr interface on Lazarus' CRIU back end.
 *
 * Code written for Berkeley Lab Checkpoint/Restart (BLCR) builds unchanged
 * against this header (compile with -I<lazarus include dir>, link with
 * -llazarus_cr; or `#include <lazarus/libcr.h>`), and gets BLCR's semantics:
 *
 *   static int on_checkpoint(void *arg) {
 *     save_something(arg);                // before the image is taken
 *     int rc = cr_checkpoint(CR_CHECKPOINT_READY);
 *     if (rc < 0)      handle_failure();  // no image; we go on
 *     else if (rc > 0) after_restart();   // we are a process restored from the image
 *     else             after_continue();  // the image is saved; we go on
 *     return 0;
 *   }
 *   int main(void) {
 *     cr_client_id_t id = cr_init();      // > 0, or < 0 with errno
 *     cr_register_callback(on_checkpoint, NULL, CR_THREAD_CONTEXT);
 *     cr_enter_cs(id); update_shared_state(); cr_leave_cs(id);  // never split by a checkpoint
 *     ...
 *   }
 *
 * A checkpoint is requested from outside (`cr_checkpoint --pid P`, or
 * cr_request_checkpoint() in another process) or by the process itself
 * (cr_request_checkpoint() with cr_target 0 or getpid()). Programs without any
 * of these calls become checkpointable with `cr_run PROG ARGS...`. An image is
 * a directory of CRIU images; `cr_restart DIR` brings the process back under
 * its original pid, its stdout/stderr connected to cr_restart's.
 *
 * How a checkpoint runs (what BLCR documents, and the order chosen where BLCR
 * leaves it open):
 *  1. The request is queued; cr_status() says CR_STATE_PENDING. While any
 *     thread is inside a critical section (cr_enter_cs .. cr_leave_cs) nothing
 *     else happens: the checkpoint starts when the last section is left, and
 *     that cr_leave_cs() returns only after the checkpoint is complete.
 *     cr_enter_cs() blocks from now until the checkpoint is over.
 *  2. CR_STATE_ACTIVE. Thread-context callbacks run in libcr's checkpoint
 *     thread, newest registration first (as atexit()), nested: each one's
 *     cr_checkpoint() runs the next one, so the newest callback's "before" part
 *     runs first and its "after" part last. A library that registers its
 *     callback in its initialisation (an MPI runtime in MPI_Init) thus wraps the
 *     callbacks the application registers after it, like a destructor order.
 *  3. When every thread-context callback has reached cr_checkpoint(), every
 *     thread that registered signal-context callbacks is sent CR_SIGNUM; its
 *     handler runs that thread's callbacks, newest first, nested the same way.
 *  4. When all of them have reached cr_checkpoint(), the image is taken (CRIU
 *     self-dump, libcriu) with all those threads waiting inside cr_checkpoint().
 *  5. Every cr_checkpoint() then returns 0 in the process that goes on, or
 *     > 0 in a process restored from the image, or -error; the callbacks
 *     finish; the state goes back to CR_STATE_IDLE. A callback that returns
 *     without calling cr_checkpoint() lets the checkpoint go on without it.
 *  libcr closes its control socket before the image is taken and re-creates it
 *  afterwards in both the continuing and the restored process, so a restored
 *  process can be checkpointed again.
 *
 * Plugging a runtime in (the MPI CR thread): register one CR_THREAD_CONTEXT
 * callback after cr_init(), from MPI_Init. In it: take the MPI entry lock,
 * drain (crcp), run every transport's checkpoint hook (close inet sockets and
 * shared segments: CRIU cannot save them), then
 *     int rc = cr_checkpoint(CR_CHECKPOINT_READY);
 * then continue hooks (rc == 0) or restart hooks (rc > 0), release the lock,
 * return 0. Pass CR_CHECKPOINT_TEMP_FAILURE to cr_checkpoint() to refuse a
 * checkpoint (before MPI_Init finished, after MPI_Finalize began): the
 * requester sees the failure and the process goes on. The image goes where the
 * request said (cr_get_checkpoint_info()->dest). When the launcher's request
 * arrives over OOB, the runtime asks for its own checkpoint:
 *     args.cr_target = 0; args.cr_fd = open(rank_dir, O_DIRECTORY);
 *     cr_request_checkpoint(&args, &h); rc = cr_poll_checkpoint(&h, NULL);
 * rc > 0 in the process that goes on; CR_POLL_CHKPT_ERR_POST with errno
 * CR_ERESTARTED in a restored rank. Application callbacks registered after
 * MPI_Init run outside the runtime's (see 2.), so they may still use MPI.
 * Without libcr, the cr/criu module's checkpoint() gives the same contract:
 * both end in the same CRIU self-dump (components/cr/criu/criu_self_dump.h).
 *
 * Differences from BLCR, all due to CRIU:
 *  - An image is a directory. cr_checkpoint_args_t.cr_fd may be a descriptor
 *    of a directory (the images go there), of a regular file (the images go to
 *    "<file>.criu/" and the file gets one line naming that directory, which
 *    cr_restart accepts), or CR_DEST_CWD / -1 ("context.<pid>/" in the
 *    requester's working directory).
 *  - Only CR_SCOPE_PROC; a restore needs the original pid to be free; the
 *    process must not hold inet sockets (CRIU 4.1.1 on kernels >= 6.16).
 *  - Needs CAP_CHECKPOINT_RESTORE, like CRIU: root, or a process that cr_run
 *    started (or cr_restart restored) in a user namespace of its own.
 *  - cr_init() may be called once per process or once per thread; the client
 *    id is per thread as in BLCR.
 * Not provided: cr_forward_checkpoint (fails with ENOSYS), the experimental
 * restart-request calls, cr_hold_ctrl, cr_register_hook, cr_inc/dec_persist.
 */
#ifndef LAZARUS_LIBCR_H
#define LAZARUS_LIBCR_H 1

#include <errno.h>
#include <sys/select.h> /* struct timeval */
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- types and constants (BLCR names and values) ---- */

typedef int cr_version_t;
#define CR_CHECKPOINT_ARGS_VERSION 1

typedef int (*cr_callback_t)(void* arg);
typedef int cr_client_id_t;
typedef int cr_callback_id_t;
typedef unsigned long cr_checkpoint_handle_t;

/* The signal that runs signal-context callbacks (BLCR uses 64 too). */
#define CR_SIGNUM 64

#define CR_MAX_CALLBACKS 0x1FFFFFF
#define CR_THREAD_CONTEXT 0x4000000
#define CR_SIGNAL_CONTEXT 0x2000000
/* The client id to use for cr_enter_cs/cr_leave_cs inside a callback. */
#define CR_ID_CALLBACK ((cr_client_id_t)(-1))

typedef enum { CR_SCOPE_PROC, CR_SCOPE_PGRP, CR_SCOPE_SESS, CR_SCOPE_TREE } cr_scope_t;

/* cr_status() */
enum { CR_STATE_IDLE, CR_STATE_PENDING, CR_STATE_ACTIVE };

/* cr_checkpoint() flags */
enum {
  CR_CHECKPOINT_READY = 0,        /* take the image */
  CR_CHECKPOINT_TEMP_FAILURE = 1, /* cancel it; the process goes on */
  CR_CHECKPOINT_PERM_FAILURE = 2, /* cancel it and kill the process */
  CR_CHECKPOINT_OMIT = 4          /* leave this process out (here: cancel, errno ESRCH for the requester) */
};
#define CR_CHECKPOINT_TEMP_FAILURE_CODE(v) (CR_CHECKPOINT_TEMP_FAILURE | ((v) << 16))
#define CR_CHECKPOINT_PERM_FAILURE_CODE(v) (CR_CHECKPOINT_PERM_FAILURE | ((v) << 16))

/* cr_checkpoint_args_t.cr_flags (accepted; CRIU always saves everything needed) */
#define CR_CHKPT_PROHIBIT_SELF 0x00000001
#define CR_CHKPT_PTRACED_ALLOW 0x00000002
#define CR_CHKPT_PTRACED_SKIP 0x00000004
#define CR_CHKPT_PTRACER_SKIP 0x00000008
#define CR_CHKPT_ASYNC_ERR 0x00000010
#define CR_CHKPT_DUMP_EXEC 0x0200
#define CR_CHKPT_DUMP_PRIVATE 0x0400
#define CR_CHKPT_DUMP_SHARED 0x0800
#define CR_CHKPT_DUMP_ALL (CR_CHKPT_DUMP_EXEC | CR_CHKPT_DUMP_PRIVATE | CR_CHKPT_DUMP_SHARED)

/* cr_fd value: "context.<pid>" in the requester's working directory. */
#define CR_DEST_CWD (-4096)

/* Errors beside errno's (BLCR's numbering). */
enum {
  CR_ETEMPFAIL = 2354, /* a callback cancelled the checkpoint (temporary) */
  CR_EPERMFAIL,        /* a callback cancelled the checkpoint and the process is killed */
  CR_ENOSUPPORT,       /* the target is not a libcr process (no cr_init, not under cr_run) */
  CR_EVERSION,
  CR_EOMITTED, /* a callback asked to leave this process out */
  CR_EBADARCH,
  CR_EPTRACED,
  CR_EPTRACER,
  CR_ERSTRTABRT,
  CR_ERESTARTED, /* the request was made before the restart this process comes from */
  CR_ENOTCB,     /* only valid inside a callback */
  CR_ENOINIT     /* cr_init() has not been called */
};

typedef struct cr_checkpoint_args {
  cr_version_t cr_version;
  cr_scope_t cr_scope;     /* CR_SCOPE_PROC only */
  pid_t cr_target;         /* pid; 0 = this process */
  int cr_fd;               /* destination: see the banner */
  int cr_signal;           /* sent to the target once its image is saved (0: none) */
  unsigned int cr_timeout; /* seconds to wait for the target; 0: no limit */
  unsigned int cr_flags;
} cr_checkpoint_args_t;

struct cr_checkpoint_info {
  int signal;       /* signal the target receives after the checkpoint, or 0 */
  const char* dest; /* the image directory */
  pid_t requester;
  pid_t target;
  cr_scope_t scope;
};

struct cr_restart_info {
  pid_t requester; /* pid of the process that restored us (cr_restart, launcher) */
  const char* src; /* the image directory */
};

/* ---- process setup and callbacks ---- */

/* Initialises libcr for the calling thread (and, the first time, for the
 * process: starts the checkpoint thread and its control socket). Returns a
 * client id > 0, or -1 with errno set. Not async-signal-safe. */
extern cr_client_id_t cr_init(void);

/* Registers a callback run at each checkpoint, in the context given by flags
 * (exactly one of CR_THREAD_CONTEXT, CR_SIGNAL_CONTEXT). Signal-context
 * callbacks belong to the calling thread and run there, in a signal handler
 * (only async-signal-safe work). Returns the callback's id, or -1 with errno:
 * CR_ENOINIT, EINVAL (flags), ENOSPC, EBUSY (called from a callback). */
extern cr_callback_id_t cr_register_callback(cr_callback_t func, void* arg, int flags);

/* Replaces function and argument of callback `id` (keeping its place in the
 * order); func NULL disables it. The context flag must match. 0 or -1/errno. */
extern int cr_replace_callback(cr_callback_id_t id, cr_callback_t func, void* arg, int flags);

/* The same for the callback that is running. 0 or -1/errno (CR_ENOTCB). */
extern int cr_replace_self(cr_callback_t func, void* arg, int flags);

/* Inside a callback: lets the checkpoint proceed (flags CR_CHECKPOINT_READY)
 * or cancels it (the *_FAILURE flags, CR_CHECKPOINT_OMIT). Returns 0 when the
 * image was taken and this process goes on, > 0 in a process restored from
 * the image, -error if the checkpoint failed (-CR_ETEMPFAIL, -CR_EPERMFAIL,
 * -CR_EOMITTED, -EIO when CRIU failed, -CR_ENOTCB outside a callback). */
extern int cr_checkpoint(int flags);

/* ---- critical sections ---- */

/* Enters a critical section: a checkpoint is not taken while any thread is in
 * one. Blocks while a checkpoint is pending or active. With CR_ID_CALLBACK
 * (inside a callback) returns at once. Sections nest. 0 or -1/errno.
 * Async-signal-safe. */
extern int cr_enter_cs(cr_client_id_t id);
/* As cr_enter_cs, but never blocks: 0 when entered, > 0 when it would have
 * blocked (then do not call cr_leave_cs), -1/errno on error. */
extern int cr_tryenter_cs(cr_client_id_t id);
/* Leaves a critical section. Leaving the last one while a checkpoint is
 * pending lets it run, and returns after it is complete. 0 or -1/errno. */
extern int cr_leave_cs(cr_client_id_t id);

/* CR_STATE_IDLE, CR_STATE_PENDING or CR_STATE_ACTIVE (-1/errno CR_ENOINIT).
 * Async-signal-safe. */
extern int cr_status(void);

/* ---- requesting checkpoints ---- */

/* Use through cr_initialize_checkpoint_args_t(&args): fills defaults
 * (CR_SCOPE_PROC, target 0, cr_fd CR_DEST_CWD, no signal, no timeout). */
extern int cri_init_checkpoint_args_t(cr_version_t version, cr_checkpoint_args_t* args);
#define cr_initialize_checkpoint_args_t(args) cri_init_checkpoint_args_t(CR_CHECKPOINT_ARGS_VERSION, (args))

/* Asks for a checkpoint of args->cr_target (0 or getpid(): this process, which
 * must have called cr_init; otherwise another libcr process of the same user,
 * or any as root). Returns 0 and a handle, or -1 with errno: ESRCH (no such
 * process), CR_ENOSUPPORT (not a libcr process), EPERM, EINVAL, EBADF. */
extern int cr_request_checkpoint(cr_checkpoint_args_t* args, cr_checkpoint_handle_t* handle);

/* Waits for the request to complete, at most *timeout (NULL: no limit).
 * Fails with EDEADLK when the target is this process and the caller holds a
 * critical section (the checkpoint would wait for it forever).
 * > 0 complete, 0 not yet, -1/errno on a failure to wait. */
extern int cr_wait_checkpoint(cr_checkpoint_handle_t* handle, struct timeval* timeout);
/* Result of a completed request; releases the handle. > 0 success; -1 with
 * errno EAGAIN (not complete), CR_ERESTARTED (complete, and this process is
 * a restored copy of the one that asked), or the failure (CR_ETEMPFAIL,
 * CR_EPERMFAIL, ESRCH (omitted / target gone), EIO (CRIU failed), ...). */
extern int cr_reap_checkpoint(cr_checkpoint_handle_t* handle);
/* cr_wait_checkpoint then cr_reap_checkpoint: > 0 done, 0 not yet,
 * CR_POLL_CHKPT_ERR_PRE (wait failed) or CR_POLL_CHKPT_ERR_POST (the result
 * is a failure or CR_ERESTARTED; see errno). */
#define CR_POLL_CHKPT_ERR_PRE -1
#define CR_POLL_CHKPT_ERR_POST -2
extern int cr_poll_checkpoint(cr_checkpoint_handle_t* handle, struct timeval* timeout);

/* Not supported with CRIU: -1, errno ENOSYS. */
extern int cr_forward_checkpoint(cr_scope_t scope, pid_t target);

/* Inside a callback, before cr_checkpoint(): the request being served. */
extern const struct cr_checkpoint_info* cr_get_checkpoint_info(void);
/* Inside a callback, after cr_checkpoint() returned > 0: the restart. */
extern const struct cr_restart_info* cr_get_restart_info(void);

/* ---- utilities ---- */

typedef unsigned int cr_spinlock_t;
#define CR_SPINLOCK_INITIALIZER 0U
extern void cr_spinlock_init(cr_spinlock_t* lock);
extern void cr_spinlock_lock(cr_spinlock_t* lock);
extern void cr_spinlock_unlock(cr_spinlock_t* lock);
extern int cr_spinlock_trylock(cr_spinlock_t* lock);

/* strerror() that also knows the CR_E* codes. */
extern const char* cr_strerror(int errnum);

/* Lazarus extension: the detailed message of the calling thread's last failed
 * libcr call (for example CRIU's error and the log to read), or "". */
extern const char* cr_lz_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* LAZARUS_LIBCR_H */
