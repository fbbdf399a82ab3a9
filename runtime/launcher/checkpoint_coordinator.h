// CheckpointCoordinator: the launcher's side of a job's checkpoints (the CR
// sequence of oob/frame.h) and the requests of the job's control socket.
//
// One checkpoint at a time. Requests come from the control socket (`lazarus
// checkpoint`) and the --checkpoint-interval timer; one that arrives while a
// checkpoint waits or runs joins it and gets its outcome (a --term request
// makes it a terminating one). Phases:
//   kWaitReady  until every rank is CR-ready (bounded by cr_ready_wait)
//   kRequested  REQUEST sent, collecting READY bookmarks
//   kDrain      DRAIN sent (each rank told what its peers sent it), collecting DRAINED
//   kGo         GO sent, collecting DONE / FAILED (or the rank's exit)
// Before GO a failure aborts the checkpoint everywhere (ABORT to the others);
// after GO the ranks go on by themselves and only the snapshot is dropped.
// Refused once a rank finalizes or exits. The snapshot is committed to the
// job's SnapshotStore when every rank is DONE.
//
//   CheckpointCoordinator cr(spec, loop, host);   // host: the Job
//   cr.set_control(control.get());
//   cr.start();                                   // arms --checkpoint-interval
//   ... cr.on_frame(rank, f) for CR frames, cr.on_rank_lost(rank, why) ...
//
// With cr=app (application-level) the ranks checkpoint themselves at
// LZ_Checkpoint safe points; the coordinator negotiates the safe point of a
// requested checkpoint, hands each rank its directory when it reaches its
// line, tells each what its peers had sent it, and commits the snapshot when
// every rank's part is complete (oob/frame.h has the sequence;
// checkpoint_coordinator_app.cpp).
//
// Migration (`lazarus migrate <job> --rank R --to HOST`, `lazarus evacuate
// <job> --host H`; checkpoint_coordinator_migrate.cpp), cr=criu: the same
// phases as a checkpoint, but only the moving ranks get a directory and
// kCrTerminate; the others get kCrNoImage (they re-create their transports
// and keep running, writing nothing). Once a moving rank has ended after its
// dump, the Host restores it on its target (Host::restore_rank); it
// reconnects as the same rank and answers DONE (restarted), and every rank's
// fence after GO hands out the moved ranks' new addresses. The request to
// that DONE is the evacuation time, printed and answered. No snapshot is
// committed; the images go once the ranks run again.
// Under cr=app a forward negotiation first picks the safe point, and the
// same round then runs there, inside every rank's LZ_Checkpoint
// (kCrAtSafePoint): the moving ranks write their variables and hand-over
// instead of an image (kCrHandover) and end, and the Host's mover starts a
// new process in each one's place, which joins the job and answers DONE
// (restarted) as a restored rank does.
//
// Single-threaded: everything runs on the job's event loop.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "launcher/control_server.h"
#include "launcher/event_loop.h"
#include "launcher/job_spec.h"
#include "launcher/rank_process.h"
#include "launcher/spawn_tree.h"
#include "oob/frame.h"
#include "oob/messages.h"
#include "snapshot/snapshot_store.h"

namespace lz::launcher {

class CheckpointCoordinator final : public SpawnTree::Handler {
 public:
  // What the coordinator needs of its job.
  class Host {
   public:
    virtual ~Host() = default;
    virtual int size() const = 0;
    virtual const RankProcess& rank(int i) const = 0;
    virtual void send(int rank, oob::MsgType type, const std::string& payload) = 0;
    virtual void broadcast(oob::MsgType type, const std::string& payload) = 0;
    // One line to the user (stderr, prefixed with the job).
    virtual void say(const std::string& line) const = 0;
    virtual bool stopping() const = 0;
    // Ends the job with this exit code, naming the reason.
    virtual void fail(int exit_code, const std::string& message) = 0;
    // A --term checkpoint was committed: stop the ranks, exit 0.
    virtual void stop_after_checkpoint() = 0;
    // Reaps exited children (a --term commit waits for the dumpers).
    virtual void reap() = 0;
    // Whether the launcher has a child still running (or not yet reaped)
    // that is neither a rank's launch agent nor anything else the starter
    // keeps for the whole job (the ssh of a remote host's helper): a --term
    // checkpoint waits for the checkpointers reparented to it.
    virtual bool has_transient_children() const = 0;
    // The store or the last snapshot changed: rewrite the job file.
    virtual void job_file_changed() = 0;
    // Whether a rank's core image can be restored on `host` (migration);
    // otherwise why not, naming the host.
    virtual Status can_restore_on(const std::string& host) const = 0;
    // Brings `rank`, which ended after writing its image into
    // `images_dir`/rank.<rank>, back on `host` as the same rank of the job
    // (kDataLoss: the image is not complete yet; try again).
    virtual Status restore_rank(int rank, const std::string& host, const std::string& images_dir) = 0;
    // `rank` is about to move to `host`: the ranks that reconnect from now on
    // (the staying ones, after GO) learn its new place.
    virtual void announce_move(int rank, const std::string& host) = 0;
  };

