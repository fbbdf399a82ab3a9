// Bootstrap: what a rank learns from its launcher, and the rank's side of the
// out-of-band (OOB) channel to it. Created first thing in MPI_Init.
//
// The launcher (runtime/launcher, `lazarus run`) starts each rank with:
//   LZ_JOB_ID, LZ_RANK, LZ_SIZE, LZ_LOCAL_RANK, LZ_LOCAL_SIZE, LZ_NODE_ID,
//   LZ_HOSTNAME, LZ_OOB_ADDR (host:port of the launcher's OOB listener),
//   LZ_SECRET_FD (an inherited pipe from which the rank reads the job secret
//   once; the secret is never on a command line or in the environment),
//   plus the job's parameters as LZ_MCA_<name>=<value>.
// Without LZ_OOB_ADDR the process is a singleton job (size 1, no launcher):
// `./prog` works like `mpirun -np 1 ./prog`.
//
//   LZ_ASSIGN_OR_RETURN(auto boot, lz::rt::Bootstrap::from_environment());
//   boot->put("transport.tcp.addr", addr);
//   LZ_RETURN_IF_ERROR(boot->fence());
//   auto peer_addr = boot->get(peer, "transport.tcp.addr");
//
// Threading: put/fence/get/barrier/abort/finalize/spawn are called by one
// thread at a time (the runtime serializes them).
//
// Checkpoint/restart seams: a core-image checkpointer cannot save an
// inet socket, so the CR thread calls disconnect() before the dump and
// reconnect() after it (continue or restart). While disconnected the launcher
// knows the rank is alive and expects it back; put() still works, fence(),
// barrier() and the other calls return kUnavailable. Control messages the
// launcher sends (checkpoint requests, oob/frame.h MsgType 64..79) are read
// with next_control() when control_fd() polls readable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <optional>
#include <string_view>
#include <vector>

#include "lazarus/modex.h"
#include "lazarus/status.h"
#include "oob/spawn_messages.h"
#include "oob/tree_messages.h"

namespace lz::rt {

struct JobInfo {
  std::string job_id;
  int rank = 0;
  int size = 1;
  int local_rank = 0;   // index among the ranks on this host
  int local_size = 1;   // ranks on this host
  std::string hostname;
  uint64_t node_id = 0;  // equal for ranks on the same host
  std::vector<uint64_t> node_of_rank;        // size entries, known after from_environment()
  std::vector<std::string> hostname_of_rank;  // size entries

  // node_id, local_rank and local_size from rank and node_of_rank (a
  // process manager that gives only every rank's node: PMI-2, PMIx).
  void place_on_nodes();
  // job_id = `prefix` + the process manager's `id` with every character but
  // letters and digits as '-' (it names files: shm segments), exported as
  // LZ_JOB_ID, which those names read, unless that is already set.
  void name_job(std::string_view prefix, std::string_view id);
};

// The host name in environment variable `var` (LZ_HOSTNAME from lazarus
// run, SLURMD_NODENAME from srun) when set, else the kernel's.
std::string host_name_from(const char* var);

// A message from the launcher that is not an answer to a call of this rank
// (type: oob::MsgType, e.g. kCheckpointRequest; payload: its encoding).
struct ControlMessage {
  uint16_t type = 0;
  std::string payload;
};

class Bootstrap : public Modex {
 public:
  // Reads the environment above, connects and authenticates to the launcher
  // (bounded wait; kTimeout/kUnavailable name the address), or makes a
  // singleton job when LZ_OOB_ADDR is unset.
  static StatusOr<std::unique_ptr<Bootstrap>> from_environment();

  virtual const JobInfo& job() const = 0;
  // The per-job secret (binary, lazarus/auth.h), for transport authentication.
  virtual const std::string& secret() const = 0;

  // Modex: put/fence/get (see lazarus/modex.h).

  // Blocks until every rank called barrier() (through the launcher).
  virtual Status barrier() = 0;
  // Tells the launcher this rank aborts the job with `code` and a reason; the
  // launcher stops every rank and exits with `code`. Returns after sending.
  virtual Status abort(int code, std::string_view reason) = 0;
  // Tells the launcher this rank finalized cleanly; closes the channel.
  virtual Status finalize() = 0;
  // A pollable fd that becomes readable when the launcher sends a control
  // message (checkpoint requests); -1 for a singleton.
  // The fd changes across disconnect()/reconnect(): poll the current one.
  virtual int control_fd() const = 0;

