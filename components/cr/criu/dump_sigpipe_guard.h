// Keeps a criu service that dies mid-dump from killing the rank it dumps.
//
// Such a death (killed, out of memory) raises SIGPIPE in the rank twice over:
// in the thread that called criu_dump(), where libcriu writes to the dead
// service's socket, and in the thread criu had infected, whose parasite was
// splicing pages into a pipe criu no longer reads. The parasite runs with
// every signal blocked and, its tracer gone, returns to the interrupted code
// through sigreturn, which restores the thread's own mask: the SIGPIPE left
// pending there would then take its default action and kill the whole rank
// for a checkpoint that can simply fail.
//
// While a guard lives SIGPIPE is ignored (writes still fail with EPIPE). When
// it ends it waits, at most `settle`, until every thread's blocked mask is
// back to what it was when the guard began (an infected thread has finished
// its cure), discards any SIGPIPE then pending (setting a signal to SIG_IGN
// discards its pending instances, in every thread), and puts the
// application's disposition back. After a good dump the masks are already
// back and nothing waits.
//
//   { DumpSigpipeGuard guard; ret = criu_dump(); }
//
// Thread-safety: one guard at a time per process (self_dump holds its dump
// mutex). A SIGPIPE handler the application installs while a guard lives is
// replaced by the one in place before it.
#pragma once

#include <signal.h>

#include <chrono>
#include <map>
#include <string>

namespace lz::cr::criu {

class DumpSigpipeGuard {
 public:
  explicit DumpSigpipeGuard(std::chrono::milliseconds settle = std::chrono::milliseconds(2000));
  ~DumpSigpipeGuard();
  DumpSigpipeGuard(const DumpSigpipeGuard&) = delete;
  DumpSigpipeGuard& operator=(const DumpSigpipeGuard&) = delete;

  // tid -> the SigBlk field of /proc/self/task/<tid>/status.
  static std::map<std::string, std::string> thread_masks();

 private:
  std::chrono::milliseconds settle_;
  std::map<std::string, std::string> masks_before_;
  struct sigaction old_ {};
};

}  // namespace lz::cr::criu
