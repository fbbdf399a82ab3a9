// UcxTransport, checkpoint/continue/restart hooks (kCapCheckpoint).
//
// What of UCX can a core image (CRIU dump, restore in new processes, maybe on
// other hosts) carry? Nothing that a UCP context or worker holds:
//   - the UCS async thread (keepalive and tcp events): CRIU restores
//     threads, but its epoll set and timerfd refer to the sockets below;
//   - tcp interfaces: a listening socket and one socket per connection.
//     CRIU 4.1.1 cannot dump an inet socket on kernels >= 6.16 at all, and a
//     connection to a process outside the dump is never restorable;
//   - posix (and sysv) shared memory: our receive FIFO lives in a /dev/shm
//     file or a memfd (or a SysV segment) mapped by our peers, and their
//     segments are mapped by us. CRIU would save the mappings' contents into
//     each image (no longer shared) or fail on the peers' memfds, and after a
//     restart the peers are other processes with other segments;
//   - cma: nothing but the peer's pid, which changes on restart;
//   - the worker's event fd and the worker address, which names all of the
//     above (ports, segment ids, pids).
// What does survive is plain process memory, and that is all the state the
// module needs: per-peer sequence numbers (ucx_peer.h) keep every frame
// exactly once and in order across the hooks; frames held for delivery stay
// held; the epoll set behind wait_fd() is ours (no UCX state) and stays open
// and empty, so the fd number the engine polls does not change. UCM's
// memory hooks would survive too (patched libc code is process memory),
// which is why they are never installed (ucx_library.h).
//
// Therefore:
//   on_checkpoint(): refuses (kWouldBlock, nothing released) while a frame
//     from a peer is undelivered (it is held, and delivered by the next
//     progress()); waits up to transport_ucx_checkpoint_timeout for our
//     outstanding sends and rendezvous fetches, and refuses (kWouldBlock,
//     nothing released) if some are still outstanding; tells every peer
//     that may notice our going (an endpoint to it, same host, or it sent to
//     us) with a kCheckpoint frame, so that our endpoint's error or our
//     exit is not a failure to it; flushes the worker; force-closes every
//     endpoint; destroys the worker and the context (ucp_worker_destroy,
//     ucp_cleanup: no UCX thread, fd, socket, shared mapping, /dev/shm file
//     or SysV segment remains); closes the peers' pidfds. A frame that still
//     arrives meanwhile is held in process memory and delivered after.
//   on_continue(): a new context and worker, its address published.
//   on_restart(): the same in a restored process set: the job tag is
//     derived again from the job secret (a new launcher may bring a new
//     one), and peers lost in the old process set are forgotten.
//   connect() (after the engine's fence) re-reads every address and pid,
//     and forgets a peer's loss seen while it released its worker (its
//     endpoint's error can come before its kCheckpoint frame); endpoints
//     are made again lazily.
// Nothing is sent between on_checkpoint and connect(): send() answers
// kWouldBlock, as it does to a peer that said kCheckpoint until connect()
// reads its new address.
#include "lazarus/log.h"
#include "ucx_transport.h"

