// The `transport` framework: point-to-point byte movers (self, shm, tcp, ...).
//
// A transport moves *frames* — byte strings with preserved boundaries — between
// processes of a job, reliably and in order per (sender, receiver) pair. It
// knows nothing of MPI: the p2p engine (runtime/p2p) puts its envelope in the
// first bytes of each frame, does matching, protocols (eager, rendezvous) and
// bookmarks, and chooses one transport per peer (reachability, then the
// attributes each module declares for it: see Attributes).
//
// Life cycle, driven by the p2p engine in each rank:
//
//   auto& t = static_cast<lz::transport::Module&>(*selected.module);
//   LZ_RETURN_IF_ERROR(t.init(host));        // open resources, host.modex().put(address)
//   LZ_RETURN_IF_ERROR(host.modex().fence()); // (the engine fences once for all modules)
//   LZ_RETURN_IF_ERROR(t.connect());         // read peers' addresses; may connect lazily
//   if (t.reaches(peer)) ... t.send(peer, iov, n) ... t.progress() ...
//   t.finalize();
//
// Checkpoint/restart (capability kCapCheckpoint), on the CR thread, with the
// MPI entry lock held and the channels drained by the crcp module (no frame in
// flight to or from this process):
//   on_checkpoint()  releases what a core image cannot carry (sockets, shared
//                    mappings with other processes);
//   on_continue()    re-creates it in the same process set (same peers, same
//                    pids) and publishes fresh addresses (modex put);
//   on_restart()     re-creates it in a restored process set (new pids, maybe
//                    new hosts, a new launcher) and publishes fresh addresses.
// After either, the engine fences the modex and calls connect() again, which
// must re-read every peer's address (nothing cached from before is valid).
// Nothing is in flight across the hooks: frames queued before on_checkpoint
// were delivered (the crcp drain), and no frame is sent until connect().
// Threading: every method is called by one thread at a time (the engine
// serializes), never concurrently on the same module.
//
// Re-entry: Host::deliver, place, deliver_placed, peer_failed and Completion
// callbacks run inside progress() (or, for a completion, inside the call that
// started the operation when it finished at once). From there the engine may
// call send(), send_zcopy(), get_async(), register_memory(),
// deregister_memory() and drop_placement() on any module, this one included;
// never progress(), connect(), finalize() or a CR hook. A module therefore
// keeps its own state consistent before it calls out (a frame is consumed,
// its buffer re-posted or copied, before deliver), and a send() made from
// inside deliver() is ordered after every frame already sent.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lazarus/component.h"
#include "lazarus/modex.h"
#include "lazarus/status.h"

namespace lz::transport {

// 2: unsent_bytes().
// 3: attributes(), register_memory()/deregister_memory(), get_async() with a
//    packed remote key (replaces the synchronous get()), send_zcopy(), the
//    re-entry rule above.
// 4: placement (Host::placement_head()/place()/deliver_placed(),
//    Module::drop_placement()).
// 5: Attributes::zcopy_threshold (the engine sends large eager messages with
//    send_zcopy()); the engine places eager frames too.
// 6: progress_waiting() (a blocking wait's turn).
// 7: put_async() (kCapPut), for one-sided operations that never involve the
//    target's agent (runtime/osc).
inline constexpr uint32_t kInterfaceVersion = 7;

// Capability bits, read by selection, `lazarus info` and the conformance suite.
enum Capability : uint64_t {
  kCapSelf = 1ull << 0,        // reaches only its own process; the engine calls its progress() only
                               // after a send() to self (it has nothing else to deliver)
  kCapLocalHost = 1ull << 1,   // reaches only processes on the same host
  kCapGet = 1ull << 2,         // get_async(): single-copy read from a peer's memory
  kCapWaitFd = 1ull << 3,      // wait_fd(): a pollable fd for blocking waits
  kCapCheckpoint = 1ull << 4,  // on_checkpoint/on_continue/on_restart implemented
  kCapPut = 1ull << 5,         // put_async(): single-copy write into a peer's registered memory
};
// "self,local-host,get,..." for display.
std::string capability_names(uint64_t caps);

// Where a peer lives; the engine fills one per rank from the modex.
struct PeerInfo {
  int rank = -1;
  std::string host;     // host name as the launcher knows it
  uint64_t node_id = 0;  // equal for ranks sharing a host (and its memory)

