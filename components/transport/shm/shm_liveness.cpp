// ShmTransport, peer liveness: a pidfd per peer in the wait set wakes a
// sleeping rank when the peer exits; a busy rank checks every
// transport_shm_liveness_ms (kill(pid, 0) where pidfds are missing). A peer
// whose segment says it finalized exited cleanly; any other exit is reported
// once, after the frames it sent have been delivered.
#include "shm_transport.h"

#include <errno.h>
#include <signal.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <string>

#include "lazarus/log.h"
#include "lazarus/pidfd.h"
#include "shm_clock.h"

namespace lz::transport::shm {

// Without pidfds (an old kernel) the peer is watched by kill(pid, 0) only.
void ShmTransport::watch_exit(ShmPeer& p) {
  UniqueFd pidfd(pidfd_open(p.address.pid));
  if (pidfd.valid()) {
    struct epoll_event ev {};
    ev.events = EPOLLIN;
    ev.data.u64 = peer_tag(static_cast<size_t>(&p - peers_.data()));
    if (::epoll_ctl(waitset_.get(), EPOLL_CTL_ADD, pidfd.get(), &ev) != 0) pidfd.reset();
  }
  p.pidfd = std::move(pidfd);
}

void ShmTransport::check_liveness() {
  service_waitset(/*take_doorbell=*/false);
  for (size_t s = 0; s < peers_.size(); ++s) {
    const ShmPeer& p = peers_[s];
    if (p.gone || p.pidfd.valid() || p.address.pid <= 0) continue;
    if (::kill(p.address.pid, 0) != 0 && errno == ESRCH) peer_exited(s);
  }
}

void ShmTransport::peer_exited(size_t slot) {
  ShmPeer& p = peers_[slot];
  if (p.gone) return;
  // The peer's finalize() marks its segment before it exits; read that first
  // (acquire) so every frame it published before is visible to the drain.
  const bool clean = p.header != nullptr && p.header->state.load(std::memory_order_acquire) == kOwnerFinalized;
  for (int k; !inbound_[slot].closed && (k = drain(slot)) > 0;) drained_at_exit_ += k;
  p.gone = true;
  inbound_[slot].closed = true;
  if (p.pidfd.valid()) {
    ::epoll_ctl(waitset_.get(), EPOLL_CTL_DEL, p.pidfd.get(), nullptr);
    p.pidfd.reset();
  }
  if (clean || p.reported) return;
  p.reported = true;
  log::debug("shm: rank %d (pid %d) exited without finalizing", p.rank, static_cast<int>(p.address.pid));
  host_->peer_failed(p.rank, Status(Code::kAborted, "shm: rank " + std::to_string(p.rank) + " (pid " +
                                                        std::to_string(p.address.pid) +
                                                        ") on this host exited without finalizing"));
}

}  // namespace lz::transport::shm
