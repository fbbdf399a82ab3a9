// CrService: the checkpoint/restart service thread of an MPI rank (LAM/MPI's
// CR thread), started at the end of MPI_Init when checkpointing is on.
//
//   CrService svc(runtime);
//   LZ_RETURN_IF_ERROR(svc.start());     // MPI_Init, entry lock state set up
//   ...
//   svc.stop_for_finalize();             // MPI_Finalize, inside MPI
//
// The thread polls the launcher's control fd (it changes across
// disconnect/reconnect) and a stop eventfd, with a bounded timeout. When a
// control message is readable it takes the MPI entry lock (cr/entry_lock.h:
// pending flag, membarrier, waits until the application thread is outside MPI
// or parked in an interrupted wait), reads it, and runs the coordinated
// checkpoint of oob/frame.h:
//
//   REQUEST -> crcp quiesce (hold sends, READY{sent}, DRAIN{expected},
//   drain receives) -> DRAINED -> GO -> transports' on_checkpoint ->
//   DISCONNECT -> cr checkpoint (pipe read end as restart_fd) ->
//   continued: reconnect, on_continue | restarted: restart info from the
//   pipe, reconnect to the new launcher as the same rank, on_restart ->
//   DONE{outcome, image bytes} | FAILED{reason} -> modex fence, transports
//   connect -> crcp resume (held sends leave) -> lock released.
//
// Failures before GO send FAILED and resume without dumping; ABORT resumes.
// After GO a failed dump still reconnects, re-publishes and fences.
// MPI_Finalize sends CR_FINALIZING under the entry lock (the application
// thread is inside MPI and not parked, so this thread is not using the
// channel), then stops and joins this thread.
//
// A process connected to other jobs (p2p/bridge.h) checkpoints only in a
// round of its whole spawn tree (kCrSpawnTree, oob/tree_messages.h): after
// the crcp drain its bridges drain in-band (cr/bridge_drain.h), at GO their
// transports close with the world's, and after the world's fence they
// re-open through the launchers (Engine::reconnect_bridges).
#pragma once

#include <atomic>
#include <string>
#include <thread>

#include "lazarus/status.h"
#include "oob/frame.h"

namespace lz::rt {

class Runtime;

class CrService {
 public:
  explicit CrService(Runtime& rt);
  ~CrService();
  CrService(const CrService&) = delete;
  CrService& operator=(const CrService&) = delete;

  // From MPI_Init with g_mpi_state kRunningCr and the calling thread counted
  // inside MPI: interrupt fd and handler, CR_READY, the thread.
  Status start();
  // From MPI_Finalize, inside MPI: CR_FINALIZING, then stop and join.
  void stop_for_finalize();
  // The round of a cr=app migration (kCrAtSafePoint), run by the
  // application thread at the negotiated safe point (AppService), with the
  // entry lock held as a checkpoint's: see checkpoint() below.
  void run_at_safe_point(uint64_t seq, uint32_t flags, const std::string& dir) { checkpoint(seq, flags, dir); }

 private:
  class Coordinator;
  void run();
  void handle(uint16_t type, const std::string& payload);
  // One round of oob/frame.h. Under kCrAtSafePoint every rank is at the same
  // safe point, sending nothing new: the drain waits for the frames already
  // sent, then pulls in every unexpected rendezvous payload and lets every
  // transfer end (quiesce_at_safe_point), so that a moving rank's process
  // can end without a message needing it; a kCrHandover rank then writes
  // its state and ends (AppService::hand_over) instead of dumping an image.
  void checkpoint(uint64_t seq, uint32_t flags, const std::string& dir);
  Status quiesce_at_safe_point(Coordinator& coord, uint32_t flags);
  // A checkpoint of the spawn tree (kCrSpawnTree), after the crcp drain:
  // holds sends and drains the bridges in-band (cr/bridge_drain.h), bounded
  // by drain_timeout_, watching the control channel for this round's ABORT.
  Status drain_bridges(uint64_t seq, Coordinator& coord);
  // Reads the queued control messages: kAborted (and coord.aborted) on
  // this round's ABORT; others are logged and dropped, as await() does.
  Status abort_requested(uint64_t seq, Coordinator& coord);
  // Waits (progressing the engine, sends held) for one of two message types
  // for `seq`; other messages are logged and dropped.
  Status await(uint64_t seq, oob::MsgType a, oob::MsgType b, uint16_t* type, std::string* payload);
  void send(oob::MsgType type, const std::string& payload);
  void send_failed(uint64_t seq, const std::string& reason);

  Runtime& rt_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  int stop_fd_ = -1;
  int control_fd_ = -1;  // the bootstrap's, re-read under the lock after reconnects
  double drain_timeout_ = 60;
  double hook_timeout_ = 30;
};

}  // namespace lz::rt
