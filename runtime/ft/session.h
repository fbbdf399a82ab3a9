// Session: liblazarus-ft's checkpoint logic over a vendor MPI, the same
// contract as cr/app inside Lazarus (lazarus/checkpoint.h; runtime/cr/
// app_service.h is its counterpart there), without a Lazarus launcher.
//
//   MPI_Init:      Session::create(coordinator, argv)     collective
//   LZ_Register:   session->add(var)
//   LZ_Checkpoint: auto taken = session->safe_point(sent, received);  collective
//   MPI_Finalize:  session.reset()                         releases the store
//
// Parameters come from the framework's parameter code (Registry: the YAML
// files and LZ_MCA_* as for any Lazarus process), with cr/app's table:
// cr_app_every, cr_app_interval, cr_app_compress, cr_app_restart, and the
// store's snapshot_root and cr_keep. The rank files are written by the cr/app
// component itself (cr::Module::save_variables) into the snapshot store's
// layout (runtime/snapshot), so `lazarus snapshot show/verify` read them and
// a restart of either kind finds them.
//
// When: every rank counts its LZ_Checkpoint calls; a snapshot is due at every
// cr_app_every-th call, or at the first call after cr_app_interval seconds
// have passed on rank 0's clock (then every safe point carries one small sum
// so that all ranks agree: the price of a time trigger without a launcher).
// Every rank writes the snapshot of the same call count.
//
// Messages crossing the line (the safe-point contract leaves sends pending,
// so a message sent before the line may still be on its way): bookmarks.
// The wrappers count messages sent and receives posted; at a due safe point
// the ranks sum both counts (one collective, which is also the line: no rank
// sends past it before every rank reached it, so no message crosses it from
// after to before). Equal sums mean no message is in flight, and the line
// is taken; otherwise the snapshot is postponed to the next safe point,
// where the same test is made again. Why not a message log as crcp/c3 keeps:
// without the engine's matching queue a logged message cannot be replayed in
// MPI matching order over a vendor's library, and piggybacking an epoch on
// every message costs a field per send; counters cost an increment per call
// and nothing on the wire.
//
// Commit: rank 0 owns the store (SnapshotStore's one writer: its lock),
// begins <seq>.partial, every rank writes rank.<r>/rank.<r>.lzck and fsyncs
// it, the ranks sum their failures, and rank 0 commits (COMMITTED with every
// file's XXH3, the rename, the manifest) only when none failed; otherwise it
// aborts the partial snapshot. A failed snapshot is warned about, the job
// goes on.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "coordinator.h"
#include "lazarus/datatype/registered_variables.h"
#include "lazarus/frameworks/cr.h"
#include "lazarus/registry.h"
#include "lazarus/status.h"
#include "snapshot/snapshot_store.h"

namespace lz::ft {

class Session {
 public:
  // Collective. Reads the parameters, selects cr/app, finds the snapshot to
  // resume from (cr_app_restart) and, on rank 0, opens the store when a
  // trigger is set. Errors (every rank returns the same one): a bad
  // parameter, a store another process holds, cr_app_restart naming nothing
  // valid.
  static StatusOr<std::unique_ptr<Session>> create(Coordinator& coord, std::vector<std::string> argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Takes over one reference of v.type. A name registered twice:
  // kInvalidArgument (RegisteredVariables).
  Status add(cr::AppVariable v) { return vars_.add(std::move(v)); }
  // kNotFound for a name not registered.
  Status remove(const std::string& name) { return vars_.remove(name); }
  bool restarting() const { return restart_.has_value(); }
  // Loads every variable registered and not loaded yet (see checkpoint.h).
  // kInvalidArgument when not restarting.
  Status restore();
  // LZ_Checkpoint, collective when a snapshot may be due. `sent` and
  // `received` are this rank's totals of messages sent and receives posted
  // since MPI_Init. True when this call wrote this rank's part of a snapshot
  // that was committed.
  StatusOr<bool> safe_point(uint64_t sent, uint64_t received);

 private:
  explicit Session(Coordinator& coord) : coord_(coord) {}
  StatusOr<bool> take_line();

  Coordinator& coord_;
  std::unique_ptr<Registry> registry_;
  std::unique_ptr<lz::Module> module_;  // cr/app's
  cr::Module* cr_ = nullptr;
  int64_t every_ = 0;
  double interval_ = 0;
  std::chrono::steady_clock::time_point last_line_;
  std::string job_id_;
  std::optional<snapshot::SnapshotStore> store_;  // rank 0, when a trigger is set
  dt::RegisteredVariables vars_;

  uint64_t calls_ = 0;
  uint64_t resume_point_ = 0;
  bool postponed_ = false;
  uint64_t postponements_ = 0;
  std::optional<std::string> restart_;  // the snapshot directory to resume from
  cr::AppSnapshotInfo restart_info_;
  bool resumed_ = false;
};

}  // namespace lz::ft