namespace lz::transport::ucx {

std::string UcxTransport::held_summary() const {
  std::string out;
  for (const auto& p : peers_) {
    if (!p || p->held.empty()) continue;
    out += (out.empty() ? "" : ", ") + std::to_string(p->held.size()) + " from rank " + std::to_string(p->rank);
  }
  return out;
}

void UcxTransport::tell_peers(FrameKind kind, double deadline) {
  (void)deadline;
  for (auto& pp : peers_) {
    if (!pp) continue;
    UcxPeer& p = *pp;
    if (p.state != UcxPeer::State::kActive || p.lost) continue;
    // A peer on another host notices us only through an endpoint; one that
    // sent to us has one (tend_eps made it, or post() makes it now).
    if (p.ep == nullptr && !p.local && !p.need_ep) continue;
    Status s = post(p, kind, nullptr, 0, p.hello_sent ? kSaidHello : 0);
    if (!s.ok()) log::debug("ucx: telling rank %d: %s", p.rank, s.to_string().c_str());
  }
}

Status UcxTransport::on_checkpoint() {
  if (host_ == nullptr) return Internal("ucx: on_checkpoint() before init()");
  if (checkpointed_) return Internal("ucx: on_checkpoint() twice without continue/restart and connect()");
  if (in_progress_) return Internal("ucx: on_checkpoint() from inside progress()");
  if (!worker_.is_open()) return Internal("ucx: on_checkpoint() without a worker (finalized?)");
  const double deadline = now_s() + config_.checkpoint_timeout;
  in_progress_ = true;  // UCX callbacks below must not re-enter progress()
  stashing_ = true;
  auto refuse = [&](Status s) {
    stashing_ = false;
    in_progress_ = false;
    return s;
  };

  // Precondition (transport.h): the crcp drain delivered every frame sent to
  // this rank. What UCX still holds for us is taken, held, and refused.
  progress_worker();
  if (std::string held = held_summary(); !held.empty())
    return refuse(Status(Code::kWouldBlock, "ucx: not drained: frames " + held +
                                                " not yet delivered (progress, then checkpoint again)"));
  while (outstanding_ops_ != 0 && now_s() < deadline) progress_worker();
  if (outstanding_ops_ != 0)
    return refuse(Status(Code::kWouldBlock, "ucx: " + std::to_string(outstanding_ops_) +
                                                " send(s) or fetch(es) still outstanding after " +
                                                std::to_string(config_.checkpoint_timeout) +
                                                " s (transport_ucx_checkpoint_timeout): " + outstanding_summary()));

  tell_peers(kCheckpoint, deadline);
  settle_bulk(deadline);
  if (Status s = flush_all(deadline, "on_checkpoint"); !s.ok()) {
    // Peers were told; a flush that failed means some did not hear it. The
    // release goes on: keeping a half-told worker would be worse.
    log::debug("%s", s.to_string().c_str());
  }
  for (auto& p : peers_)
    if (p) close_ep(*p, true, "on_checkpoint");
  wait_closes(deadline);
  progress_worker();  // anything still arriving is held, delivered after
  close_worker();
  for (auto& pp : peers_) {
    if (!pp) continue;
    unwatch(*pp);
    pp->need_ep = pp->close_wanted = pp->want_flush = false;
    pp->unflushed_bytes = pp->flushing_bytes = 0;
    pp->flush_in_flight = false;
  }
  eps_dirty_ = flush_wanted_ = false;
  spare_.clear();  // up to 16 x 512 KiB of reusable buffers: not worth an image
  held_ready_ = !held_summary().empty();
  stashing_ = false;
  in_progress_ = false;
  checkpointed_ = true;
  log::debug("ucx: rank %d released its UCX context and worker for a checkpoint", rank_);
  return Status::Ok();
}

Status UcxTransport::reopen(bool restarted) {
  const char* hook = restarted ? "ucx: on_restart" : "ucx: on_continue";
  if (host_ == nullptr) return Internal(std::string(hook) + "() before init()");
  if (!checkpointed_ || worker_.is_open())
    return Internal(std::string(hook) + "() without a successful on_checkpoint()");
  if (restarted) {
    // A restored process set: a new launcher (maybe a new secret), new pids;
    // failures of the old process set say nothing about the new one.
    if (host_->job_secret().empty()) return PermissionDenied("ucx: no job secret after restart");
    tag_ = job_tag(host_->job_secret());
    rank_ = host_->rank();
    any_lost_ = false;
    for (auto& pp : peers_) {
      if (!pp) continue;
      pp->lost = pp->reported = false;
      pp->failure = Status();
      if (pp->state == UcxPeer::State::kFailed) pp->state = UcxPeer::State::kSuspended;
    }
  }
  LZ_RETURN_IF_ERROR(open_worker().with_context(hook));
  if (Status s = publish(); !s.ok()) {
    close_worker();
    return s.with_context(hook);
  }
  // Every peer's address is stale until connect() (run after the fence).
  for (auto& pp : peers_)
    if (pp && pp->state == UcxPeer::State::kActive) pp->state = UcxPeer::State::kSuspended;
  return Status::Ok();
}

Status UcxTransport::on_continue() { return reopen(false); }
Status UcxTransport::on_restart() { return reopen(true); }

}  // namespace lz::transport::ucx
