// The layout of a transport/shm receive segment, shared by every process that
// maps it. Changing anything here changes kLayoutVersion.
//
// Each rank creates one segment, the only place other ranks of its host write
// to it:
//
//   offset 0                SegmentHeader (3 cache lines: identity, doorbell
//                           flag, attach count and owner state)
//   kHeaderBytes + i*stride RingControl of the ring written by local rank i
//                           (the consumer's head on its own cache line)
//   ... + kControlBytes     ring_bytes of ring data (records, see shm_ring.h)
//
// Rings are indexed by the sender's *local index*: its position among the
// ranks sharing the node (Host::peer(r).node_id), in rank order. The slot of
// the owner itself is never used. Every field written after creation is a
// lock-free std::atomic, which is address-free and so valid across processes.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace lz::transport::shm {

inline constexpr size_t kCacheLine = 64;
inline constexpr uint64_t kSegmentMagic = 0x4745534d48535a4cull;  // "LZSHMSEG" little-endian
inline constexpr uint32_t kLayoutVersion = 2;

// SegmentHeader::flags.
// The owner runs membarrier::run_global() between setting `sleeping` and
// re-reading its rings (shm_membarrier.h): a registered sender may publish
// without a fence.
inline constexpr uint32_t kSegmentSleepBarrier = 1;

// Owner state, for peers to tell a clean exit from a crash.
// kOwnerCheckpointed: the owner released this segment in on_checkpoint() (it
// will publish a new one); whatever is written here afterwards is never read.
enum OwnerState : uint32_t { kOwnerAlive = 1, kOwnerFinalized = 2, kOwnerCheckpointed = 3 };

struct SegmentHeader {
  // Line 0: written by the owner before its name is published; read-only after.
  uint64_t magic;
  uint32_t version;
  uint32_t num_rings;
  uint64_t ring_bytes;
  uint64_t total_bytes;
  int32_t owner_rank;
  int32_t owner_pid;
  uint32_t flags;  // kSegment* bits
  // Line 1: the doorbell's "sleeping" flag. The owner sets it (seq_cst) before
  // a blocking wait; a sender that finds it set after publishing a record
  // clears it and rings the doorbell. Alone on its line: senders read it on
  // every send, so it must stay shared-clean in their caches.
  alignas(kCacheLine) std::atomic<uint32_t> sleeping;
  // Line 2: rarely written. Peers increment `attached` once they have mapped
  // the segment and opened the doorbell (the owner then unlinks both names);
  // the owner sets `state` to kOwnerFinalized in finalize().
  alignas(kCacheLine) std::atomic<uint32_t> attached;
  std::atomic<uint32_t> state;
};

struct RingControl {
  // Bytes consumed so far (monotonic): written by the consumer (release), read
  // by the producer (acquire) only when its cached copy says the ring is full.
  alignas(kCacheLine) std::atomic<uint64_t> head;
  // Line 1, read-mostly: the ring's sender (written by the owner at
  // creation) and the producer's "wake me when there is room" flag, set by a
  // sender that found the ring full, cleared by the consumer that frees space
  // and then rings the sender's doorbell.
  alignas(kCacheLine) int32_t sender_rank;
  std::atomic<uint32_t> producer_waiting;
};

static_assert(std::atomic<uint32_t>::is_always_lock_free && std::atomic<uint64_t>::is_always_lock_free,
              "shared-memory atomics must be lock-free to be address-free");

inline constexpr size_t kHeaderBytes = 3 * kCacheLine;
inline constexpr size_t kControlBytes = 2 * kCacheLine;
static_assert(sizeof(SegmentHeader) == kHeaderBytes);
static_assert(sizeof(RingControl) == kControlBytes);

// Where things are in a segment of `num_rings` rings of `ring_bytes` each.
struct SegmentLayout {
  uint32_t num_rings = 0;
  uint64_t ring_bytes = 0;

  uint64_t stride() const { return kControlBytes + ring_bytes; }
  uint64_t total_bytes() const { return kHeaderBytes + uint64_t{num_rings} * stride(); }
  uint64_t control_offset(uint32_t ring) const { return kHeaderBytes + uint64_t{ring} * stride(); }
  uint64_t data_offset(uint32_t ring) const { return control_offset(ring) + kControlBytes; }
};

}  // namespace lz::transport::shm
