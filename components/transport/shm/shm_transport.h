// transport/shm: frames between ranks of one host through shared memory.
//
// Every rank creates one receive segment holding one single-producer ring per
// rank of its host (shm_layout.h, shm_ring.h) and a doorbell FIFO
// (shm_doorbell.h), and publishes their names in the modex (shm_address.h).
// connect() maps the segments of the other local ranks; send() copies a frame
// into our ring in the receiver's segment; progress() hands frames to the
// engine straight from our own rings (no extra copy) and then releases the
// space. get() reads a peer's memory with process_vm_readv (one copy).
//
// Blocking waits: arm_wait() sets the "sleeping" flag of our segment and
// re-checks the rings; a sender that finds the flag set after publishing
// clears it and writes one byte to our doorbell. Each side needs a full
// fence between its store and its load, or a wake-up can be lost: the
// receiver's is a seq_cst store plus, where the kernel allows it, a
// membarrier that stands in for the sender's (shm_membarrier.h), so a send
// is a plain store then a load; without membarrier every send fences. A sender that finds a ring full raises the ring's
// producer_waiting flag; the receiver, after freeing space, clears it and
// rings the sender's doorbell, so a rank waiting for room sleeps too.
// wait_fd() is an epoll set of the doorbell and a pidfd per peer, so a
// sleeping rank also wakes when a peer dies; a busy rank checks its peers
// every transport_shm_liveness_ms. A peer that exits after finalize() (its
// segment says so) is not a failure; any other exit is reported once through
// Host::peer_failed(), after the frames it sent have been delivered.
//
// Checkpoint/restart (kCapCheckpoint). Everything shared with other processes
// (both segments, the doorbell FIFOs, peers' pidfds) is released by
// on_checkpoint() and re-created by on_continue()/on_restart(); module state
// (topology, flags, counters) is process memory and survives in the image.
//   on_checkpoint(): refuses (kWouldBlock, nothing released) while a frame
//     from a peer is still unconsumed in our rings; waits up to
//     transport_shm_checkpoint_wait_ms for peers to consume the frames we
//     put in theirs (kTimeout if they do not); then marks our segment
//     kOwnerCheckpointed, unmaps every segment, closes the FIFOs and pidfds,
//     and removes our files. The epoll set stays open (now empty), so
//     wait_fd() keeps its number across the hooks.
//   on_continue(): a new segment and doorbell (next generation in the name),
//     published in the modex. on_restart(): the same in a restored process
//     set: the topology is re-read from the Host (ranks may have moved),
//     gone/reported flags are reset, the Yama ptracer permission, the
//     process_vm_readv probe and the membarrier registration are redone
//     (new pids; CRIU may not restore the registration).
//   The engine then fences the modex and calls connect(), which maps every
//   peer's new segment, opens its new doorbell and pidfd.
// Rings restart empty in the new segments; no sequence state lives in them
// (per-pair order is the ring's FIFO order), so frames sent after connect()
// arrive after every frame sent before the checkpoint.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <vector>

#include "lazarus/frameworks/transport.h"
#include "lazarus/unique_fd.h"
#include "shm_config.h"
#include "shm_doorbell.h"
#include "shm_peer.h"
#include "shm_segment.h"

namespace lz::transport::shm {

class ShmTransport final : public lz::transport::Module {
 public:
  explicit ShmTransport(const ShmConfig& config);
  ~ShmTransport() override;

  uint64_t capabilities() const override;
  // The single-copy state, for `lazarus info` (QueryContext::details).
  static std::string single_copy_details(const ShmConfig& config);
  Status init(Host& host) override;
  Status on_checkpoint() override;
  Status on_continue() override;
  Status on_restart() override;
  Status connect() override;
  bool reaches(int peer) const override;
  size_t max_frame() const override { return cfg_.max_frame; }
  Status send(int peer, const struct iovec* iov, int iovcnt) override;
  int progress() override;
  Status finalize() override;
  int wait_fd() const override { return waitset_.get(); }
  bool arm_wait() override;
  Attributes attributes(int peer) const override;
  // process_vm_readv completes before it returns: `done` runs at once.
  Status get_async(int peer, void* local, size_t len, uint64_t remote, std::string_view key,
                   Completion done) override;
  Status put_async(int peer, const void* local, size_t len, uint64_t remote, std::string_view key,
                   Completion done) override;

