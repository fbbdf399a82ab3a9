// RankProcess: what the launcher knows about one rank of its job: the
// process, its output pipes, and where it is in its life cycle on the OOB
// channel (connected, finalized, disconnected on purpose for a checkpoint).
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>

#include "launcher/host_list.h"
#include "launcher/output_forwarder.h"
#include "launcher/output_options.h"
#include "oob/socket.h"

namespace lz::launcher {

struct RankProcess {
  int rank = 0;
  Placement place;
  pid_t pid = -1;
  bool starting = false;  // its starter is at work (a remote rank may connect before its start() returns)
  bool remote = false;    // runs on another host: pid is that host's; started, signalled and reaped by its helper
  oob::Fd out;  // pipes from the rank; reset at EOF
  oob::Fd err;
  std::unique_ptr<OutputForwarder> out_fwd;
  std::unique_ptr<OutputForwarder> err_fwd;
  RankOutputFiles files;  // --output-filename, -outfile-pattern (kept across restores and moves)

  bool exited = false;
  int wait_status = 0;

  bool ever_connected = false;  // authenticated at least once: an MPI (OOB) rank
  bool connected = false;
  bool detached = false;        // sent DISCONNECT; expected to reconnect()
  bool finalized = false;
  bool restored = false;        // restored from a snapshot: its first connection is a reconnect()
  uint64_t lost_timer = 0;      // grace timer after an unexpected OOB close
  int moves = 0;                // times it was migrated (restored into the running job)

  bool started() const { return pid > 0; }
  bool running() const { return started() && !exited; }
  // "rank 2 (pid 1234)", "rank 2 (pid 1234 on node7)"
  std::string describe() const;
  // "exited with code 3" / "was killed by signal 9 (SIGKILL)"
  std::string exit_text() const;
  // The job exit status this rank's end implies: its code, or 128 + signal.
  int exit_code() const;
};

}  // namespace lz::launcher