  // The next pending control message, without blocking: nullopt when there is
  // none. kAborted when the launcher ended the job or closed the channel.
  // Messages that arrive while fence()/barrier() wait are queued for it.
  virtual StatusOr<std::optional<ControlMessage>> next_control() { return std::optional<ControlMessage>(); }
  // Control messages already read from the socket and queued (by fence() or
  // barrier() waiting for their answer): control_fd() does not poll readable
  // for them. Safe to read from any thread (a relaxed counter).
  virtual size_t queued_control() const { return 0; }
  // Sends a control message to the launcher (CR protocol, oob/frame.h types
  // 64..79). kUnavailable while disconnected.
  virtual Status send_control(uint16_t type, std::string_view payload) {
    (void)type, (void)payload;
    return Unavailable("no launcher to send control messages to (singleton job)");
  }

  // Closes the OOB connection on purpose (the launcher acknowledges first, so
  // the closed socket is not taken for a dead rank). A no-op for a singleton.
  virtual Status disconnect() { return Status::Ok(); }
  // Connects again to the same launcher, re-authenticates with the job secret
  // and re-identifies as the same rank (oob::kAuthReconnect, bounded by
  // oob_connect_timeout); the launcher answers with a WELCOME whose layout
  // replaces job().node_of_rank/hostname_of_rank.
  virtual Status reconnect() { return Status::Ok(); }
  // After a restart: connects to a NEW launcher (`address` "host:port") of a
  // new job (`job_id`, binary `secret`) as the same rank. The fence and
  // barrier sequences start afresh (the first fence is 1), since the new
  // launcher never saw the old ones; modex entries learnt before stay until
  // a fence replaces them. When `job_id` is this rank's own job (a migration
  // restored it into the running job) the sequences go on where they were.
  virtual Status reconnect_to(const std::string& address, const std::string& job_id, const std::string& secret) {
    (void)address, (void)job_id, (void)secret;
    return Unimplemented("this bootstrap cannot move to another launcher");
  }
  virtual bool connected() const { return false; }
  // Started by a process manager (PMI-2, PMIx: srun, mpiexec) rather than by
  // `lazarus run`: with checkpointing on, the rank attaches to a coordinator
  // of its own (bootstrap/coordinator_link.h).
  virtual bool from_process_manager() const { return false; }

  // Asks the launcher to start a new job (MPI_Comm_spawn and
  // MPI_Comm_spawn_multiple: one app each, oob/spawn_messages.h) and waits
  // for its answer: Ok once the new job's launcher runs (its ranks start
  // and connect on their own: the caller learns of them through req.env's
  // entries, not here), kInvalidArgument with the launcher's reason (naming
  // the bad command, host or value) when it refused. req.seq is the
  // bootstrap's to number. The launcher keeps the new job beside this one:
  // this job fails when the new one fails, and does not end before it.
  // Control messages met while waiting are queued (next_control()).
  // kUnavailable without a launcher (a singleton) or while disconnected.
  virtual Status spawn(const oob::SpawnRequestMsg& req) {
    (void)req;
    return Unavailable("MPI_Comm_spawn needs a launcher: start the program with `lazarus run -np 1 ...`");
  }

  // Re-opens bridges to other jobs after a checkpoint of the spawn tree
  // (oob/tree_messages.h, conversation 2): sends every BRIDGE_FENCE of
  // `fences` (one per bridge, distinct keys) to the launcher, then waits for
  // a BRIDGE_TABLE of each key, in whatever order they come, for at most
  // `timeout_s` seconds in all. All sent before any is awaited: a process's
  // bridges need not be re-opened in the same order at every member.
  // Returns the tables in the order of `fences`, as the launcher sent them
  // (a table's `error` is the caller's to read). A table of another key is
  // dropped (logged); control messages met are queued (next_control()).
  // kTimeout naming the keys still unanswered (the channel is then given
  // up: a late answer would break its framing); kUnavailable without a
  // launcher or while disconnected; kAborted when the launcher ended the job.
  // The engine is not progressed meanwhile.
  virtual StatusOr<std::vector<oob::BridgeTableMsg>> bridge_fence(const std::vector<oob::BridgeFenceMsg>& fences,
                                                                  double timeout_s) {
    (void)fences, (void)timeout_s;
    return Unavailable("re-opening bridges to other jobs needs a launcher");
  }

  // How fence() and barrier() wait for the launcher's answer: called with the
  // OOB socket before each read of it, it returns once the socket is readable
  // (or broken: the read then says how). Unset, the read just blocks. The
  // engine installs one that keeps its transports progressing, so that no
  // peer waits on this rank (to finish a connection handshake, to take its
  // frames) while this rank waits on the launcher, which waits on that peer.
  // Called on the thread that called fence() or barrier().
  using ReplyWait = std::function<void(int fd)>;
  void set_reply_wait(ReplyWait wait) { reply_wait_ = std::move(wait); }

 protected:
  ReplyWait reply_wait_;
};

}  // namespace lz::rt