  CheckpointCoordinator(const JobSpec& spec, EventLoop& loop, Host& host);
  ~CheckpointCoordinator() override;
  CheckpointCoordinator(const CheckpointCoordinator&) = delete;
  CheckpointCoordinator& operator=(const CheckpointCoordinator&) = delete;

  // The spawn tree around the job (null: none). Before start().
  void set_tree(SpawnTree* tree) { tree_ = tree; }
  // SpawnTree::Handler: checkpoint_coordinator_tree.cpp.
  void on_tree_checkpoint(const oob::TreeRoundMsg& m) override;
  void on_tree_go(uint64_t round) override;
  void on_tree_abort(uint64_t round, const std::string& reason) override;
  void on_child_drained(pid_t child, uint64_t round) override;
  void on_child_done(pid_t child, const oob::TreeDoneMsg& m) override;
  void on_child_lost(pid_t child, const std::string& why) override;
  // Under cr=app: a spawned job's launcher `child` started, its ranks in
  // epoch `from_epoch` (crcp.h start_epoch); its snapshots of every later
  // epoch belong to this job's (checkpoint_coordinator_app_tree.cpp).
  void app_child_started(pid_t child, uint64_t from_epoch);

  // The job's control socket (may stay null: no `lazarus checkpoint`).
  void set_control(ControlServer* control) { control_ = control; }
  // Arms the --checkpoint-interval timer (if any).
  void start();
  // Drops a snapshot still pending when the job ends.
  void shutdown();

  void on_control(uint64_t conn, const std::string& line);
  // A checkpoint asked for by a signal (SIGUSR1 to a job started by srun:
  // Slurm's --signal), as the interval timer asks: no one waits for it.
  void request_checkpoint(const std::string& origin) { request({0, false}, 0, origin); }
  // A CR frame (kCheckpointRequest .. kCrReservedLast) from a rank.
  void on_frame(int rank, oob::Frame& f);
  // A rank connected (a restored one was CR-ready when it was saved).
  void on_rank_connected(int rank, bool restored);
  // A rank exited or lost its OOB connection.
  void on_rank_lost(int rank, const std::string& why);

  bool in_progress() const { return phase_ != Phase::kIdle || negotiation_ != 0 || !lines_.empty(); }
  // After GO of a --term checkpoint (or after its commit): ranks end once saved.
  bool terminating() const { return terminating_; }
  // The job must not finish yet: a --term checkpoint commits after its ranks
  // ended, and a migration brings its ended ranks back.
  bool holds_finish() const { return phase_ == Phase::kGo && (terminating_ || migration_.has_value()); }
  // `rank` ends on purpose now: it is moving, after GO, and not restored yet.
  bool expects_exit(int rank) const;
  // The directory of the job's snapshot store (empty until it is opened).
  std::string store_dir() const { return store_ ? store_->dir() : std::string(); }
  const std::string& last_snapshot() const { return last_snapshot_; }
  void set_last_snapshot(const std::string& path) { last_snapshot_ = path; }

