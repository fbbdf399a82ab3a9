// Job: the launcher's state machine for one running job.
//
// run() starts every rank (through a RankStarter), serves the OOB channel
// (handshakes, modex fences and barriers through ModexServer, abort, finalize,
// disconnect/reconnect),
// forwards the ranks' output, reaps children (the launcher is a child
// subreaper, SIGCHLD through a signalfd), forwards SIGINT/SIGTERM/SIGHUP, and
// decides the job's exit status:
//   - 0 when every rank exited 0 (and each rank that connected finalized);
//   - the first failing rank's exit code, or 128 + signal when it was killed;
//   - the abort code of the first rank that called abort();
//   - 1 when a rank that connected exits 0 or closes its OOB connection
//     without finalize (as Open MPI does);
//   - 124 when --timeout expired, 128 + signal when the launcher was signalled.
// On the first failure it prints one line to stderr naming the rank, pid and
// code or signal, tells the connected ranks (ERROR), sends SIGTERM to every
// rank's process group and SIGKILL after the grace period.
//
// It is also the coordinator of the job's checkpoints (job_checkpoint.cpp,
// the sequence of oob/frame.h): requests come from the control socket
// (`lazarus checkpoint`), the --checkpoint-interval timer, and are deferred
// until every rank is CR-ready, refused once one finalizes or exits. The
// snapshot is committed to the job's SnapshotStore when every rank is DONE.
//
//   Job job(spec, starter);
//   return job.run();
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "launcher/control_server.h"
#include "launcher/event_loop.h"
#include "launcher/job_file.h"
#include "launcher/job_spec.h"
#include "launcher/modex_server.h"
#include "launcher/oob_server.h"
#include "launcher/rank_process.h"
#include "launcher/rank_starter.h"
#include "oob/messages.h"
#include "snapshot/snapshot_store.h"

namespace lz::launcher {

inline constexpr int kTimeoutExitCode = 124;

class Job {
 public:
  Job(JobSpec spec, RankStarter& starter);
  ~Job();
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  // Runs the job to its end; returns the exit status for the launcher.
  int run();

  // After run(): when the job ended because a rank died (killed by a signal,
  // or exited non-zero without calling abort), the line saying so, e.g.
  // "rank 2 died (signal 9)"; empty otherwise. --recover auto acts on it.
  const std::string& rank_death() const { return rank_death_; }
  // The directory of the job's snapshot store (empty until it is opened).
  std::string store_dir() const { return store_ ? store_->dir() : std::string(); }

 private:
  Status setup_signals();
  Status start_ranks();
  void write_job_file();
  std::string job_json() const;
  std::vector<std::string> rank_env(const RankProcess& r) const;

  // Events.
  void on_signal_fd();
  void reap();
  void on_rank_exit(RankProcess& r);
  void on_output(RankProcess& r, bool is_err);
  Status admit(int rank, uint32_t flags);
  void on_connected(int rank, uint32_t flags);
  void on_frame(int rank, oob::Frame& f);
  void on_oob_closed(int rank, const Status& why);
  void on_fence(RankProcess& r, const oob::Frame& f);
  void on_barrier(RankProcess& r, const oob::Frame& f);
  // Broadcasts a completed fence/barrier round, or fails the job.
  void answer_round(RankProcess& r, const StatusOr<std::optional<std::string>>& done, oob::MsgType answer);

  // Stopping.
  void fail(int exit_code, const std::string& message);
  void stop_ranks(int sig);
  void kill_remaining();
  void maybe_finish();
  // Ranks that connected to the OOB: an OOB job needs all of them to.
  bool oob_job() const;

  void say(const std::string& line) const;

  // Checkpoint coordination (job_checkpoint.cpp).
  struct CrWaiter {
    uint64_t conn = 0;  // control connection; 0: internal (interval timer)
    bool wait = false;  // the requester wants the final outcome
  };
  enum class CrPhase { kIdle, kWaitReady, kRequested, kDrain, kGo };
  struct CrRankState {
    bool cr_ready = false;    // CR_READY received (or restored)
    bool finalizing = false;  // CR_FINALIZING received
    bool ready = false, drained = false, answered = false;
    std::vector<oob::CrBookmark> sent;
    uint64_t image_bytes = 0;
  };
  void on_control(uint64_t conn, const std::string& line);
  void cr_request(CrWaiter w, uint32_t flags, const std::string& origin);
  Status cr_refusal() const;
  void cr_try_start();
  Status cr_begin();
  void cr_on_frame(RankProcess& r, oob::Frame& f);
  void cr_rank_lost(RankProcess& r, const std::string& why);
  void cr_abort(const std::string& reason);  // before GO
  void cr_after_go_failure(const std::string& reason);
  void cr_maybe_finish_go();
  void cr_commit();
  void cr_fail_waiters(const std::string& reason);
  void cr_reset();
  void arm_interval_timer();
  Status open_store();
  bool cr_in_progress() const { return cr_phase_ != CrPhase::kIdle; }
  JobSpec spec_;
  RankStarter& starter_;
  EventLoop loop_;
  std::string secret_;
  std::unique_ptr<OobServer> server_;
  std::vector<RankProcess> ranks_;
  std::optional<JobFile> job_file_;
  std::string oob_address_;
  oob::Fd signal_fd_;

  bool stopping_ = false;
  int exit_code_ = 0;
  uint64_t kill_timer_ = 0;
  uint64_t drain_timer_ = 0;
  int signals_seen_ = 0;

  std::unique_ptr<ModexServer> modex_;  // fence and barrier rounds

  std::string rank_death_;

  // Checkpoint/restart.
  std::unique_ptr<ControlServer> control_;
  std::optional<snapshot::SnapshotStore> store_;
  std::optional<snapshot::PendingSnapshot> snap_;
  std::vector<CrRankState> cr_ranks_;
  CrPhase cr_phase_ = CrPhase::kIdle;
  std::vector<CrWaiter> cr_waiters_;
  uint32_t cr_flags_ = 0;
  uint64_t cr_wait_timer_ = 0;
  uint64_t interval_timer_ = 0;
  double cr_started_ = 0;  // monotonic seconds
  std::string cr_failure_;  // first failure after GO
  bool cr_terminating_ = false;  // a --term checkpoint reached GO: ranks may exit
  std::string last_snapshot_;
};

}  // namespace lz::launcher
