// UcxTransport, peer liveness. UCX notices a dead peer by itself over tcp (an
// endpoint error, in milliseconds, with UCP_ERR_HANDLING_MODE_PEER) but over
// shared memory only through its keepalive, after 20 s (and only with
// UCX_POSIX_ERROR_HANDLING=y, which ucx_worker.cpp sets). So, as shm does,
// every rank of the same host is watched through a pidfd of the pid it
// published with its address: the pidfd sits in wait_fd()'s epoll set (a
// sleeping rank wakes at once) and a busy rank looks every
// transport_ucx_liveness_ms. A peer that said kBye or kCheckpoint first is
// not failed by its exit. A lost peer is reported once, after the worker has
// been drained of what it sent (progress()).
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "lazarus/log.h"
#include "lazarus/pidfd.h"
#include "ucx_transport.h"

namespace lz::transport::ucx {

void UcxTransport::watch(UcxPeer& p) {
  any_local_ = true;
  UniqueFd fd(pidfd_open(p.pid));
  if (!fd.valid()) {
    // Gone already (ESRCH), or no pidfds: kill(pid, 0) in check_waitset.
    if (errno == ESRCH && p.state == UcxPeer::State::kActive)
      mark_lost(p, Status(Code::kAborted, "ucx: rank " + std::to_string(p.rank) + " (pid " + std::to_string(p.pid) +
                                              ") on this host is gone"));
    return;
  }
  struct epoll_event ev {};
  ev.events = EPOLLIN;
  ev.data.u64 = static_cast<uint64_t>(p.rank);
  if (::epoll_ctl(waitset_.get(), EPOLL_CTL_ADD, fd.get(), &ev) != 0) return;
  p.pidfd = std::move(fd);
}

void UcxTransport::unwatch(UcxPeer& p) {
  if (!p.pidfd.valid()) return;
  if (waitset_.valid()) ::epoll_ctl(waitset_.get(), EPOLL_CTL_DEL, p.pidfd.get(), nullptr);
  p.pidfd.reset();
}

void UcxTransport::check_waitset() {
  struct epoll_event evs[16];
  const int n = ::epoll_wait(waitset_.get(), evs, 16, 0);
  for (int i = 0; i < n; ++i) {
    if (evs[i].data.u64 == kWorkerTag) continue;
    UcxPeer* p = peer_at(static_cast<int>(evs[i].data.u64));
    if (p == nullptr) continue;
    unwatch(*p);  // readable for good: out of the wait set, or every poll returns at once
    if (p->state == UcxPeer::State::kActive)
      mark_lost(*p, Status(Code::kAborted, "ucx: rank " + std::to_string(p->rank) + " (pid " + std::to_string(p->pid) +
                                               ") on this host exited without finalizing"));
  }
  for (auto& pp : peers_) {  // peers whose pidfd could not be opened
    if (!pp || !pp->local || pp->pidfd.valid() || pp->state != UcxPeer::State::kActive || pp->pid <= 0) continue;
    if (::kill(pp->pid, 0) != 0 && errno == ESRCH)
      mark_lost(*pp, Status(Code::kAborted, "ucx: rank " + std::to_string(pp->rank) + " (pid " +
                                                std::to_string(pp->pid) + ") on this host exited without finalizing"));
  }
}

bool UcxTransport::exited_soon(const UcxPeer& p, double seconds) const {
  if (p.pidfd.valid()) {
    struct pollfd pf {p.pidfd.get(), POLLIN, 0};
    return ::poll(&pf, 1, static_cast<int>(seconds * 1000)) > 0;
  }
  return p.pid > 0 && ::kill(p.pid, 0) != 0 && errno == ESRCH;
}

void UcxTransport::on_ep_error(UcxPeer& p, ucs_status_t why) {
  if (p.state == UcxPeer::State::kSuspended || p.state == UcxPeer::State::kFinalized) {
    // It said it would go: the endpoint is stale, not a failure.
    log::debug("ucx: endpoint to rank %d closed (%s) after it checkpointed or finalized", p.rank,
               ucs_status_string(why));
    p.close_wanted = eps_dirty_ = true;
    return;
  }
  const PeerInfo& info = host_->peer(p.rank);
  mark_lost(p, Status(Code::kAborted, "ucx: connection to rank " + std::to_string(p.rank) + " on host " + info.host +
                                          " lost: " + ucs_status_string(why)));
}

void UcxTransport::mark_lost(UcxPeer& p, const Status& why) {
  if (p.lost || p.state == UcxPeer::State::kFailed) return;
  p.lost = true;
  p.failure = why;
  any_lost_ = true;
}

void UcxTransport::report_lost() {
  any_lost_ = false;
  for (auto& pp : peers_) {
    if (!pp || !pp->lost) continue;
    UcxPeer& p = *pp;
    p.lost = false;
    if (p.state == UcxPeer::State::kSuspended || p.state == UcxPeer::State::kFinalized) continue;  // said so meanwhile
    p.state = UcxPeer::State::kFailed;
    fail_pulls(p, p.failure);
    fail_bulk_sends(&p, p.failure);
    close_ep(p, true, "report_lost");
    unwatch(p);
    if (p.reported) continue;
    p.reported = true;
    log::debug("%s", p.failure.to_string().c_str());
    host_->peer_failed(p.rank, p.failure);
  }
}

}  // namespace lz::transport::ucx
