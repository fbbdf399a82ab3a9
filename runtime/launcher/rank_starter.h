// RankStarter: how the launcher starts one rank on a host. The local
// implementation forks and execs; RemoteStarter starts ranks on other hosts
// through a per-host helper (`lazarus helper`, launched with ssh) behind the
// same interface. The starter also hands the rank its job secret without
// putting it on a command line or in the environment: the local starter
// through an inherited pipe (LZ_SECRET_FD); RemoteStarter writes it to the
// helper's ssh stdin, and the helper hands it on as the local starter does.
//
//   LocalStarter starter;
//   LZ_RETURN_IF_ERROR(starter.begin(host, rank_hosts));
//   LZ_ASSIGN_OR_RETURN(StartedRank r, starter.start(spec));
//   loop.watch(r.out.get(), POLLIN, ...);
//   starter.signal(rank, r.pid, SIGTERM);
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "lazarus/status.h"
#include "oob/frame.h"
#include "oob/helper_messages.h"
#include "oob/socket.h"

namespace lz::launcher {

class EventLoop;

struct RankSpec {
  int rank = 0;
  std::string host;
  std::vector<std::string> argv;  // argv[0]: the program, looked up in PATH
  std::vector<std::string> env;   // complete environment, "NAME=value"
  std::string secret;             // delivered out of band
  int stdin_fd = -1;              // the rank's stdin (a local rank; the caller's, kept open); -1: /dev/null
  std::vector<int> cpus;          // bind the rank to these CPUs (launcher/binding.h); empty: not bound
  std::string cwd;                // the rank's working directory; empty: the starter's
};

struct StartedRank {
  pid_t pid = -1;  // also the rank's process group
  oob::Fd out;     // read ends of the rank's stdout/stderr, non-blocking
  oob::Fd err;
};

// What a starter that works through helpers needs from its job (the Job
// implements it). Called on the job's event loop thread only.
class StarterHost {
 public:
  virtual ~StarterHost() = default;
  virtual EventLoop& loop() = 0;
  virtual const std::string& job_id() const = 0;
  virtual const std::string& job_secret() const = 0;
  // "host:port" of the job's OOB listener, as ranks and helpers reach it.
  virtual const std::string& oob_address() const = 0;
  // Queues a frame to the helper of host index `host` (dropped if it is gone).
  virtual void send_helper(int host, oob::MsgType type, const std::string& payload) = 0;
  // A rank started on another host ended; `wait_status` as waitpid() gives it.
  virtual void rank_exited(int rank, int wait_status) = 0;
  // These ranks are gone without an exit status (their helper died or its
  // connection broke); `why` says what happened.
  virtual void ranks_lost(const std::vector<int>& ranks, const std::string& why) = 0;
};

class RankStarter {
 public:
  virtual ~RankStarter() = default;
  // Whether this starter can place a rank on `host`; otherwise the reason.
  virtual Status can_start_on(const std::string& host) const = 0;
  // Called once, before the first start(), with every rank's host (index:
  // rank). A starter with helpers starts them here and returns when all
  // are connected (or one failed: the error names its host). Default: nothing.
  virtual Status begin(StarterHost& host, const std::vector<std::string>& rank_hosts) {
    (void)host;
    (void)rank_hosts;
    return Status::Ok();
  }
  // Starts the rank; returns when its program is running (a program that
  // cannot be executed is an error naming it). For a remote rank, pid is
  // the process on its host: the launcher must neither wait for it nor
  // signal it itself (is_remote()); its end comes through
  // StarterHost::rank_exited().
  virtual StatusOr<StartedRank> start(const RankSpec& spec) = 0;
  // Whether ranks on `host` run on another machine.
  virtual bool is_remote(const std::string& host) const {
    (void)host;
    return false;
  }
  // Sends `sig` to rank `rank` (pid as start() returned it): its process
  // group and the process itself. Never fails loudly: a rank already gone
  // is not an error.
  virtual void signal(int rank, pid_t pid, int sig) {
    (void)rank;
    kill(-pid, sig);
    kill(pid, sig);
  }
  // A child of the launcher that is no rank ended (the launcher reaped it):
  // true when it was this starter's own (a launch agent), which it then
  // judges itself; false lets the launcher treat it as an adopted orphan.
  virtual bool child_exited(pid_t pid, int wait_status) {
    (void)pid;
    (void)wait_status;
    return false;
  }
  // Whether `pid`, a child of the launcher, is one this starter keeps for
  // the whole job (a remote host's launch agent). Default: none.
  virtual bool owns_child(pid_t pid) const {
    (void)pid;
    return false;
  }
  // Whether the ranks were started by another process manager (srun) and
  // are only adopted (launcher/adopted_starter.h): the job learns of a
  // rank's end from its OOB connection alone.
  virtual bool adopted() const { return false; }
  // Helpers' OOB connections (OobServer callbacks, by host index as given to
  // the helper). admit_helper's error refuses the connection; the default
  // refuses every helper.
  virtual Status admit_helper(int host) {
    return PermissionDenied("helper of host " + std::to_string(host) + ": this job starts no helpers");
  }
  virtual void on_helper_connected(int host) { (void)host; }
  virtual void on_helper_frame(int host, oob::Frame& frame) {
    (void)host;
    (void)frame;
  }
  virtual void on_helper_closed(int host, const Status& why) {
    (void)host;
    (void)why;
  }
};

}  // namespace lz::launcher
