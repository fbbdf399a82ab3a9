// The `crcp` framework: checkpoint coordination protocols. Before the cr module
// saves a rank, the protocol brings every channel to this rank to a quiet,
// consistent state (bkmrk: exchange "sent" bookmarks, drain until "received"
// matches them, hold sends meanwhile — the LAM/MPI design).
//
//   LZ_RETURN_IF_ERROR(crcp.quiesce(coord));  // on the CR thread, lock held
//   ... transports' on_checkpoint, cr.checkpoint ...
//   LZ_RETURN_IF_ERROR(crcp.resume(coord, restarted));
//
// A protocol that can coordinate a job of several ranks advertises kCapDrain;
// crcp/none does not (it refuses to quiesce more than one rank). The
// conformance suite (tests/conformance/crcp) runs the contract below against
// a fake coordinator for every component, crcp/none as the reference.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lazarus/component.h"
#include "lazarus/status.h"

namespace lz::crcp {

// 2: capabilities (kCapDrain).
// 3: the application-level side: message_log() (kCapMessageLog).
// 4: LineProtocol::export_counters / import_counters (cr=app migration).
// 5: peers of other jobs (a spawn tree under cr=app): LineProtocol::epoch,
//    start_epoch, await_peers, expect_peer, early_count.
inline constexpr uint32_t kInterfaceVersion = 5;

enum Capability : uint64_t {
  kCapDrain = 1ull << 0,       // quiesce() drains a job of any size (else it refuses more than one rank)
  kCapMessageLog = 1ull << 1,  // message_log(): C3's protocol for application-level checkpoints
};
// "drain" for messages and `lazarus info`; "none" for 0.
std::string capability_names(uint64_t caps);

// Per peer and direction: complete messages and payload bytes.
struct Bookmark {
  uint64_t messages = 0;
  uint64_t bytes = 0;
  bool operator==(const Bookmark&) const = default;
};

// What a protocol needs from the runtime (p2p engine and OOB channel).
class Coordinator {
 public:
  virtual ~Coordinator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual Bookmark sent_to(int peer) const = 0;
  virtual Bookmark received_from(int peer) const = 0;
  // All-to-all exchange of one bookmark per peer over the OOB channel:
  // mine[p] goes to p; returns theirs[p] = what p sent for this rank.
  virtual StatusOr<std::vector<Bookmark>> exchange(const std::vector<Bookmark>& mine) = 0;
  // Makes receive progress (no new sends leave) for at most `budget`.
  virtual Status progress_receives(std::chrono::milliseconds budget) = 0;
  // While held, the engine queues new outgoing frames instead of sending them.
  virtual void hold_sends(bool hold) = 0;
};

// The bookmark drain (LAM/MPI's, crcp/bkmrk's quiesce; also the runtime's
// round at a cr=app migration's safe point): c.hold_sends(true), exchange
// c.sent_to(p) for every peer, then progress receives until every
// c.received_from(p) equals what p said it sent. Errors as
// Module::quiesce's: kTimeout after `timeout` naming every peer behind
// ("rank 2 (received 3 of 5 frames, ...)"), kInternal when a peer is ahead,
// the exchange's own error as is. Sends stay held on return.
Status drain_to_bookmarks(Coordinator& c, std::chrono::milliseconds timeout);

// ---- application-level checkpoints (kCapMessageLog) ----------------------------
//
// With an application-level back end every rank saves its registered state
// at the same LZ_Checkpoint call (its "line"), but not at the same time, so
// messages cross the lines. The p2p engine stamps every message with the
// sender's epoch (lines crossed) and its index among the messages of that
// epoch to that peer, piggybacked in the envelope, and tells the protocol
// what it sends and matches; the protocol decides what to log and replay.
//   stamp = (uint64_t{epoch} << 32) | index
inline uint32_t stamp_epoch(uint64_t stamp) { return static_cast<uint32_t>(stamp >> 32); }
inline uint32_t stamp_index(uint64_t stamp) { return static_cast<uint32_t>(stamp); }

// A message a receive matched (ranks: `world_src` in the job, `src` in the
// communicator of `context`).
struct Matched {
  int world_src = -1;
  uint32_t context = 0;
  int src = -1;
  int tag = 0;
  uint64_t stamp = 0;
};

// A logged message to deliver again after a restart, before anything new.
struct Replayed {
  Matched m;
  std::string payload;  // packed bytes
};

// The engine's view of the protocol (called on the thread inside MPI).
class MessageLog {
 public:
  virtual ~MessageLog() = default;
  // A message to world rank `dst` is about to leave: its stamp, and false
  // when it must not leave (it was delivered before a restart: suppressed).
  virtual bool stamp_send(int dst, uint64_t* stamp) = 0;
  // A receive matched `m`. True: the message is late; hand its delivered
  // bytes to log_payload() when the receive completes.
  virtual bool on_match(const Matched& m) = 0;
  virtual void log_payload(const Matched& m, const void* data, size_t bytes) = 0;
  // A receive from MPI_ANY_SOURCE on `context` is posted: its number for
  // wildcard_matched(), and in *forced the communicator rank it must match
  // (a replay after a restart) or -1.
  virtual uint64_t wildcard_posted(uint32_t context, int* forced) = 0;
  virtual void wildcard_matched(uint64_t number, int src) = 0;
  // After a restart: the logged messages to deliver before anything new
  // (taken once).
  virtual std::vector<Replayed> take_replay() = 0;
};

// The app service's view of the protocol at and after a line.
class LineProtocol {
 public:
  virtual ~LineProtocol() = default;
  // This rank reaches a line: a new epoch; returns, per world rank, the
  // messages sent to it before the line (cumulative).
  virtual std::vector<uint64_t> begin_line() = 0;
  // Per world rank: what it had sent to this rank at its own line (known
  // once every rank reached the line).
  virtual void expect(const std::vector<uint64_t>& sent_to_me) = 0;
  // Every late message of the current line logged (and every wildcard
  // receive of the window matched): the line's log can be saved.
  virtual bool line_complete() const = 0;
  // Called once when line_complete() becomes true (from inside the engine
  // or expect()); must not call back into MPI.
  virtual void set_on_complete(std::function<void()> f) = 0;
  // Writes the line's protocol state and log into the rank's directory
  // (a complete, fsynced file, its header naming the job, snapshot and
  // safe point); returns the bytes written.
  struct LineFile {
    std::string rank_dir, job_id;
    int rank = 0;
    uint64_t seq = 0, safe_point = 0;
  };
  virtual StatusOr<uint64_t> save_line(const LineFile& where) = 0;
  // A restart from `snapshot_dir` (written by `old_nranks` ranks) on
  // `nranks` ranks: the replay, the wildcard decisions and the sends to
  // suppress. On another rank count only a snapshot with nothing in flight
  // at its line can be used (else kFailedPrecondition naming the rank).
  virtual Status load_line(const std::string& snapshot_dir, int rank, int nranks, int old_nranks) = 0;
  // Migration of this rank to a new process (cr=app, `lazarus migrate`) at
  // a safe point where every rank stopped: the protocol's per-peer state
  // (epoch, send indexes and totals, matched counts, was-early registry,
  // pending suppressions) as an opaque, versioned blob. import_counters()
  // in the new process, after attach() with the same rank and size and
  // before any message, continues exactly where the old one stopped: the
  // next stamp to each peer is the one the old process would have given.
  // kUnavailable while a line is not complete (its log would be lost);
  // import: kInvalidArgument for a blob of another version or job size.
  virtual StatusOr<std::string> export_counters() const = 0;
  virtual Status import_counters(const std::string& blob) = 0;

