// The single-producer/single-consumer ring of variable-length records that
// carries frames from one sender to one receiver (one per sender in each
// receiver's segment, see shm_layout.h).
//
// Records start on cache-line boundaries and never straddle the end of the
// ring. Each begins with an 8-byte header word: 0 means "nothing here yet",
// otherwise kValid | length (payload bytes), or kValid | kPad | skip for the
// padding that sends the consumer back to the start of the ring.
//
// The consumer never reads a producer index. It polls the header word at its
// own head, as Open MPI vader's fast boxes do, so a small frame costs the
// receiver one cache-line transfer (header and payload share the line). That
// needs the word at the producer's tail to be 0 at all times, including on the
// second and later laps, where it would otherwise hold stale payload bytes:
// before publishing a record the producer zeroes the header word that follows
// it (the "sentinel"), and keeps one cache line of slack so the sentinel never
// lands on an unconsumed record.
//
// Positions (head, tail) are byte counts since creation; offsets are position
// & mask. The producer keeps its tail and a cached head in process memory; the
// consumer publishes its head once per drain, or every quarter ring during a
// long one, and the producer re-reads it only when its cached copy says the
// record does not fit. A producer that still finds no room raises
// producer_waiting so the consumer wakes it (doorbell) after freeing space:
// a sender blocked on a full ring can sleep instead of spinning.
//
//   RingProducer tx(ctl, data, bytes);         RingConsumer rx(ctl, data, bytes);
//   if (uint8_t* p = tx.reserve(n)) {          size_t n; const uint8_t* p;
//     memcpy(p, frame, n); tx.commit();        while ((p = rx.peek(&n))) { use(p, n); rx.pop(); }
//   }                                          rx.publish();
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "shm_layout.h"

namespace lz::transport::shm {

inline constexpr uint64_t kRecordValid = 1ull << 63;
inline constexpr uint64_t kRecordPad = 1ull << 62;
inline constexpr uint64_t kRecordLenMask = 0xffffffffull;
inline constexpr size_t kRecordHeaderBytes = 8;

// Bytes a record with `payload` bytes occupies in the ring.
constexpr uint64_t record_bytes(uint64_t payload) {
  return (kRecordHeaderBytes + payload + kCacheLine - 1) & ~uint64_t{kCacheLine - 1};
}
// Largest payload that an empty ring of `ring_bytes` always has room for. The
// worst case is padding (at most one record minus a line) + the record + the
// sentinel's line, so a record may take at most half the ring.
constexpr uint64_t max_payload_for_ring(uint64_t ring_bytes) { return ring_bytes / 2 - kRecordHeaderBytes; }

namespace detail {
inline std::atomic<uint64_t>* header_at(uint8_t* data, uint64_t offset) {
  return reinterpret_cast<std::atomic<uint64_t>*>(data + offset);
}
}  // namespace detail

class RingProducer {
 public:
  RingProducer() = default;
  // `data` holds `bytes` (a power of two >= 4 KiB) of ring that starts zeroed.
  RingProducer(RingControl* ctl, uint8_t* data, uint64_t bytes)
      : ctl_(ctl), data_(data), size_(bytes), mask_(bytes - 1) {}

  bool attached() const { return data_ != nullptr; }

  // Room for a payload of `len` bytes (len <= max_payload_for_ring), or null
  // when the ring is full. The caller writes the payload, then commit()s;
  // nothing is visible to the consumer before that.
  uint8_t* reserve(uint64_t len) {
    const uint64_t rec = record_bytes(len);
    const uint64_t off = tail_ & mask_;
    const uint64_t pad = off + rec > size_ ? size_ - off : 0;
    const uint64_t need = pad + rec + kCacheLine;  // + the sentinel's line
    if (size_ - (tail_ - cached_head_) < need) {
      cached_head_ = ctl_->head.load(std::memory_order_acquire);
      if (size_ - (tail_ - cached_head_) < need) return nullptr;
    }
    pending_len_ = len;
    pending_pad_ = pad;
    return data_ + ((tail_ + pad) & mask_) + kRecordHeaderBytes;
  }

  // After reserve() failed: asks the consumer to ring our doorbell once it
  // frees space, then tries again. The flag store and the head load are
  // seq_cst, pairing with RingConsumer::publish() (Dekker): either this retry
  // sees the space or the consumer sees the flag.
  uint8_t* reserve_or_request_wakeup(uint64_t len) {
    ctl_->producer_waiting.store(1, std::memory_order_seq_cst);
    cached_head_ = ctl_->head.load(std::memory_order_seq_cst);
    return reserve(len);
  }

