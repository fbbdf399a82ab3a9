// MPI_Cancel: of a posted receive (taken out of matching), and of a send
// whose message has not been matched yet (engine.h: Engine::cancel).
//
// A send is withdrawn in one of two ways. Its frame still queued here
// (the transport had no room, or sends are held) is dropped: nothing left
// the process. An RTS (or a synchronous eager message, or an eager one
// sent by send_zcopy() whose transfer has not ended) already sent waits
// in the receiver's unexpected queue until a receive matches it, and the
// sender waits for a reply (CTS, FIN, ACK) meanwhile; a kCancel asks the
// receiver to take it out. Frames between two ranks arrive in order, so
// the receiver sees the kCancel after the message: either the message is
// still unexpected (withdrawn: no receive can match it afterwards, and no
// reply for it will ever come) or a receive has matched it (then its reply
// is sent or coming, and the transfer ends normally). The kCancelAck says
// which. Until it arrives the request stays incomplete, even when the
// protocol's own end (FIN, ACK, the last fragment sent) comes first, so the
// answer never finds a request already handed back to the program.
#include <cstring>

#include "lazarus/log.h"
#include "p2p/comm.h"
#include "p2p/engine.h"
#include "p2p/engine_detail.h"

namespace lz::rt {

using namespace engine_detail;

bool Engine::cancel(Request* r) {
  if (r->kind == Request::Kind::kSend) return cancel_send(r);
  if (r->kind != Request::Kind::kRecv || r->complete || !r->active) return false;
  MatchQueue* q = queue(r->context);
  if (!q->is_posted(r)) return false;
  q->unpost(r);
  r->st_cancelled = true;
  r->st_bytes = 0;
  complete(r);
  return true;
}

bool Engine::cancel_send(Request* r) {
  // Under a message log the stamps of later messages count this one.
  if (!r->active || r->st_cancelled || r->withdrawing || mlog_ != nullptr) return false;
  if (r->peer == MPI_PROC_NULL || r->world_peer < 0) return false;
  const int world = r->world_peer;
  Peer& p = peers_[static_cast<size_t>(world)];
  const uint64_t id = reinterpret_cast<uintptr_t>(r);
  // From the back: a request completed at once (eager) may have been
  // reused, its earlier message still queued with the same id; frames to a
  // peer leave in order, so the newest one with this id is this request's.
  for (auto it = p.pending.rbegin(); it != p.pending.rend(); ++it) {
    if (it->stream != nullptr || it->bytes.size() < sizeof(wire::Header)) continue;
    wire::Header h;
    std::memcpy(&h, it->bytes.data(), sizeof h);
    if ((h.type != wire::kEager && h.type != wire::kRts) || h.sreq != id) continue;
    p.pending.erase(std::next(it).base());
    if (p.pending.empty()) --pending_peers_;
    r->st_cancelled = true;
    if (!r->complete) {
      remove_waiting(r);
      complete(r);
    }
    return true;
  }
  // A buffered send that went by rendezvous: its transfer is cancelled
  // instead, and the request (complete since the copy) waits for the outcome.
  if (Request* x = r->bsend_xfer) {
    const bool was_complete = r->complete;
    r->complete = false;
    r->withdrawing = true;
    if (cancel_send(x)) return true;  // complete() of x completes r
    r->complete = was_complete;
    r->withdrawing = false;
    return false;
  }
  // Gone out: only a message that waits for its receiver's reply, and has
  // not had one, can be withdrawn.
  if (r->complete || r->remote_req != 0 || !(r->rndv || r->zcopy || r->mode == Request::Mode::kSync)) return false;
  wire::Header h = make_header(wire::kCancel, r->context, r->comm->rank(), r->tag, 0);
  h.sreq = id;
  r->withdrawing = true;
  r->answered = false;
  Status s = send_frame(world, h, nullptr, 0);
  if (!s.ok()) {
    r->withdrawing = false;
    peer_failed(world, s);  // fails r with the peer
  }
  return true;
}

void Engine::deliver_cancel(int world, const wire::Header& h) {
  MatchQueue* q = queue(h.context);
  Unexpected* u = q->withdraw(world, h.sreq);
  const bool withdrawn = u != nullptr;
  if (withdrawn) q->recycle(u);
  // The reply goes out after this progress turn (not from inside the transport).
  Deferred d{};
  d.kind = Deferred::kCtl;
  d.world = world;
  d.type = wire::kCancelAck;
  d.sreq = h.sreq;
  d.addr = withdrawn ? 1 : 0;
  deferred_.push_back(std::move(d));
}

void Engine::deliver_cancel_ack(const wire::Header& h) {
  Request* r = as_request(h.sreq);
  if (r == nullptr || r->kind != Request::Kind::kSend || !r->withdrawing) {
    log::error("p2p: dropped an answer to a cancel no send is waiting for");
    return;
  }
  r->withdrawing = false;
  if (h.rreq == 1) {
    r->st_cancelled = true;
    if (r->zcopy) {
      // Withdrawn, so its receiver had it whole: the transport reads the
      // buffer no more, and its completion finds no request (finish_transfer).
      r->zcopy = false;
      for (TransferOp* op : transfers_)
        if (op->req == r) op->req = nullptr;
    }
    remove_waiting(r);
    complete(r);  // releases a region offered for the receiver's get
  } else if (r->answered) {
    remove_waiting(r);
    complete(r);
  }
  // Otherwise matched and still transferring: it ends as usual.
}

void Engine::send_done(Request* r) {
  if (r->withdrawing) {
    r->answered = true;  // stays on the waiting list: a lost peer still fails it
    return;
  }
  remove_waiting(r);
  complete(r);
}

}  // namespace lz::rt
