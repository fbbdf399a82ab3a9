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
// Ranks on other hosts are started, signalled and reported through the
// starter's per-host helpers (RemoteStarter): the Job never waits for or
// signals their pids itself (RankProcess::remote).
// On the first failure it prints one line to stderr naming the rank, pid and
// code or signal, tells the connected ranks (ERROR), sends SIGTERM to every
// rank's process group and SIGKILL after the grace period.
//
// Jobs its ranks spawn (MPI_Comm_spawn: SPAWN_REQUEST) run under launchers
// of their own that it starts and watches (SpawnedJobs, spawned_jobs.h): one
// that fails fails this job; the job does not end while one runs; stopping
// the job stops them (SIGTERM, SIGKILL after the grace).
//
// Its checkpoints are coordinated by a CheckpointCoordinator
// (checkpoint_coordinator.h), to which it routes the CR frames, the control
// socket's requests and the ranks' ends; the Job is its Host.
//
//   Job job(spec, starter);
//   return job.run();
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "launcher/checkpoint_coordinator.h"
#include "launcher/control_server.h"
#include "launcher/event_loop.h"
#include "launcher/job_file.h"
#include "launcher/job_spec.h"
#include "launcher/modex_server.h"
#include "launcher/oob_server.h"
#include "launcher/rank_mover.h"
#include "launcher/rank_process.h"
#include "launcher/rank_starter.h"
#include "launcher/spawn_tree.h"
#include "launcher/spawned_jobs.h"
#include "oob/messages.h"

namespace lz::launcher {

inline constexpr int kTimeoutExitCode = 124;

class Job : private CheckpointCoordinator::Host, private StarterHost {
 public:
  Job(JobSpec spec, RankStarter& starter);
  ~Job() override;
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  // How the job brings a moving rank back from its image (`lazarus migrate`,
  // `lazarus evacuate`); unset (the default) refuses migrations. Before run().
  void set_mover(RankMover* mover) { mover_ = mover; }

  // Runs the job to its end; returns the exit status for the launcher.
  int run();

  // After run(): when the job ended because a rank died (killed by a signal,
  // or exited non-zero without calling abort) or a job it spawned failed,
  // the line saying so, e.g. "rank 2 died (signal 9)"; empty otherwise.
  // --recover auto acts on it.
  const std::string& rank_death() const { return rank_death_; }
  // After run(): the hosts whose helper was lost while the job ran (it died or
  // its connection broke), taking their ranks along; --recover auto leaves
  // them out of the restart.
  const std::vector<std::string>& lost_hosts() const { return lost_hosts_; }
  // The directory of the job's snapshot store (empty until it is opened).
  std::string store_dir() const { return cr_ ? cr_->store_dir() : std::string(); }

 private:
  Status setup_signals();
  Status start_ranks();
  void write_job_file();
  std::string job_json() const;
  std::vector<std::string> rank_env(const RankProcess& r) const;

  // Events.
  void on_signal_fd();
  void on_rank_exit(RankProcess& r);
  void on_output(RankProcess& r, bool is_err);
  Status admit(int rank, uint32_t flags);
  void on_connected(int rank, uint32_t flags);
  void on_frame(int rank, oob::Frame& f);
  void on_oob_closed(int rank, const Status& why);
  void on_fence(RankProcess& r, const oob::Frame& f);
  void on_barrier(RankProcess& r, const oob::Frame& f);
  // SPAWN_REQUEST: starts the new job (or refuses it) and answers the rank.
  void on_spawn(RankProcess& r, const oob::Frame& f);
  // Broadcasts a completed fence/barrier round, or fails the job.
  void answer_round(RankProcess& r, const StatusOr<std::optional<std::string>>& done, oob::MsgType answer);

  // Stopping.
  void stop_ranks(int sig);
  void kill_remaining();
  void maybe_finish();
  // Ranks that connected to the OOB: an OOB job needs all of them to.
  bool oob_job() const;

  // CheckpointCoordinator::Host.
  int size() const override { return static_cast<int>(ranks_.size()); }
  const RankProcess& rank(int i) const override { return ranks_[static_cast<size_t>(i)]; }
  void send(int rank, oob::MsgType type, const std::string& payload) override;
  void broadcast(oob::MsgType type, const std::string& payload) override;
  void say(const std::string& line) const override;
  bool stopping() const override { return stopping_; }
  void fail(int exit_code, const std::string& message) override;
  void stop_after_checkpoint() override;
  void reap() override;
  bool has_transient_children() const override;
  void job_file_changed() override { write_job_file(); }
  Status can_restore_on(const std::string& host) const override;
  Status restore_rank(int rank, const std::string& host, const std::string& images_dir) override;
  void announce_move(int rank, const std::string& host) override;
  // Where `rank` lives once on `host` (its node id: a host's ranks share one).
  Placement place_on(int rank, const std::string& host) const;
  // Stops reading a rank's output pipes (after forwarding what they hold).
  void close_output(RankProcess& r);
  // The rank's output files (--output-filename, -outfile-pattern), once.
  Status open_output(RankProcess& r);
  void watch_output(RankProcess& r);

  // StarterHost (ranks on other hosts, through the starter's helpers).
  EventLoop& loop() override { return loop_; }
  const std::string& job_id() const override { return spec_.job_id; }
  const std::string& job_secret() const override { return secret_; }
  const std::string& oob_address() const override { return oob_address_; }
  void send_helper(int host, oob::MsgType type, const std::string& payload) override;
  void rank_exited(int rank, int wait_status) override;
  void ranks_lost(const std::vector<int>& ranks, const std::string& why) override;
  JobSpec spec_;
  RankStarter& starter_;
  RankMover* mover_ = nullptr;
  EventLoop loop_;
  std::string secret_;
  std::unique_ptr<OobServer> server_;
  std::vector<RankProcess> ranks_;
  std::optional<JobFile> job_file_;
  std::string oob_address_;
  oob::Fd signal_fd_;

  bool stopping_ = false;
  bool starting_ = false;  // start_ranks() is at work: ranks not started yet are not finished
  int exit_code_ = 0;
  uint64_t kill_timer_ = 0;
  uint64_t drain_timer_ = 0;
  int signals_seen_ = 0;

  std::unique_ptr<ModexServer> modex_;  // fence and barrier rounds

  std::string rank_death_;
  std::vector<std::string> lost_hosts_;
  bool peer_failure_abort_ = false;  // a rank aborted because a peer died (MPI_ERR_PROC_FAILED)

  // Checkpoint/restart.
  std::unique_ptr<ControlServer> control_;
  std::unique_ptr<CheckpointCoordinator> cr_;

  // The links to the job that spawned this one and to the jobs it spawned.
  std::unique_ptr<SpawnTree> tree_;
  // Restarts the jobs this one had spawned when its snapshot was taken
  // (listed in the snapshot's file "spawned"); under cr=app keeps them for
  // the ranks' MPI_Comm_spawn calls instead (respawn_).
  Status restart_spawned();
  // A cr=app restart: the snapshots of the jobs this one had spawned, which
  // its ranks' next MPI_Comm_spawn calls resume, in order.
  std::vector<std::string> respawn_;

  // Jobs the ranks spawned (last: destroyed first, killing and reaping
  // what is left of them).
  std::unique_ptr<SpawnedJobs> spawned_;
};

}  // namespace lz::launcher
