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
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lazarus/component.h"
#include "lazarus/status.h"

namespace lz::cr {

inline constexpr uint32_t kInterfaceVersion = 1;

enum Capability : uint64_t {
  kCapCoreImage = 1ull << 0,        // saves the whole process image; no application changes
  kCapAppLevel = 1ull << 1,         // saves registered application variables
  kCapNeedsPrivilege = 1ull << 2,   // needs root or CAP_CHECKPOINT_RESTORE
  kCapPortable = 1ull << 3,         // restartable on another architecture
  kCapChangeRanks = 1ull << 4,      // restartable with a different number of ranks
};
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

// Launcher side: bring one rank back from its local snapshot.
struct RestoreRequest {
  std::string dir;
  int rank = -1;
  int stdout_fd = -1, stderr_fd = -1;  // where the restored rank's output goes
  // Read end of a pipe given to the restored process in place of the
  // LocalSnapshot::restart_fd it held at dump time (-1: none). The launcher
  // writes the restart information into it (runtime/cr/restart_info.h).
  int restart_fd = -1;
};

class Module : public lz::Module {
 public:
  // Process side, from MPI_Init, before the CR thread accepts requests.
  virtual Status init() = 0;
  // Saves this process into snap.dir; see the banner. Called on the CR thread
  // with the entry lock held and transports released. The files written are
  // listed by the caller from snap.dir afterwards.
  virtual StatusOr<Outcome> checkpoint(const LocalSnapshot& snap) = 0;
  // Launcher side: restores a rank; returns its pid. kUnimplemented for back
  // ends that restart by starting the program afresh (application level).
  virtual StatusOr<pid_t> restore(const RestoreRequest& req) {
    (void)req;
    return Unimplemented("this back end restarts by re-running the program");
  }
  virtual Status finalize() = 0;
};

}  // namespace lz::cr
