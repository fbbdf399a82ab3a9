// The one place where a process saves itself with CRIU (libcriu self-dump).
// Used by the cr/criu module for both of its save methods: checkpoint() (CR
// thread of an MPI rank) and checkpoint_process() (the BLCR library,
// runtime/blcr), so both give BLCR's cr_checkpoint() contract.
//
//   SelfDumpOptions o;
//   o.dir_fd = open(dir, O_DIRECTORY | O_CLOEXEC);
//   o.criu_binary = "/usr/sbin/criu";
//   auto r = self_dump(o);
//   if (!r.ok())                         // nothing usable was saved; process goes on
//   else if (*r == Outcome::kContinued)  // the image is complete, we go on
//   else                                 // kRestarted: we are a restored copy
//
// Contract and pitfalls handled here:
//  - The call returns twice: once in the process that goes on (kContinued) and,
//    later, in every process restored from the image (kRestarted). With
//    leave_running=false CRIU kills the process after a good dump, so the call
//    only returns in restored processes (or with an error).
//  - The caller must already have released what CRIU cannot save: inet sockets
//    (CRIU 4.1.1 cannot dump any on kernels >= 6.16), Unix sockets connected to
//    other processes, shared memory shared with other processes.
//  - `criu swrk` is started outside the process tree (criu_swrk.h), so no helper
//    zombie lands in the image and nothing reaps the application's children.
//  - dir_fd stays open during the dump and is therefore part of the image; the
//    meta file records it so that a restore can hand the (possibly renamed)
//    directory back through --inherit-fd.
//  - Writes kMetaFile before and kFilesFile after the dump (continuing side,
//    leave_running only), dump.log (CRIU's log, level log_level) in the dir.
//  - With a hook, CRIU runs it at post-dump while the process is frozen: it
//    records the process's files (criu_files_hook.h); its failure fails the
//    dump, and its reason is in the error.
//  - Refuses first, naming them, what CRIU cannot save of the process
//    (criu_dumpable.h).
//  - Serialised process-wide (libcriu keeps its options in a global).
// Thread-safety: any thread; concurrent calls run one after the other.
#pragma once

#include <string>

#include "criu_files_hook.h"
#include "lazarus/frameworks/cr.h"
#include "lazarus/status.h"

namespace lz::cr::criu {

struct SelfDumpOptions {
  int dir_fd = -1;                    // images directory, opened O_DIRECTORY; caller owns it
  std::string criu_binary;            // criu >= 4.1
  int log_level = 4;                  // CRIU -v level for dump.log (0-4)
  bool leave_running = true;          // false: CRIU kills the process after the dump
  bool shell_job = true;              // the process need not lead its session / own its tty
  std::string log_file = "dump.log";  // relative to the images directory
  int restart_fd = -1;                // recorded in the meta (LocalSnapshot::restart_fd)
  std::string hook;                   // post-dump hook recording the files; empty: none
  FilesRequest files;                 // what the hook records and keeps (dir_fd is added to skip_fds)
};

StatusOr<Outcome> self_dump(const SelfDumpOptions& opts);

// The last lines of `log` that CRIU marked as errors (for messages).
std::string criu_log_errors(const std::string& log, int max_lines = 3);

}  // namespace lz::cr::criu
