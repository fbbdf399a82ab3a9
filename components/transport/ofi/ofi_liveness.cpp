// OfiTransport, peer liveness. libfabric 1.17 does not report a dead peer (a
// receive posted while the peer is killed waits 28-60 s and more, without
// error), so a peer on this host is watched through a pidfd in the wait set:
// it wakes a blocked wait, and a busy rank looks every liveness_ms. A peer
// whose pidfd fired is reported only after the completion queue has stayed
// empty for a few turns, so that what it sent before dying is delivered
// first, and not at all if its kBye (finalize) came before. A peer on
// another host has no pidfd: a send that fails (tcp;ofi_rxm reports the
// sends queued on a lost connection with an error) fails it.
#include <errno.h>
#include <signal.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "lazarus/log.h"
#include "lazarus/pidfd.h"
#include "ofi_clock.h"
#include "ofi_transport.h"

namespace lz::transport::ofi {
namespace {


// Grace after a peer's exit was seen: this many progress turns with nothing
// in the CQ, and at least this long, before it is reported.
constexpr int kQuietTurns = 8;
constexpr int64_t kExitGraceMs = 20;

}  // namespace

void OfiTransport::watch(OfiPeer& p) {
  unwatch(p);
  if (p.pid <= 0) return;
  UniqueFd fd(pidfd_open(p.pid));
  if (!fd.valid()) {
    if (errno == ESRCH) p.exit_seen_ms = coarse_now_ms();  // already gone
    return;  // without pidfds (old kernel): kill(pid, 0) in check_liveness
  }
  struct epoll_event ev {};
  ev.events = EPOLLIN;
  ev.data.u64 = static_cast<uint64_t>(p.rank) + 1;
  if (::epoll_ctl(waitset_.get(), EPOLL_CTL_ADD, fd.get(), &ev) != 0) return;
  p.pidfd = std::move(fd);
}

void OfiTransport::unwatch(OfiPeer& p) {
  if (!p.pidfd.valid()) return;
  if (waitset_.valid()) ::epoll_ctl(waitset_.get(), EPOLL_CTL_DEL, p.pidfd.get(), nullptr);
  p.pidfd.reset();
}

void OfiTransport::check_liveness(int cq_events) {
  const int64_t now = coarse_now_ms();
  if (armed_ || now - last_check_ms_ >= config_.liveness_ms) {
    armed_ = false;
    last_check_ms_ = now;
    struct epoll_event evs[16];
    const int n = ::epoll_wait(waitset_.get(), evs, 16, 0);
    for (int i = 0; i < n; ++i) {
      if (evs[i].data.u64 == 0) continue;  // the CQ: read_cq() takes it
      if (evs[i].data.u64 == kTickTag) {   // the handshake timer: clear it
        uint64_t expirations;
        (void)!::read(tick_.get(), &expirations, sizeof expirations);
        continue;
      }
      OfiPeer* p = peer(static_cast<int>(evs[i].data.u64 - 1));
      if (p == nullptr) continue;
      unwatch(*p);
      if (p->exit_seen_ms == 0) p->exit_seen_ms = now;
    }
    for (auto& p : peers_) {  // peers watched without a pidfd
      if (p.rank == rank_ || !p.local || p.pidfd.valid() || p.exit_seen_ms != 0 || p.pid <= 0) continue;
      if (p.addr == FI_ADDR_NOTAVAIL || p.failed) continue;
      if (::kill(p.pid, 0) != 0 && errno == ESRCH) p.exit_seen_ms = now;
    }
  }
  for (auto& p : peers_) {
    if (p.exit_seen_ms == 0 || p.failed) continue;
    if (p.finalized) {
      p.exit_seen_ms = 0;  // a clean exit
      continue;
    }
    p.quiet_turns = cq_events > 0 ? 0 : p.quiet_turns + 1;
    if (p.quiet_turns < kQuietTurns || now - p.exit_seen_ms < kExitGraceMs) continue;
    fail_peer(p, Status(Code::kAborted, "ofi: rank " + std::to_string(p.rank) + " (pid " + std::to_string(p.pid) +
                                            ") on this host exited without finalizing"));
  }
}

void OfiTransport::fail_peer(OfiPeer& p, const Status& why) {
  if (p.failed) return;
  p.failed = true;
  p.failure = why;
  p.early.clear();
  unwatch(p);
  log::debug("ofi: rank %d lost: %s", p.rank, why.to_string().c_str());
  if (!p.reported) {
    p.reported = true;
    to_report_.push_back(p.rank);
  }
}

void OfiTransport::report_failures() {
  // Swap first: the engine's handler may send, and so fail, again.
  while (!to_report_.empty()) {
    std::vector<int> now;
    now.swap(to_report_);
    for (int r : now) {
      const Status why = peers_[static_cast<size_t>(r)].failure;
      fail_reads(r, why);
      host_->peer_failed(r, why);
    }
  }
}

}  // namespace lz::transport::ofi