 private:
  struct Waiter {
    uint64_t conn = 0;  // control connection; 0: internal (interval timer)
    bool wait = false;  // the requester wants the final outcome
  };
  enum class Phase { kIdle, kWaitReady, kRequested, kDrain, kGo };
  struct RankState {
    bool cr_ready = false;    // CR_READY received (or restored)
    bool finalizing = false;  // CR_FINALIZING received
    bool ready = false, drained = false, answered = false;
    std::vector<oob::CrBookmark> sent;
    uint64_t image_bytes = 0;
  };
  // Clears every rank's round state and enters kRequested (checkpoint and migration alike).
  void begin_round();

  void request(Waiter w, uint32_t flags, const std::string& origin);
  // Answers `w` (or says) that its checkpoint is refused, and why.
  void refuse(const Waiter& w, const std::string& why);
  // Every rank drained (and the tree, if any): GO.
  void go();
  Status refusal() const;
  void try_start();
  Status open_store();
  Status begin();
  void abort_checkpoint(const std::string& reason);  // before GO
  void after_go_failure(const std::string& reason);
  void maybe_finish_go();
  void commit();
  void fail_waiters(const std::string& reason);
  void reset();
  void arm_interval_timer();

  // ---- the spawn tree (oob/tree_messages.h): checkpoint_coordinator_tree.cpp
  // A round of the tree this job's checkpoint belongs to.
  struct TreeRound {
    uint64_t round = 0;        // the root's seq
    bool from_parent = false;  // this job is not the root
    bool local_drained = false, drained_sent = false;
    enum class Child { kAsked, kDrained, kDone };
    std::map<pid_t, Child> children;
    std::vector<std::string> snapshots;  // the children's committed snapshots
  };
  bool in_tree() const;
  // Refuses a checkpoint a spawned job was asked for itself (or any under cr=app).
  Status tree_refusal() const;
  // begin(): kCrSpawnTree, and the children asked to take part.
  void tree_begin(uint64_t seq);
  // This job and every child drained: up to the parent, or (the root) GO.
  void tree_maybe_go();
  void tree_abort_children(const std::string& reason);
  bool tree_children_done() const;
  // Writes the children's snapshots into this one's directory (file "spawned").
  Status tree_list_children(const std::string& dir) const;
  void tree_committed(const std::string& path);
  void tree_failed(const std::string& reason);
  SpawnTree* tree_ = nullptr;
  std::optional<TreeRound> tree_round_;

  // ---- application-level checkpoints (cr=app): checkpoint_coordinator_app.cpp
  struct AppLine {
    std::optional<snapshot::PendingSnapshot> snap;
    double started = 0;
    std::vector<bool> lined, done;
    std::vector<std::vector<uint64_t>> sent;  // per rank: messages sent to each rank before its line
    uint64_t bytes = 0;
    std::vector<Waiter> waiters;
    uint64_t epoch = 0;  // crcp/c3's, the same in every job of a spawn tree
  };
  bool app_mode() const { return spec_.cr_app_level || spec_.cr_component == "app"; }
  // A checkpoint of the job (`for_parent`: one its parent's asked for, to
  // which a refusal is reported).
  void app_request(Waiter w, bool for_parent = false);
  void app_on_frame(int rank, oob::Frame& f);
  void app_on_rank_lost(const std::string& why);
  void app_position(int rank, const oob::AppPointMsg& m);
  void app_line(int rank, const oob::CrBookmarksMsg& m);
  void app_done(int rank, uint64_t safe_point, uint64_t bytes);
  void app_abort_line(uint64_t safe_point, const std::string& reason);
  void app_cancel_negotiation(const std::string& reason);
  // `spawned`: the spawned jobs' snapshots of the line (app_maybe_commit).
  void app_commit(uint64_t safe_point, const std::vector<std::string>& spawned);

