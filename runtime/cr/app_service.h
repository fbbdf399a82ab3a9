// AppService: the rank's side of application-level checkpoints, behind the
// LZ_* calls of lazarus/checkpoint.h. It keeps the registered variables,
// counts the LZ_Checkpoint safe points, decides which call takes a snapshot
// (every cr_app_every calls, or the call agreed by forward negotiation
// through the launcher), writes the rank's part through the cr module
// (cr::Module::save_variables) and finishes it when the coordination
// protocol (crcp/c3, crcp.h LineProtocol) has logged every late message; on
// a restart it loads the variables and the protocol's log.
//
//   MPI_Init:      AppService::create(runtime)          every rank, any cr back end
//   LZ_Register:   app_service()->add(var)
//   LZ_Checkpoint: auto taken = app_service()->safe_point();
//   CR thread:     app->handle(type, payload) for APP_* messages; app->finish_line()
//                  when wake_fd() is readable (both with the entry lock held)
//
// Under a back end that is not application-level (criu, none) the calls are
// valid and cheap: variables are kept, safe points counted, nothing written.
// Every method runs with the MPI entry lock held (an LZ_* call is an MPI
// entry; the CR thread takes the lock), so no other locking is needed; the
// protocol's completion callback only rings wake_fd().
//
// The oob/frame.h banner has the message sequence. A rank waits only at its
// own line (for APP_DIR) and, after reporting its count to a negotiation,
// at the next safe point until APP_TARGET says whether that one is the
// line: never for another rank to reach a safe point.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lazarus/datatype/registered_variables.h"
#include "lazarus/frameworks/cr.h"
#include "lazarus/frameworks/crcp.h"
#include "lazarus/status.h"
#include "oob/frame.h"
#include "oob/messages.h"

namespace lz::rt {

class Runtime;

class AppService {
 public:
  explicit AppService(Runtime& rt);
  ~AppService();
  AppService(const AppService&) = delete;
  AppService& operator=(const AppService&) = delete;

  // MPI_Init, before the CR thread starts: reads LZ_CR_APP_RESTART and the
  // snapshot it names, attaches the protocol to the engine.
  Status start();
  // The back end saves application variables (cr=app).
  bool active() const { return active_; }

  // State of the MPI layer kept beside the variables (the open MPI files,
  // mpi/io/file_record.h): written into the rank's directory of every
  // snapshot and hand-over, after the program's files are recorded.
  void set_state_saver(std::function<Status(const std::string& rank_dir)> save) { save_state_ = std::move(save); }
  // The snapshot being restarted from and its rank count (restarting() only).
  const std::string& restart_dir() const { return restart_dir_; }
  int restart_nranks() const { return restart_info_.nranks; }

  // The registered variables (RegisteredVariables: add takes the datatype
  // reference, and releases it on error).
  Status add(cr::AppVariable v) { return vars_.add(std::move(v)); }
  Status remove(const std::string& name) { return vars_.remove(name); }
  bool restarting() const { return restarting_; }
  // Loads every registered variable not loaded yet; the first call also
  // loads the protocol's log and replays it. kFailedPrecondition-like
  // kInvalidArgument when the process is not restarting. In a process that
  // took a moved rank's place (LZ_CR_APP_JOIN) the first call also ends the
  // migration's round for it: CHECKPOINT_DONE (restarted), or FAILED with
  // the reason; the launcher then drops the hand-over.
  Status restore();
  // MPI_Finalize, before the CR thread stops: a snapshot whose line this
  // rank crossed is finished here (its APP_EXPECT and the late messages the
  // line waits for come during the wait; the peers reach the same line), so
  // a rank that ends right after its last safe point does not drop it.
  // Bounded (30 s): a late message never received would
  // hold it for ever; then this rank's part fails, naming why.
  void finish_before_finalize();
  // The epoch a job this rank spawns starts in (crcp.h LineProtocol::start_epoch),
  // passed to it as LZ_CR_APP_EPOCH; nullopt when no line protocol runs.
  std::optional<uint32_t> spawn_epoch() const;
  // LZ_Checkpoint. True when this call wrote this rank's part of a snapshot.
  // Errors: a receive pending at the safe point (kInvalidArgument naming the
  // rule). A snapshot that could not be written is reported to the launcher
  // and warned about, not an error: the job goes on.
  StatusOr<bool> safe_point();

  // APP_* messages (entry lock held).
  static bool handles(uint16_t type);
  void handle(uint16_t type, const std::string& payload);

