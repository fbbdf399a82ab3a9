// A user namespace of the job's own, for checkpoint/restart as an ordinary
// user (cr=criu without root).
//
// CRIU needs CAP_CHECKPOINT_RESTORE to dump a process and to give restored
// processes their pids back. An ordinary user gets it, without any
// privilege outside, in a user namespace of their own: enter() unshares one
// (with the PID and mount namespaces the caller asks for, owned by it),
// maps the user's uid and gid to themselves (the job sees its own ids, files
// keep their owners), and narrows the capability sets:
//   - this process (the launcher, a helper, a restarter): CAP_SYS_ADMIN, to
//     make PID namespaces and mount their /proc, and CAP_CHECKPOINT_RESTORE;
//   - every program it executes (ranks, criu): CAP_CHECKPOINT_RESTORE alone,
//     as an ambient capability; a rank's own `criu swrk` inherits it from
//     the rank, and `criu restore` restores pids with it.
// All of them count only inside the namespace, which holds nothing but the
// job: they give no process more than the user already has.
//
//   userns::allow_entry();                      // at start of a launcher/tool
//   if (userns::wanted()) LZ_RETURN_IF_ERROR(userns::enter(CLONE_NEWPID | CLONE_NEWNS));
//
// unshare(CLONE_NEWUSER) needs a single-threaded caller.
#pragma once

#include <string>

#include "lazarus/status.h"

namespace lz::userns {

// Marks this process as one that starts checkpointed programs (the lazarus
// CLI, cr_run, cr_restart): it may enter a job namespace, so cr=criu is
// available to it when one can be created (probe()).
void allow_entry();
bool entry_allowed();

// Whether a job namespace can be created here, in a child process. The
// error names what stops it (a sysctl, the kernel) and the command that
// fixes it.
Status probe();

// Not root and no CAP_CHECKPOINT_RESTORE: a cr=criu job needs a namespace.
bool wanted();

// Enters a new user namespace (plus `also`, CLONE_* flags of namespaces it
// will own), maps the uid and gid to themselves and narrows the capability
// sets as described above.
Status enter(int also);

// True inside a namespace enter() made (this process or an ancestor).
bool inside();

}  // namespace lz::userns