  // ---- cr=app in a spawn tree: checkpoint_coordinator_app_tree.cpp
  // Each job takes its lines itself (cr_app_every; a request to the root is
  // passed down, and each job negotiates its own line); a spawned job reports
  // each line's end to its parent (TREE_DONE{epoch, ok, snapshot}), and a
  // job commits its line of epoch e only once every spawned job that runs
  // since before e committed its own (listed in file "spawned", in the
  // order they were spawned: a restart gives the program's n-th
  // MPI_Comm_spawn the n-th of them).
  struct AppChild {
    pid_t pid = -1;
    uint64_t from_epoch = 0;
    std::string ended;                           // why it is gone ("" while it runs)
    std::map<uint64_t, oob::TreeDoneMsg> lines;  // by epoch, as reported
  };
  // A request: each spawned job takes a line of its own too (TREE_CHECKPOINT).
  void app_ask_children(uint64_t request);
  // Commits the line at `safe_point` if its ranks and spawned jobs are done.
  void app_maybe_commit(uint64_t safe_point);
  void app_maybe_commit_all();
  void app_child_line(pid_t child, const oob::TreeDoneMsg& m);
  void app_child_ended(pid_t child, const std::string& why);
  // Before the commit of `line`: "spawned" (`spawned`) and "spawned_by" in its directory.
  Status app_list_tree(const AppLine& line, const std::vector<std::string>& spawned) const;
  // After it: the parent learns how the line ended.
  void app_report_line(uint64_t epoch, const std::string& snapshot, const std::string& reason);
  std::vector<AppChild> app_children_;
  void reply(const std::vector<Waiter>& waiters, const std::string& json, bool last);

  // ---- migration (cr=criu): checkpoint_coordinator_migrate.cpp
  struct Migration {
    uint64_t seq = 0;             // names the exchange's messages (no snapshot)
    std::string dir;              // the moving ranks' images: <dir>/rank.<r>
    std::vector<std::string> to;  // per rank: its target host; empty: it stays
    std::vector<bool> restored;   // a moving rank was brought back
    std::vector<double> ended;    // when a moving rank ended (monotonic s; 0: not yet)
    std::string what;             // "rank 1 to host h" for messages
    bool evacuate = false;
    // cr=app: the round waits for the safe point negotiated first; moving
    // ranks hand over their state and new processes take their place.
    bool app = false;
    // Where the time goes (monotonic s): GO sent, the last moving rank
    // ended (its image written), the time some restore was under way
    // (restores nest: one through a helper runs the event loop, where the
    // next may start), when the last one returned.
    double go_at = 0, last_end = 0, restore_secs = 0, restores_began = 0, restores_ended = 0;
    int restoring = 0;  // restores under way
  };
  // ranks/to for `migrate`; host (ranks empty) for `evacuate`.
  void migrate_request(Waiter w, const std::vector<int>& ranks, const std::string& to, const std::string& host);
  Status plan_migration(const std::vector<int>& ranks, const std::string& to, const std::string& host,
                        Migration* m) const;
  Status begin_migration();
  // cr=app: the negotiation's target reached; the round of the migration
  // runs there (or everything is given up, naming why).
  void app_migration_at(uint64_t safe_point);
  // A CR frame of the migration round under way (cr=app jobs route the
  // others to app_on_frame).
  bool migration_round_frame(const oob::Frame& f) const;
  bool moving(int rank) const;
  void restore_moving(int rank);
  void finish_migration();
  void drop_migration_images();
  uint64_t current_seq() const;
  std::optional<Migration> migration_;
  uint64_t migrations_ = 0;

  std::map<uint64_t, AppLine> lines_;  // by safe point
  uint64_t negotiation_ = 0;           // request number of the negotiation under way (0: none)
  uint64_t next_request_ = 0;
  std::vector<std::optional<uint64_t>> positions_;
  std::vector<Waiter> negotiation_waiters_;
  std::map<uint64_t, std::vector<Waiter>> target_waiters_;  // by safe point, until its line begins

  const JobSpec& spec_;
  EventLoop& loop_;
  Host& host_;
  ControlServer* control_ = nullptr;
  std::optional<snapshot::SnapshotStore> store_;
  std::optional<snapshot::PendingSnapshot> snap_;
  std::vector<RankState> states_;
  Phase phase_ = Phase::kIdle;
  std::vector<Waiter> waiters_;
  uint32_t flags_ = 0;
  uint64_t wait_timer_ = 0;
  uint64_t interval_timer_ = 0;
  double started_ = 0;        // monotonic seconds
  std::string failure_;       // first failure after GO
  bool terminating_ = false;  // a --term checkpoint reached GO: ranks may exit
  std::string last_snapshot_;
};

}  // namespace lz::launcher