  // ---- migration (cr=app, oob/frame.h) --------------------------------------------
  // The CR thread got the round of a migration (kCrAtSafePoint): kept until
  // this rank reaches the negotiated safe point, where safe_point() runs it.
  void defer_round(const oob::CrRequestMsg& req);
  // CHECKPOINT_ABORT (payload as sent): a migration given up; a rank waiting
  // at its safe point for the round goes on.
  void drop_round(const std::string& payload);
  // A moving rank, after GO of the round, transports released: writes its
  // registered variables and its hand-over (cr/app_handover.h) into
  // `rank_dir` and ends the process (exit 0). Returns only on failure.
  Status hand_over(const std::string& rank_dir, uint64_t seq);
  // The runner of a migration's round (CrService::run_at_safe_point).
  void set_cr_runner(std::function<void(uint64_t, uint32_t, const std::string&)> run) { run_round_ = std::move(run); }
  // Readable when the protocol completed a line's log: call finish_line().
  int wake_fd() const { return wake_fd_; }
  void finish_line();

 private:
  Status take_line(uint64_t safe_point);
  // Reads control messages (progressing the engine) until `done` is true or
  // the channel fails; messages are handled as they come.
  // Handles APP_* messages and progresses until `done`; kTimeout after
  // `timeout_s` seconds when it is positive.
  Status wait_for(const char* what, bool (AppService::*done)() const, double timeout_s = 0);
  bool line_finishable() const { return !pending_ || line_ == nullptr || line_->line_complete(); }
  bool have_dir() const { return dir_for_ == line_point_; }
  bool have_target() const { return !negotiating_ || target_ != 0; }
  bool have_round() const { return round_.has_value() || !migrating_; }
  // At the migration's safe point: waits for the round and runs it.
  Status migration_point();
  // MPI_Init of a joining process: the hand-over of the rank it replaces.
  Status join();
  // Control messages met in wait_for that are not APP_*: a deferred round, an ABORT.
  void handle_other(uint16_t type, const std::string& payload);
  void send(oob::MsgType type, const std::string& payload);
  void fail_pending(const std::string& reason);
  // ---- peers of other jobs (a spawn tree; p2p/protocol.h kLineCount) ----
  // At a line: sends each live peer of another job what this rank had sent
  // it, and makes the line wait for theirs. The reason the line cannot be
  // used ("" when it can).
  std::string open_bridge_line(const std::vector<uint64_t>& sent);
  // A kLineCount frame from peer `index` (the engine's handler).
  void on_line_count(int index, uint64_t epoch, uint64_t sent);
  // "rank R of job J" for messages.
  std::string peer_name(int index) const;

  Runtime& rt_;
  bool active_ = false;
  std::function<Status(const std::string&)> save_state_;
  int64_t every_ = 0;
  dt::RegisteredVariables vars_;
  crcp::LineProtocol* line_ = nullptr;
  crcp::MessageLog* mlog_ = nullptr;
  int wake_fd_ = -1;

  uint64_t calls_ = 0;         // LZ_Checkpoint calls so far
  uint64_t resume_point_ = 0;  // after a restart: the call that wrote the snapshot (takes nothing)
  // Forward negotiation.
  bool negotiating_ = false;
  uint64_t reported_ = 0, target_ = 0, request_ = 0;
  // The line being written or completed.
  uint64_t line_point_ = 0;  // its safe point (0: none)
  uint64_t dir_for_ = 0;     // the safe point APP_DIR answered
  uint64_t seq_ = 0;
  std::string dir_;
  uint64_t bytes_ = 0;
  // When take_line() began and when its variables were saved (steady clock,
  // ns): the tool interface's checkpoint and drain times (p2p/counters.h).
  uint64_t line_began_ns_ = 0, line_saved_ns_ = 0;
  bool pending_ = false;     // written, waiting for the protocol's log
  // Peers of other jobs: counts of lines this rank has not reached yet (by
  // peer, epoch), the peers that take no more lines, and the current line's
  // epoch, the peers it waits for, and why it cannot be used.
  std::map<int, std::map<uint64_t, uint64_t>> peer_counts_;
  std::set<int> peers_ended_;
  uint64_t line_epoch_ = 0;
  std::set<int> awaited_;
  std::string line_refusal_;
  // Migration: the negotiated safe point is a migration's (APP_TARGET "migrate").
  bool migrating_ = false;
  std::optional<oob::CrRequestMsg> round_;
  std::function<void(uint64_t, uint32_t, const std::string&)> run_round_;
  uint64_t joined_ = 0;  // the migration this process joined in (DONE not sent yet); 0: none
  // Restart.
  bool restarting_ = false;
  bool protocol_loaded_ = false;
  std::string restart_dir_;
  cr::AppSnapshotInfo restart_info_;
};

// The process's AppService between MPI_Init and MPI_Finalize (null outside).
AppService* app_service();
void set_app_service(std::unique_ptr<AppService> s);

}  // namespace lz::rt