  const ShmConfig& config() const { return cfg_; }
  // No frame of ours unconsumed in any peer's ring, none pending in ours.
  bool drained() const;
  // True between a successful on_checkpoint() and the next connect().
  bool checkpointed() const { return checkpointed_; }
  uint32_t generation() const { return generation_; }

 private:
  // Which ranks share our node, from the Host (init and restart).
  void build_topology();
  // Whether the ranks of this host (by the host's current layout) are no
  // longer local_ranks_.
  bool local_ranks_moved() const;
  void setup_single_copy();
  // Registers for membarrier (init and restart; shm_membarrier.h).
  void setup_membarrier();
  // process_vm_readv (or, `write`, process_vm_writev) of [remote, remote+len) of `peer`.
  Status access_peer_memory(int peer, void* local, uint64_t remote, size_t len, bool write);
  // Frames from peers still in our rings: "" or what is pending, from whom.
  std::string inbound_pending() const;
  // Waits for peers to consume what we wrote into their rings.
  Status wait_peers_consumed();
  Status recreate(bool restarted);

  // Resources shared with other processes (everything a checkpoint releases).
  Status create_local();
  Status publish();
  Status attach_peer(ShmPeer& p);
  void release_peer(ShmPeer& p);
  void release_peers();
  void release_local();

  int drain(size_t slot);
  void disarm();
  void service_waitset(bool take_doorbell);
  void maybe_unlink();

  // Peer liveness (shm_liveness.cpp).
  void watch_exit(ShmPeer& p);  // adds p's pidfd to the wait set
  void check_liveness();
  void peer_exited(size_t slot);

  // Single-copy get (shm_get.cpp).
  static int yama_ptrace_scope();  // -1 without Yama
  void probe_get(const ShmPeer& p);

  // epoll data in waitset_: the doorbell, or the pidfd of the peer in a slot.
  static constexpr uint64_t kDoorbellTag = 0;
  static constexpr uint64_t peer_tag(size_t slot) { return static_cast<uint64_t>(slot) + 1; }

  static constexpr uint64_t kProbeMagic = 0x4c5a53484d50524full;  // "LZSHMPRO"

  ShmConfig cfg_;
  Host* host_ = nullptr;
  int rank_ = -1;
  std::vector<int> local_ranks_;   // ranks of this host, rank order, me included
  uint32_t my_local_index_ = 0;
  std::vector<int> slot_of_rank_;  // world rank -> index in peers_/inbound_, -1 if not local
  std::vector<ShmPeer> peers_;     // the other local ranks, rank order
  std::vector<Inbound> inbound_;   // parallel to peers_

  // Local resources.
  Segment local_;
  SegmentHeader* local_hdr_ = nullptr;
  Doorbell bell_;
  UniqueFd waitset_;  // epoll: doorbell + peers' pidfds
  uint32_t generation_ = 0;
  bool names_linked_ = false;
  bool checkpointed_ = false;  // resources released; connect() ends it

  bool get_ok_ = false;
  bool membarrier_ok_ = false;  // registered: we run the barrier before sleeping, peers may skip fences
  bool membarrier_warned_ = false;
  bool armed_ = false;
  bool in_progress_ = false;
  int blocked_senders_ = 0;  // peers with tx_blocked set
  int drained_at_exit_ = 0;  // frames peer_exited() delivered, not yet counted by progress()
  uint32_t tick_ = 0;
  int64_t last_check_ms_ = 0;
  alignas(8) volatile uint64_t probe_word_ = kProbeMagic;
};

}  // namespace lz::transport::shm
