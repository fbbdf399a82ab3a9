// ShmTransport, data path: send() copies a frame into our ring in the
// receiver's segment; progress() delivers frames straight from our rings;
// arm_wait()/disarm() implement the doorbell protocol for blocking waits
// (described in shm_transport.h).
#include "shm_transport.h"

#include <sys/epoll.h>

#include <cstring>
#include <string>
#include <utility>

#include "lazarus/frameworks/transport_iov.h"
#include "lazarus/log.h"
#include "shm_clock.h"
#include "shm_membarrier.h"

namespace lz::transport::shm {
namespace {

// Frames one progress() call takes from one ring: bounds the time a single
// busy sender can keep the engine from its other work.
constexpr int kMaxFramesPerDrain = 256;

// Undoes the "in progress" mark however progress() returns.
struct ReentryGuard {
  bool& flag;
  explicit ReentryGuard(bool& f) : flag(f) { flag = true; }
  ~ReentryGuard() { flag = false; }
};

}  // namespace

Status ShmTransport::send(int peer, const struct iovec* iov, int iovcnt) {
  if (peer < 0 || static_cast<size_t>(peer) >= slot_of_rank_.size() || slot_of_rank_[static_cast<size_t>(peer)] < 0)
    return InvalidArgument("shm: rank " + std::to_string(peer) + " is not on this host");
  ShmPeer& p = peers_[static_cast<size_t>(slot_of_rank_[static_cast<size_t>(peer)])];
  if (p.gone) return peer_gone_status(peer);
  if (checkpointed_) return Status(Code::kWouldBlock, "shm: checkpointed; no frame moves before connect()");
  if (!p.tx.attached()) return InvalidArgument("shm: rank " + std::to_string(peer) + " is not reachable through shm");
  const size_t total = iov_bytes(iov, iovcnt);
  if (total > cfg_.max_frame)
    return InvalidArgument("shm: frame of " + std::to_string(total) + " bytes exceeds max_frame " +
                           std::to_string(cfg_.max_frame));
  uint8_t* dst = p.tx.reserve(total);
  if (dst == nullptr) {
    // Full: have the receiver ring our doorbell when it frees space, so the
    // engine may sleep in poll() until then.
    dst = p.tx.reserve_or_request_wakeup(total);
    if (dst == nullptr) {
      if (!p.tx_blocked) p.tx_blocked = true, ++blocked_senders_;
      return Status(Code::kWouldBlock, "shm ring full");
    }
  }
  if (p.tx_blocked) p.tx_blocked = false, --blocked_senders_;
  // A frame that fits the record's first cache line (after the 8-byte record
  // header) is staged and written with one copy: the receiver polls that
  // line, and each separate store into it (wire header, then payload) may
  // have to take the line back from the poller. Measured on the 1-8 byte
  // ping-pong: 0.42-0.52 us -> 0.31-0.38 half round trip (Open MPI 0.38-0.41).
  const bool small = total <= kCacheLine - kRecordHeaderBytes;
  alignas(kCacheLine) uint8_t staged[kCacheLine];
  iov_gather(iov, iovcnt, small ? staged : dst);
  if (small) std::memcpy(dst, staged, total);
  p.tx.commit();
  // The doorbell's Dekker pairing (arm_wait): the record before the flag
  // load. Without a fence here, the receiver's membarrier provides it.
  if (p.fence_sends) std::atomic_thread_fence(std::memory_order_seq_cst);
  if (p.header->sleeping.load(std::memory_order_seq_cst) != 0 &&
      p.header->sleeping.exchange(0, std::memory_order_acq_rel) != 0)
    p.bell.ring();
  return Status::Ok();
}

int ShmTransport::progress() {
  if (in_progress_ || local_hdr_ == nullptr) return 0;  // deliver() re-entered us
  ReentryGuard guard(in_progress_);
  if (armed_) disarm();
  int n = 0;
  // An empty ring costs one load here; drain() (publish, wake-up requests,
  // corruption) is for rings that hold something.
  for (size_t s = 0; s < inbound_.size(); ++s)
    if (!inbound_[s].closed && inbound_[s].ring.ready()) n += drain(s);
  if ((++tick_ & 255u) == 0) {
    const int64_t now = coarse_now_ms();
    if (now - last_check_ms_ >= cfg_.liveness_ms) {
      last_check_ms_ = now;
      check_liveness();
      maybe_unlink();
    }
  }
  // Frames of peers that exited, delivered by peer_exited() during this call
  // (from disarm() or check_liveness()), count as work like any other.
  n += std::exchange(drained_at_exit_, 0);
  return n;
}

int ShmTransport::drain(size_t slot) {
  Inbound& in = inbound_[slot];
  if (in.closed) return 0;
  int n = 0;
  uint64_t len = 0;
  while (n < kMaxFramesPerDrain) {
    const uint8_t* data = in.ring.peek(&len);
    if (data == nullptr) break;
    host_->deliver(in.src, data, len);
    in.ring.pop();
    ++n;
  }
  in.ring.publish();
  if (in.ring.take_wakeup_request() && peers_[slot].bell.valid()) peers_[slot].bell.ring();
  if (in.ring.corrupt()) {
    in.closed = true;
    ShmPeer& p = peers_[slot];
    p.gone = true;
    if (!p.reported) {
      p.reported = true;
      host_->peer_failed(p.rank, ProtocolError("shm: corrupt record in the ring from rank " + std::to_string(p.rank)));
    }
  }
  return n;
}

void ShmTransport::setup_membarrier() {
  membarrier_ok_ = cfg_.membarrier && membarrier::register_process();
  if (cfg_.membarrier && !membarrier_ok_)
    log::debug("shm: membarrier(GLOBAL_EXPEDITED) unavailable (%s): every send fences", std::strerror(errno));
}

bool ShmTransport::arm_wait() {
  if (local_hdr_ == nullptr) return true;
  local_hdr_->sleeping.store(1, std::memory_order_seq_cst);
  armed_ = true;
  // Senders that skip their fence rely on this barrier to see the flag, or
  // to have made their record visible to the loads below.
  if (membarrier_ok_ && !membarrier::run_global()) {
    // Not seen: registration ran a barrier. Stay awake rather than risk a
    // lost wake-up.
    if (!std::exchange(membarrier_warned_, true))
      log::warn("shm: membarrier failed (%s); rank %d polls instead of sleeping", std::strerror(errno), rank_);
    return false;
  }
  for (const Inbound& in : inbound_)
    if (!in.closed && in.ring.pending()) return false;
  // A ring we found full may have drained since: its consumer cleared our
  // request (and rang, but that byte may already have been read). Both
  // loads are seq_cst, after our flag store: no wake-up can fall between.
  if (blocked_senders_ > 0)
    for (ShmPeer& p : peers_)
      if (p.tx_blocked && (p.gone || !p.tx.wakeup_requested())) {
        p.tx_blocked = false;
        --blocked_senders_;
        return false;
      }
  return true;
}

void ShmTransport::disarm() {
  armed_ = false;
  local_hdr_->sleeping.store(0, std::memory_order_relaxed);
  // We may have slept: find out why (doorbell bytes, a peer that exited).
  service_waitset(/*take_doorbell=*/true);
}

// Doorbell bytes are read only when disarming: a byte read at any other time
// could be the wake-up of a wait that is about to start.
void ShmTransport::service_waitset(bool take_doorbell) {
  struct epoll_event evs[16];
  const int n = ::epoll_wait(waitset_.get(), evs, 16, 0);
  for (int i = 0; i < n; ++i) {
    if (evs[i].data.u64 == kDoorbellTag) {
      if (take_doorbell) bell_.drain();
    } else {
      const size_t slot = static_cast<size_t>(evs[i].data.u64 - peer_tag(0));
      if (slot < peers_.size()) peer_exited(slot);
    }
  }
}

}  // namespace lz::transport::shm
