// Completion and failure of requests; the per-peer lists of requests that
// wait for a peer, failed together when that peer is lost.
#include "p2p/engine.h"


#include "lazarus/log.h"
#include "p2p/comm.h"
#include "p2p/engine_detail.h"

namespace lz::rt {

using namespace engine_detail;

void Engine::complete_general(Request* r) {
  if (Request* owner = r->bsend_owner) {  // a buffered send's transfer ends
    r->bsend_owner = nullptr;
    owner->bsend_xfer = nullptr;
    if (owner->withdrawing) {  // its user's request waited for the outcome of a cancel
      owner->withdrawing = false;
      owner->st_cancelled = r->st_cancelled;
      if (owner->st_error == MPI_SUCCESS) owner->st_error = r->st_error;
      complete(owner);
    }
  }
  if (r->region != nullptr) release_region(r);
  if (r->kind == Request::Kind::kSend) r->free_tmp();
  if (r->cr_open) {
    r->cr_open = false;
    --open_recvs_;
  }
  r->complete = true;
  if (__builtin_expect(gate_ != nullptr, 0)) gate_->note_events();
  if (r->user_freed) {
    r->active = false;
    request_pool().put(r);
  }
}

void Engine::fail_request(Request* r, int mpi_error) {
  r->st_error = mpi_error;
  if (r->kind == Request::Kind::kRecv) {
    r->free_tmp();
    r->dest = nullptr;
  }
  complete(r);
}

void Engine::add_waiting(int world, Request* r) {
  Peer& p = peers_[static_cast<size_t>(world)];
  r->prev = nullptr;
  r->next = p.waiting;
  if (p.waiting) p.waiting->prev = r;
  p.waiting = r;
}

void Engine::remove_waiting(Request* r) {
  if (r->world_peer < 0) return;
  Peer& p = peers_[static_cast<size_t>(r->world_peer)];
  if (r->prev) r->prev->next = r->next;
  else if (p.waiting == r) p.waiting = r->next;
  else return;  // not in the list
  if (r->next) r->next->prev = r->prev;
  r->next = r->prev = nullptr;
}

void Engine::peer_failed(int world, const Status& why) { lose_peer(world, why, true); }

void Engine::lose_peer(int world, const Status& why, bool loud) {
  if (world < 0 || world >= peer_count()) return;
  Peer& p = peers_[static_cast<size_t>(world)];
  if (p.failed) return;
  p.failed = true;
  if (loud) log::error("p2p: rank %d is unreachable: %s", world, why.message().c_str());
  else log::debug("p2p: peer %d is gone: %s", world, why.message().c_str());
  if (p.placing != nullptr) {  // the transport writes no more into its buffer, failed below
    p.transport->drop_placement(p.index);
    p.placing = nullptr;
  }
  if (!p.pending.empty()) {
    for (auto& f : p.pending)
      if (f.stream != nullptr) {
        // The stream's request is also on the waiting list; failed below.
      }
    p.pending.clear();
    --pending_peers_;
  }
  for (TransferOp* op : transfers_)
    if (op->world == world) op->req = nullptr;  // failed below; its completion only frees the op
  while (p.waiting != nullptr) {
    Request* r = p.waiting;
    remove_waiting(r);
    fail_request(r, MPI_ERR_PROC_FAILED);
  }
  for (auto& q : queues_) {
    if (!q) continue;
    for (Request* r = q->posted_head(); r != nullptr;) {
      Request* next = r->next;
      if (r->peer >= 0 && r->comm != nullptr && r->comm->world_rank_of(r->peer) == world) {
        q->unpost(r);
        fail_request(r, MPI_ERR_PROC_FAILED);
      }
      r = next;
    }
  }
}

}  // namespace lz::rt