  // Same node and the same host name: what a transport that chooses
  // loopback or shared memory by host relies on.
  bool same_host(const PeerInfo& other) const { return node_id == other.node_id && host == other.host; }
};

// What the engine reads of a module for one peer instead of guessing (valid
// after connect()). Selection: of the modules that reach a peer, the one with
// the highest exclusivity carries its frames; ties go to the lower latency,
// then to the earlier module in priority order. Protocol: messages up to
// eager_limit bytes go eagerly (unless p2p_eager_limit overrides it); larger
// ones by rendezvous, read with get_async() when the module has kCapGet and
// the message has at least get_threshold bytes, streamed in frames otherwise.
// An eager message of at least zcopy_threshold bytes (0: none) goes with
// send_zcopy(), from the sender's buffer: for a module that runs a
// rendezvous of its own under large frames (UCX), so that a message pays
// for one rendezvous, not two, and that places the frame (Host::place).
// The estimates are nominal figures for this path (measured, documented in
// the component), shown by the engine's debug log and `lazarus info`.
struct Attributes {
  size_t eager_limit = 32 * 1024;  // message bytes (p2p header excluded)
  size_t get_threshold = 0;        // rendezvous bytes from which get_async() is used
  size_t zcopy_threshold = 0;      // eager bytes from which send_zcopy() is used (0: never)
  uint32_t exclusivity = 0;        // self 100, shm 50, ucx/ofi 30, tcp 10
  double latency_us = 0;           // one-way latency of a small frame
  double bandwidth_mbs = 0;        // large transfers, MB/s
  // put_async()/get_async() to this peer complete with nothing of the
  // peer's process (CMA, hardware RDMA), not through its progress (an
  // active-message emulation): what makes them worth more than a message
  // to a target that computes outside MPI (osc_native_rma auto).
  bool rma_passive = false;
};

// A completion callback: fn(arg, status) runs exactly once, from progress()
// or before the call that started the operation returned Ok (see re-entry).
struct Completion {
  void (*fn)(void* arg, const Status& result) = nullptr;
  void* arg = nullptr;
  void operator()(const Status& s) const {
    if (fn != nullptr) fn(arg, s);
  }
};

// A local buffer registered for peers' get_async() (and put_async()). `key` is opaque bytes the
// engine carries to the peer (in the rendezvous request) and hands to the
// peer's get_async(); at most kMaxRemoteKey bytes. `handle` is the module's.
inline constexpr size_t kMaxRemoteKey = 512;
struct MemoryRegion {
  uint64_t handle = 0;
  std::string key;
};

// What a transport needs from the engine.
class Host {
 public:
  virtual ~Host() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual const PeerInfo& peer(int rank) const = 0;
  virtual Modex& modex() = 0;
  // The per-job secret every connection must prove knowledge of (see
  // lazarus/auth.h); a transport that accepts connections refuses peers that
  // cannot answer its challenge.
  virtual const std::string& job_secret() const = 0;
  // Called from progress() once per complete incoming frame, in the order the
  // sender sent them. `data` is valid only during the call.
  virtual void deliver(int src, const void* data, size_t len) = 0;
  // Called from progress() when a peer's connection is lost for good (peer
  // exited or died); the engine reports it and fails the requests involved.
  virtual void peer_failed(int rank, const Status& why) = 0;

  // Placement, for a module that receives a large frame in pieces (tcp):
  // once the first placement_head() bytes of a frame of `len` bytes from
  // `src` are in, it may ask place() where the rest belongs, and so read it
  // from the wire straight there instead of into a buffer of its own and
  // then deliver() (which copies it again). A null answer: deliver() as
  // usual. Otherwise the module writes the frame's remaining len -
  // placement_head() bytes at the address returned, in order, and then calls
  // deliver_placed(src, head, len) instead of deliver(), with the same head.
  // Until then the buffer is lent to the module: before the host takes it
  // back (the peer failed) it calls Module::drop_placement(src), after which
  // the module writes nothing there. Frames from `src` stay in order: the
  // module delivers nothing else from it while a placement is under way.
  // placement_head() 0 (the default): the host never places.
  virtual size_t placement_head() const { return 0; }
  virtual void* place(int src, const void* head, size_t len) {
    (void)src, (void)head, (void)len;
    return nullptr;
  }
  virtual void deliver_placed(int src, const void* head, size_t len) { (void)src, (void)head, (void)len; }
};

class Module : public lz::Module {
 public:
  // Acquires resources and publishes this rank's address (host.modex().put).
  // `host` outlives the module.
  virtual Status init(Host& host) = 0;
  // After the modex fence: reads peers' addresses. May defer connecting to
  // the first send.
  virtual Status connect() = 0;
  // True if this module can carry frames to `peer` (valid after connect()).
  virtual bool reaches(int peer) const = 0;
  // Largest frame send() accepts, in bytes (header and payload together).
  virtual size_t max_frame() const = 0;
  // How to use this module towards `peer` (see Attributes). The default suits
  // a plain byte mover: 32 KiB eager, exclusivity 0, no estimates.
  virtual Attributes attributes(int peer) const {
    (void)peer;
    return Attributes{};
  }
  // Sends one frame made of the concatenated iovecs. Non-blocking: on Ok the
  // bytes are copied or on the wire and the caller may reuse its buffers;
  // kWouldBlock means no room now (retry after progress()); other errors are
  // final for this peer. A peer that died (its process gone, its connection
  // broken by its end) is Code::kAborted, here and in Host::peer_failed: the
  // engine reports it as MPI_ERR_PROC_FAILED, which --recover auto needs to
  // tell a dead peer from a broken rank (conformance: Peer*MidStream,
  // PeerKilledBeforeFirstFrame).
  virtual Status send(int peer, const struct iovec* iov, int iovcnt) = 0;
  // Delivers incoming frames through Host::deliver and advances outgoing ones.
  // Returns how many events (frames in or out) happened; never blocks.
  virtual int progress() = 0;
  // A turn of a blocking wait in which this module is the only one the
  // engine progresses (the self transport aside): as progress(), but a turn
  // that finds nothing may look again, up to `polls` more times, before it
  // returns 0, and it returns once an event happened. For a module whose
  // look is cheaper than the engine's turn around it (a library's progress
  // call): the engine goes round its own loop less between looks. Never
  // blocks. The default is progress().
  virtual int progress_waiting(int polls) {
    (void)polls;
    return progress();
  }
  // Releases everything; no call but the destructor follows.
  virtual Status finalize() = 0;