  // True while a wake-up requested by reserve_or_request_wakeup() has not
  // been taken by the consumer (it clears the flag when it frees space).
  bool wakeup_requested() const { return ctl_->producer_waiting.load(std::memory_order_seq_cst) != 0; }

  // Publishes the reserved record (release: the payload is visible before
  // the header word that validates it). Not a full fence: a sender that must
  // order the publication before a later load (the doorbell's Dekker
  // pairing, ShmTransport::send) fences itself or relies on the receiver's
  // membarrier (shm_membarrier.h).
  void commit() {
    const uint64_t start = tail_ + pending_pad_;
    const uint64_t rec = record_bytes(pending_len_);
    detail::header_at(data_, (start + rec) & mask_)->store(0, std::memory_order_relaxed);  // sentinel
    detail::header_at(data_, start & mask_)->store(kRecordValid | pending_len_, std::memory_order_release);
    if (pending_pad_ != 0)
      detail::header_at(data_, tail_ & mask_)->store(kRecordValid | kRecordPad | pending_pad_,
                                                     std::memory_order_release);
    tail_ = start + rec;
  }

  // True when the consumer has taken every committed record (for a drained
  // checkpoint: nothing of ours left in the peer's segment).
  bool consumed() const { return ctl_->head.load(std::memory_order_acquire) == tail_; }
  uint64_t tail() const { return tail_; }

 private:
  RingControl* ctl_ = nullptr;
  uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  uint64_t mask_ = 0;
  uint64_t tail_ = 0;
  uint64_t cached_head_ = 0;
  uint64_t pending_len_ = 0;
  uint64_t pending_pad_ = 0;
};

class RingConsumer {
 public:
  RingConsumer() = default;
  RingConsumer(RingControl* ctl, uint8_t* data, uint64_t bytes)
      : ctl_(ctl), data_(data), size_(bytes), mask_(bytes - 1) {}

  bool attached() const { return data_ != nullptr; }

  // The next frame's payload and length, or null when the ring is empty (or
  // corrupt: then corrupt() is true and the ring must not be read again).
  // The pointer stays valid until pop().
  const uint8_t* peek(uint64_t* len) {
    for (;;) {
      const uint64_t off = head_ & mask_;
      const uint64_t h = detail::header_at(data_, off)->load(std::memory_order_acquire);
      if (!(h & kRecordValid)) return nullptr;
      const uint64_t n = h & kRecordLenMask;
      if (h & kRecordPad) {
        // Padding runs exactly to the end of the ring; anything else is a
        // corrupt ring (bounds are checked because the writer is another process).
        if (n != size_ - off) return fail();
        head_ += n;
        continue;
      }
      if ((h & ~(kRecordValid | kRecordLenMask)) != 0 || off + record_bytes(n) > size_) return fail();
      current_ = record_bytes(n);
      *len = n;
      return data_ + off + kRecordHeaderBytes;
    }
  }

  // Releases the frame returned by the last peek().
  void pop() {
    head_ += current_;
    if (head_ - published_ >= size_ / 4) publish();
  }

  // Makes consumed space visible to the producer, and notes whether the
  // producer asked to be woken for it (see take_wakeup_request()).
  void publish() {
    if (head_ == published_) return;
    ctl_->head.store(head_, std::memory_order_seq_cst);
    published_ = head_;
    if (ctl_->producer_waiting.load(std::memory_order_seq_cst) != 0 &&
        ctl_->producer_waiting.exchange(0, std::memory_order_acq_rel) != 0)
      wakeup_requested_ = true;
  }
  // True once after a publish() freed space a blocked producer waits for:
  // the caller then rings the producer's doorbell.
  bool take_wakeup_request() { return std::exchange(wakeup_requested_, false); }

  // A record (or padding) is waiting: the cheap test of a poll that usually
  // finds the ring empty (peek() reads the same word again).
  bool ready() const { return detail::header_at(data_, head_ & mask_)->load(std::memory_order_relaxed) & kRecordValid; }
  // A record is waiting. seq_cst: the receiver's half of the doorbell's
  // Dekker pairing (ShmTransport::arm_wait).
  bool pending() const {
    return detail::header_at(data_, head_ & mask_)->load(std::memory_order_seq_cst) & kRecordValid;
  }
  bool corrupt() const { return corrupt_; }

 private:
  const uint8_t* fail() {
    corrupt_ = true;
    return nullptr;
  }

  RingControl* ctl_ = nullptr;
  uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  uint64_t mask_ = 0;
  uint64_t head_ = 0;
  uint64_t published_ = 0;
  uint64_t current_ = 0;
  bool corrupt_ = false;
  bool wakeup_requested_ = false;
};

}  // namespace lz::transport::shm
