// Bringing one process back from a CRIU image directory (CriuModule::restore:
// the launcher, cr_restart). Runs `criu restore -D dir --shell-job --restore-detached
// --leave-stopped`, resumes the restored tree with SIGCONT once criu is done, and
// hands the restored process the caller's descriptors for stdin/stdout/stderr
// through --inherit-fd, using the keys the dumping process recorded
// (criu_image_meta.h): the pipe to a launcher that no longer exists, or a log
// file that grew after the dump, would otherwise make the restore fail.
//
//   RestoreOptions o{.dir = "/snap/3/rank.0", .criu_binary = bin, .stdout_fd = out, .stderr_fd = err};
//   auto pid = restore_image(o);        // the restored process is now our child
//   waitpid(*pid, &status, 0);
//
// The caller becomes a child subreaper (prctl PR_SET_CHILD_SUBREAPER): criu
// exits once the process runs, and the process is reparented to the caller,
// which can then wait for it (and must reap other orphans that reach it, such
// as the detached `criu swrk` of later checkpoints of that process).
// Thread-safety: any thread; it forks and waits for its own criu child only.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "lazarus/status.h"

namespace lz::cr::criu {

struct RestoreOptions {
  std::string dir;  // images directory (or what it was renamed to)
  std::string criu_binary;
  int log_level = 4;  // for restore.log in the images directory
  // Descriptors the restored process gets in place of its original stdio;
  // -1: stdin gets /dev/null, stdout/stderr keep the caller's 1 and 2.
  int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1;
  // Given in place of the restart channel recorded at dump time (-1: none;
  // the restored process then reads end-of-file there, as a continuing one).
  int restart_fd = -1;
  // The files the process held (lazarus/procfiles): rank -1 for a process
  // whose directory is not a job snapshot's rank.<r>; a move only checks
  // them; keep_files leaves them as they are (cr_files=keep).
  int rank = -1;
  bool move = false;
  bool keep_files = false;
  std::vector<std::string>* file_report = nullptr;  // what was done to them; null: logged
};

// Checks the directory first (exists, is an image, sizes match the dump, the
// original pid is free), so the usual failures name the file or the pid rather
// than CRIU's log, then puts the process's files back (a file that cannot be
// is refused by name). Returns the pid of the restored process.
StatusOr<pid_t> restore_image(const RestoreOptions& opts);

// The checks alone (used by restore_image and by tools before they start).
Status check_image(const std::string& dir);

}  // namespace lz::cr::criu
