// The `cr` framework: checkpoint/restart back ends (criu: core image; app:
// application-level serializer; none: checkpointing off).
//
// In a rank, the CR service thread (runtime/cr) drives a checkpoint: it takes
// the MPI entry lock, lets the crcp module drain the channels, runs every
// transport's on_checkpoint hook, then calls the cr module:
//
//   auto outcome = cr.checkpoint({dir, seq, rank, /*terminate=*/false});
//   if (!outcome.ok()) ...                     // nothing was saved; job goes on
//   else if (*outcome == Outcome::kContinued)  // transports: on_continue()
//   else                                       // kRestarted: on_restart()
//
// checkpoint() returns twice for a core-image back end, BLCR's cr_checkpoint()
// contract: once in the process that goes on (kContinued) and once more, later,
// in a process restored from the image (kRestarted).
//
// Outside a job, the BLCR-compatible surface (runtime/blcr: liblazarus_cr,
// cr_run, cr_checkpoint, cr_restart) selects a cr module the same way and uses
// two optional methods, each advertised by a capability bit:
//
//   if (!(cr.capabilities() & kCapSingleProcess)) ...   // say which bit is missing
//   auto outcome = cr.checkpoint_process({dir_fd, "/tmp/img"});  // in the saved process
//   auto pid = cr.restore({.dir = "/tmp/img", .stdin_fd = 0, .stdout_fd = 1, .stderr_fd = 2});
//
// Life cycle of a module: query() hands it out; init() before any other call
// (idempotent: a second call gives the same answer and acquires nothing more);
// finalize() at the end (idempotent, and valid without init()). The
// conformance suite (tests/conformance/cr) checks these rules, the
// capabilities against the optional methods, and a save/restore round trip for
// every back end with kCapCoreImage.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lazarus/component.h"
#include "lazarus/status.h"

namespace lz::cr {

// 2: restore() and checkpoint_process() advertised by kCapRestore and
//    kCapSingleProcess; RestoreRequest::stdin_fd.
inline constexpr uint32_t kInterfaceVersion = 2;

enum Capability : uint64_t {
  kCapCoreImage = 1ull << 0,        // saves the whole process image; no application changes
  kCapAppLevel = 1ull << 1,         // saves registered application variables
  kCapNeedsPrivilege = 1ull << 2,   // needs root or CAP_CHECKPOINT_RESTORE
  kCapPortable = 1ull << 3,         // restartable on another architecture
  kCapChangeRanks = 1ull << 4,      // restartable with a different number of ranks
  kCapRestore = 1ull << 5,          // restore() brings a saved process back (else kUnimplemented)
  kCapSingleProcess = 1ull << 6,    // checkpoint_process() saves a process outside a job (else kUnimplemented)
};
// "core-image,restore,..." for messages and `lazarus info`; "none" for 0.
std::string capability_names(uint64_t caps);

enum class Outcome { kContinued, kRestarted };

// One rank's part of a global snapshot.
struct LocalSnapshot {
  std::string dir;     // rank's directory inside the snapshot (exists, mode 0700)
  uint64_t seq = 0;    // global snapshot sequence number
  int rank = -1;
  bool terminate = false;  // the process exits after a successful save
  // The read end of a pipe this process holds (write end closed) whose
  // identity is recorded with the image: a restorer hands the restored
  // process a new pipe in its place carrying the restart information (see
  // RestoreRequest::restart_fd). -1: none.
  int restart_fd = -1;
};

// A checkpoint of the calling process outside any job (the BLCR library).
struct ProcessCheckpoint {
  // The images directory, already open (O_DIRECTORY). The caller owns it and
  // keeps it open during the call; it may have come from another process over
  // a socket, so its path need not mean anything here.
  int dir_fd = -1;
  std::string dir;  // how to name it in messages (and in the image's records)
};

// Bring one saved process back: a rank from its local snapshot (launcher) or a
// single process from its image directory (cr_restart).
struct RestoreRequest {
  std::string dir;
  int rank = -1;  // for messages; -1 outside a job
  // Descriptors the restored process gets in place of the stdio it had at
  // dump time. stdin: -1 gives it /dev/null; stdout/stderr: -1 keeps the
  // caller's 1 and 2.
  int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1;
  // Read end of a pipe given to the restored process in place of the
  // LocalSnapshot::restart_fd it held at dump time (-1: none). The launcher
  // writes the restart information into it (runtime/oob/restart_info.h).
  int restart_fd = -1;
};

class Module : public lz::Module {
 public:
  // Prepares the module for checkpoint()/checkpoint_process()/restore(): from
  // MPI_Init before the CR thread accepts requests, from cr_init(), from the
  // launcher and cr_restart before restoring. Idempotent. Errors: kUnavailable
  // when the back end cannot work after all (its tool vanished).
  virtual Status init() = 0;
  // Saves this process into snap.dir; see the banner. Called on the CR thread
  // with the entry lock held and transports released. The files written are
  // listed by the caller from snap.dir afterwards. A back end that saves
  // nothing (neither kCapCoreImage nor kCapAppLevel) returns an error, never
  // an outcome. Errors: nothing usable was saved, the process goes on.
  virtual StatusOr<Outcome> checkpoint(const LocalSnapshot& snap) = 0;
  // Optional (kCapRestore): restores a saved process and returns its pid. The
  // caller becomes a child subreaper (PR_SET_CHILD_SUBREAPER) and the restored
  // process its child, to be waited for; it must also reap other orphans that
  // reach it. Checks the image first: a missing, incomplete or truncated one
  // is refused naming the file (kNotFound, kDataLoss), a pid in use likewise
  // (kUnavailable); a failed restore quotes the back end's log (kIoError).
  // Any thread. Default: kUnimplemented (back ends that restart by starting
  // the program afresh: application level).
  virtual StatusOr<pid_t> restore(const RestoreRequest& req) {
    (void)req;
    return Unimplemented("this back end restarts by re-running the program");
  }
  // Optional (kCapSingleProcess): saves the calling process into req.dir_fd,
  // outside a job (no entry lock, no transports: the BLCR library calls it on
  // its checkpoint thread once the callbacks have run). Returns twice like
  // checkpoint(): kContinued in the process that goes on, kRestarted in one
  // restored from the image. The process always keeps running after a good
  // save, whatever the back end's own settings say: the caller signals or
  // ends it itself once it knows the result (BLCR's cr_signal). Calls are
  // serialised process-wide. Errors: kInvalidArgument (no directory),
  // kUnavailable (this process cannot be saved here, with the reason),
  // kIoError (the save failed; the message quotes the back end's log).
  // Default: kUnimplemented.
  virtual StatusOr<Outcome> checkpoint_process(const ProcessCheckpoint& req) {
    (void)req;
    return Unimplemented("this back end cannot save a single process outside a job");
  }
  // Releases what init() acquired. Idempotent; valid without init().
  virtual Status finalize() = 0;
};

}  // namespace lz::cr