  // ---- peers of other jobs (a spawn tree under cr=app) ----------------------------
  // The engine numbers a bridge's processes after the world (p2p/bridge.h):
  // MessageLog and LineProtocol take those numbers as peers too, counted and
  // logged like the world's. What such a peer sent this rank before its line
  // comes in-band (p2p/protocol.h kLineCount), not from the launcher.
  // The lines crossed so far (the epoch stamped on messages now).
  virtual uint32_t epoch() const = 0;
  // A spawned job's rank starts in the epoch of the job that spawned it, so
  // that the two number their lines alike (before any message).
  virtual void start_epoch(uint32_t epoch) = 0;
  // After begin_line(): the line is not complete before expect_peer() came
  // for each of `peers` (the bridges' live peers).
  virtual void await_peers(const std::vector<int>& peers) = 0;
  // What peer `peer` had sent this rank at its own line of this epoch.
  virtual void expect_peer(int peer, uint64_t sent_to_me) = 0;
  // The current line's early messages (sent after their sender's line,
  // received before this one) from peers numbered `first_peer` or more.
  virtual size_t early_count(int first_peer) const = 0;
};

class Module : public lz::Module {
 public:
  // On the CR thread with the entry lock held, before the cr module saves
  // this rank. Returns when no data is in flight to this rank: with
  // kCapDrain, sends are held (c.hold_sends(true)) before the "sent"
  // bookmarks are taken and exchanged, and receives progress until every
  // c.received_from(p) equals what p says it sent. Sends stay held on return,
  // whatever the result, until resume(). Bounded by the runtime's
  // cr_drain_timeout (seconds, read at query time when registered): kTimeout
  // names every peer whose bookmarks never matched ("rank 2") and no other.
  // Other errors: more received from a peer than it sent (names the peer),
  // the coordinator's exchange error as is (kAborted: the launcher gave up).
  // Without kCapDrain: Ok for a one-rank job, kUnavailable otherwise.
  virtual Status quiesce(Coordinator& c) = 0;
  // After the local checkpoint (continued or restarted), or after a failed
  // quiesce(): releases held sends (c.hold_sends(false)).
  virtual Status resume(Coordinator& c, bool restarted) = 0;
  // Optional (kCapMessageLog): the application-level protocol, once per
  // rank with the job size. Default: none.
  virtual MessageLog* message_log() { return nullptr; }
  virtual LineProtocol* line_protocol() { return nullptr; }
  virtual Status attach(int rank, int size) {
    (void)rank;
    (void)size;
    return Status::Ok();
  }
};

}  // namespace lz::crcp