  // Bytes of frames to `peer` that send() accepted but that have not left
  // this process yet: queued behind a full socket, or behind a connection
  // whose handshake is still under way (such a frame needs this process to
  // keep progressing, or it is lost when the process exits). The engine
  // progresses until this is 0 for every live peer before MPI_Finalize's
  // barrier. 0 for transports whose send() puts the frame where the peer
  // reads it (self, shm). Cheap: called once per peer per progress turn
  // while the engine flushes.
  virtual size_t unsent_bytes(int peer) const {
    (void)peer;
    return 0;
  }

  // Optional: a file descriptor that becomes readable when progress() has work
  // (kCapWaitFd); -1 if none. A blocking wait polls it after a bounded spin.
  virtual int wait_fd() const { return -1; }
  // Called right before a blocking wait sleeps in poll() on wait_fd(): arms
  // the wake-up (for shm, a "sleeping" flag that senders check after writing
  // and then ring a doorbell). Returns false if frames are already pending, in
  // which case the caller must progress instead of sleeping. The transport
  // disarms itself in its next progress().
  virtual bool arm_wait() { return true; }
  // A send whose buffers the caller keeps unchanged until `done` runs
  // (zero-copy where the module can; Ok then means accepted, in order with
  // send()). Errors as send(); on an error `done` never runs. The default
  // sends a copy with send() and completes at once.
  virtual Status send_zcopy(int peer, const struct iovec* iov, int iovcnt, Completion done) {
    Status s = send(peer, iov, iovcnt);
    if (s.ok()) done(s);
    return s;
  }

  // Single copy (kCapGet). register_memory() prepares [addr, addr+len) of
  // this process for peers' reads (and, kCapPut, writes) and fills `out`; the engine deregisters it
  // once the peer reported its read done (or failed). The default needs no
  // registration: an empty key.
  virtual Status register_memory(const void* addr, size_t len, MemoryRegion* out) {
    (void)addr, (void)len;
    *out = MemoryRegion{};
    return Status::Ok();
  }
  virtual void deregister_memory(const MemoryRegion& region) { (void)region; }

  // The host takes back the buffer of a placement from `src` under way (see
  // Host::place): the module writes nothing more there and discards the rest
  // of that frame. A module that never asks place() has nothing to do.
  virtual void drop_placement(int src) { (void)src; }
  // Copies `len` bytes at address `remote` of `peer`'s memory, inside a region
  // the peer registered with `key`, into `local`; `done` runs when the bytes
  // are there (or the read failed). An error return means the read was not
  // started (the engine then streams the message instead).
  virtual Status get_async(int peer, void* local, size_t len, uint64_t remote, std::string_view key,
                           Completion done) {
    (void)peer, (void)local, (void)len, (void)remote, (void)key, (void)done;
    return Unimplemented("single-copy get is not provided by this transport");
  }
  // The other way (kCapPut): writes `len` bytes from `local` at address
  // `remote` of `peer`'s memory, inside a region the peer registered with
  // `key`. `done` runs once the bytes are in the peer's memory, where the
  // peer's loads see them (remote completion: what a one-sided flush
  // promises), or the write failed; `local` is the caller's until then. It
  // needs nothing of the peer's program (its MPI calls); a module may need
  // the peer's process to progress (UCX's tcp). An error return means the
  // write was not started (the caller then sends the bytes as a message).
  virtual Status put_async(int peer, const void* local, size_t len, uint64_t remote, std::string_view key,
                           Completion done) {
    (void)peer, (void)local, (void)len, (void)remote, (void)key, (void)done;
    return Unimplemented("single-copy put is not provided by this transport");
  }

  // Checkpoint/restart hooks (kCapCheckpoint); see the banner for when.
  virtual Status on_checkpoint() { return Unimplemented("transport has no checkpoint hook"); }
  virtual Status on_continue() { return Unimplemented("transport has no continue hook"); }
  virtual Status on_restart() { return Unimplemented("transport has no restart hook"); }
};

}  // namespace lz::transport
