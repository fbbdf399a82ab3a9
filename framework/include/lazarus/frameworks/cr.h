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
//
// An application-level back end (kCapAppLevel) saves what the application
// registered instead of the process: the runtime (runtime/cr/app_service)
// calls it from the application thread at an LZ_Checkpoint safe point, and
// on a restart (the program runs from main again) to load the variables:
//
//   LZ_ASSIGN_OR_RETURN(uint64_t bytes, cr.save_variables({dir, job, seq, safe_point, rank, np, &vars}));
//   LZ_ASSIGN_OR_RETURN(AppSnapshotInfo info, cr.describe_snapshot(snapshot_dir));
//   LZ_RETURN_IF_ERROR(cr.load_variables({snapshot_dir, rank, np, &vars}));
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lazarus/component.h"
#include "lazarus/status.h"

struct lz_datatype_s;  // lazarus/datatype/datatype.h

namespace lz::cr {

// 2: restore() and checkpoint_process() advertised by kCapRestore and
//    kCapSingleProcess; RestoreRequest::stdin_fd.
// 3: the application-level side: save_variables(), describe_snapshot(),
//    load_variables() (kCapAppLevel).
// 4: the files a process holds (lazarus/procfiles): RestoreRequest::move and
//    ::file_report; checkpoint() records them (kCapRecordsFiles) and
//    restore() puts them back first.
inline constexpr uint32_t kInterfaceVersion = 4;

enum Capability : uint64_t {
  kCapCoreImage = 1ull << 0,        // saves the whole process image; no application changes
  kCapAppLevel = 1ull << 1,         // saves registered application variables
  kCapNeedsPrivilege = 1ull << 2,   // needs CAP_CHECKPOINT_RESTORE: root, or a job user namespace (lazarus/userns)
  kCapPortable = 1ull << 3,         // restartable on another architecture
  kCapChangeRanks = 1ull << 4,      // restartable with a different number of ranks
  kCapRestore = 1ull << 5,          // restore() brings a saved process back (else kUnimplemented)
  kCapSingleProcess = 1ull << 6,    // checkpoint_process() saves a process outside a job (else kUnimplemented)
  kCapRecordsFiles = 1ull << 7,     // checkpoint() records the process's files itself (lazarus/procfiles);
                                    // otherwise the CR service records them at the save
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
  // A migration (the process stopped at its image: its files are checked,
  // not rolled back) rather than a restart.
  bool move = false;
  // Where restore() reports what it did to the process's files before it ran
  // (lazarus/procfiles: "truncated ...", and warnings); null: logged.
  std::vector<std::string>* file_report = nullptr;
};

// A variable the application registered (LZ_Register, LZ_Register_decomposed).
struct AppVariable {
  std::string name;
  void* addr = nullptr;
  int64_t count = 0;  // elements of `type` at addr (decomposed: the whole allocation)
  const lz_datatype_s* type = nullptr;
  // A block-decomposed C-order array (empty global_shape: not decomposed), in
  // elements: the whole array, this rank's block in it, the allocation and
  // where the block sits in the allocation.
  std::vector<int64_t> global_shape, owned_start, owned_shape, alloc_shape, alloc_offset;
  bool decomposed() const { return !global_shape.empty(); }
};

// One rank's part of an application-level snapshot.
struct AppSave {
  std::string dir;  // the rank's directory in the snapshot (exists, 0700)
  std::string job_id;
  uint64_t seq = 0;         // global snapshot number
  uint64_t safe_point = 0;  // the LZ_Checkpoint call count it was taken at
  int rank = 0, nranks = 1;
  const std::vector<AppVariable>* vars = nullptr;
  // A migration's hand-over (cr=app, `lazarus migrate`): a decomposed
  // variable is saved over its whole allocation (owned part and halo), and
  // that is the block recorded, so the process taking the rank's place gets
  // its halo back as it was from this rank's part alone (the others write
  // nothing). A snapshot saves the owned part only.
  bool whole_allocation = false;
};

// What a restart needs to know of a snapshot before loading from it.
struct AppSnapshotInfo {
  int nranks = 0;
  uint64_t safe_point = 0;
};

// Loading a rank's variables from a global snapshot, on `nranks` ranks
// (which may differ from the snapshot's when every variable allows it).
struct AppLoad {
  std::string snapshot_dir;  // holds rank.<r>/ of every rank that wrote it
  int rank = 0, nranks = 1;
  const std::vector<AppVariable>* vars = nullptr;
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
  // (kUnavailable); then puts the files the process held back to their state
  // at the checkpoint (lazarus/procfiles, cr_files; a file that cannot be is
  // refused naming it); a failed restore quotes the back end's log (kIoError).
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
  // Optional (kCapAppLevel): writes the variables' current values into
  // save.dir (a complete, fsynced file or nothing); returns the bytes
  // written. Errors: kIoError naming the file, kInvalidArgument naming a
  // variable that cannot be saved. Default: kUnimplemented.
  virtual StatusOr<uint64_t> save_variables(const AppSave& save) {
    (void)save;
    return Unimplemented("this back end does not save application variables");
  }
  // Optional (kCapAppLevel): the rank count and safe point of a snapshot.
  virtual StatusOr<AppSnapshotInfo> describe_snapshot(const std::string& snapshot_dir) {
    (void)snapshot_dir;
    return Unimplemented("this back end does not save application variables");
  }
  // Optional (kCapAppLevel): fills every variable from the snapshot:
  // non-decomposed ones from this rank's file (on another rank count, from
  // rank 0's when the file marks them replicated, else refused naming the
  // variable), decomposed ones element by element from whichever ranks'
  // blocks hold them. Errors name the variable and the file: kNotFound (not
  // in the snapshot), kInvalidArgument (another type or shape), kDataLoss.
  virtual Status load_variables(const AppLoad& load) {
    (void)load;
    return Unimplemented("this back end does not save application variables");
  }
  // Releases what init() acquired. Idempotent; valid without init().
  virtual Status finalize() = 0;
};

}  // namespace lz::cr
