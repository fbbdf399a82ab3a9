// ShmTransport, checkpoint/continue/restart hooks (contract in
// shm_transport.h): everything shared with other processes is released and
// re-created under a new generation; module state stays in process memory.
#include "shm_transport.h"

#include <errno.h>
#include <signal.h>
#include <time.h>

#include <string>

#include "lazarus/log.h"
#include "shm_clock.h"
#include "shm_names.h"

namespace lz::transport::shm {

std::string ShmTransport::inbound_pending() const {
  std::string out;
  for (size_t s = 0; s < inbound_.size(); ++s) {
    const Inbound& in = inbound_[s];
    if (in.closed || !in.ring.attached() || !in.ring.pending()) continue;
    out += (out.empty() ? "" : ", ") + std::to_string(in.src);
  }
  return out;
}

Status ShmTransport::wait_peers_consumed() {
  const int64_t until = coarse_now_ms() + cfg_.checkpoint_wait_ms;
  for (;;) {
    std::string waiting;
    for (const ShmPeer& p : peers_) {
      if (!p.tx.attached() || p.gone || p.tx.consumed()) continue;
      // Gone since (crashed, or finalized): its segment dies with it; the
      // engine hears of it from progress() after the hooks.
      if (::kill(p.address.pid, 0) != 0 && errno == ESRCH) continue;
      if (p.header->state.load(std::memory_order_acquire) == kOwnerCheckpointed)
        return DataLoss("shm: rank " + std::to_string(p.rank) +
                        " released its segment with frames of ours unconsumed (it was checkpointed before "
                        "the drain was complete)");
      waiting += (waiting.empty() ? "" : ", ") + std::to_string(p.rank);
    }
    if (waiting.empty()) return Status::Ok();
    if (coarse_now_ms() >= until)
      return Timeout("shm: not drained: rank(s) " + waiting + " did not consume the frames this rank sent within " +
                     std::to_string(cfg_.checkpoint_wait_ms) + " ms (transport_shm_checkpoint_wait_ms)");
    struct timespec ts{0, 200 * 1000};
    ::nanosleep(&ts, nullptr);
  }
}

// Precondition (transport.h): the crcp drain delivered every frame sent to
// this rank, so our rings are empty; refused otherwise, before anything is
// released, so that the engine can progress and call us again.
Status ShmTransport::on_checkpoint() {
  if (host_ == nullptr) return Internal("shm: on_checkpoint() before init()");
  if (checkpointed_) return Internal("shm: on_checkpoint() twice without continue/restart and connect()");
  if (in_progress_) return Internal("shm: on_checkpoint() from inside progress()");
  if (local_hdr_ == nullptr) return Internal("shm: on_checkpoint() without a segment (init() failed?)");
  std::string pending = inbound_pending();
  if (!pending.empty())
    return Status(Code::kWouldBlock, "shm: not drained: frames from rank(s) " + pending +
                                         " are still in this rank's rings (progress, then checkpoint again)");
  // Our frames in peers' rings live in their memory; they are theirs to
  // consume before their own checkpoint. Waiting for it keeps the hooks
  // symmetric: once every rank is past on_checkpoint, no ring holds a frame.
  LZ_RETURN_IF_ERROR(wait_peers_consumed());
  pending = inbound_pending();  // a peer that sent while we waited broke the drain
  if (!pending.empty())
    return Status(Code::kWouldBlock, "shm: not drained: frames from rank(s) " + pending +
                                         " arrived during the checkpoint (sends were not held)");

  // Tell peers this segment is dead before it goes away (see OwnerState).
  local_hdr_->state.store(kOwnerCheckpointed, std::memory_order_release);
  release_peers();
  release_local();  // unmaps, closes and unlinks the FIFO and the segment
  armed_ = false;
  checkpointed_ = true;
  log::debug("shm: rank %d released its shared memory for a checkpoint (generation %u)", rank_, generation_);
  return Status::Ok();
}

bool ShmTransport::local_ranks_moved() const {
  const uint64_t my_node = host_->peer(rank_).node_id;
  size_t i = 0;
  for (int r = 0; r < host_->size(); ++r) {
    if (host_->peer(r).node_id != my_node) continue;
    if (i == local_ranks_.size() || local_ranks_[i] != r) return true;
    ++i;
  }
  return i != local_ranks_.size();
}

Status ShmTransport::recreate(bool restarted) {
  if (host_ == nullptr) return Internal("shm: continue/restart before init()");
  if (!checkpointed_)
    return Internal(std::string("shm: on_") + (restarted ? "restart" : "continue") +
                    "() without a successful on_checkpoint()");
  if (restarted) {
    // A restored process set: new pids, maybe other hosts. Nothing learned
    // about the old processes holds (a peer seen exiting before the
    // checkpoint was restored with the rest).
    rank_ = host_->rank();
    build_topology();
    setup_single_copy();
    setup_membarrier();
    last_check_ms_ = 0;
    tick_ = 0;
    sweep_stale(cfg_.backing_dir);
  } else if (local_ranks_moved()) {
    // A migration moved ranks onto or off this host (the engine re-read the
    // layout): one ring per local rank, so the segment is laid out anew.
    build_topology();
  }
  if (Status s = create_local(); !s.ok()) {
    release_local();
    return s.with_context(std::string("shm: on_") + (restarted ? "restart" : "continue"));
  }
  return publish();
}

Status ShmTransport::on_continue() { return recreate(false); }
Status ShmTransport::on_restart() { return recreate(true); }

}  // namespace lz::transport::shm
