// Sending: frames to a peer through its transport, the per-peer queue of
// frames a transport could not take yet (and held sends during a checkpoint),
// and the sender side of the eager and rendezvous protocols.
#include <algorithm>
#include <cstring>

#include "lazarus/log.h"
#include "p2p/bsend_buffer.h"
#include "p2p/comm.h"
#include "p2p/counters.h"
#include "p2p/engine.h"
#include "p2p/engine_detail.h"
#include "p2p/registration_cache.h"

namespace lz::rt {

using namespace engine_detail;

// transmit() and hand_over() are inlined into their callers here:
// send_now(), a 0-byte MPI_Send's whole path in the engine, is then one
// function. What a transport refuses goes to the out-of-line send_refused().
inline __attribute__((always_inline)) Status Engine::transmit(int world, Peer& p, const iovec* iov, int iovcnt,
                                                              size_t bytes) {
  Status s = p.transport->send(p.index, iov, iovcnt);
  if (__builtin_expect(s.ok(), 1)) {
    ++p.sent.messages;
    p.sent.bytes += bytes;
    if (world == rank_) self_dirty_ = true;
  }
  return s;
}

inline __attribute__((always_inline)) Status Engine::hand_over(int world, Peer& p, const wire::Header& h,
                                                               const void* payload, size_t len) {
  struct iovec iov[2];
  iov[0].iov_base = const_cast<wire::Header*>(&h);
  iov[0].iov_len = sizeof h;
  iov[1].iov_base = const_cast<void*>(payload);
  iov[1].iov_len = len;
  Status s = transmit(world, p, iov, len ? 2 : 1, sizeof h + len);
  if (__builtin_expect(s.ok(), 1)) return s;
  return send_refused(world, h, payload, len, std::move(s));
}

Status Engine::send_frame(int world, const wire::Header& h, const void* payload, size_t len) {
  Peer& p = peers_[static_cast<size_t>(world)];
  if (h.type == wire::kEager || h.type == wire::kRts) ++p.messages_sent;
  if (__builtin_expect(!p.pending.empty() || hold_, 0)) return send_refused(world, h, payload, len, Status::Ok());
  return hand_over(world, p, h, payload, len);
}

Status Engine::send_refused(int world, const wire::Header& h, const void* payload, size_t len, Status why) {
  if (!why.ok() && why.code() != Code::kWouldBlock) {
    log::error("p2p: sending to rank %d failed: %s", world, why.message().c_str());
    return why;
  }
  if (peers_[static_cast<size_t>(world)].failed)
    return Status(Code::kAborted, "rank " + std::to_string(world) + " has failed");
  enqueue(world, h, payload, len);
  return Status::Ok();
}

void Engine::enqueue(int world, const wire::Header& h, const void* payload, size_t len) {
  Peer& p = peers_[static_cast<size_t>(world)];
  if (p.pending.empty()) ++pending_peers_;
  PendingFrame f;
  f.bytes.reserve(sizeof h + len);
  f.bytes.append(reinterpret_cast<const char*>(&h), sizeof h);
  if (len) f.bytes.append(static_cast<const char*>(payload), len);
  p.pending.push_back(std::move(f));
}

void Engine::flush_peer(int world) {
  Peer& p = peers_[static_cast<size_t>(world)];
  if (hold_ || p.pending.empty()) return;
  // A full transport stops the flush until the next one; an error fails the peer.
  auto stopped = [&](const Status& s) {
    if (s.ok()) return false;
    if (s.code() != Code::kWouldBlock) {
      log::error("p2p: sending to rank %d failed: %s", world, s.message().c_str());
      peer_failed(world, s);
    }
    return true;
  };
  while (!p.pending.empty()) {
    PendingFrame& f = p.pending.front();
    if (f.stream != nullptr) {
      Request* r = f.stream;
      while (r->rndv_done < r->bytes) {
        uint64_t n = std::min<uint64_t>(p.max_payload, r->bytes - r->rndv_done);
        wire::Header h = make_header(wire::kFrag, r->context, r->comm ? r->comm->rank() : 0, r->tag, n);
        h.sreq = reinterpret_cast<uintptr_t>(r);
        h.rreq = r->remote_req;
        h.addr = r->rndv_done;
        struct iovec iov[2];
        iov[0].iov_base = &h;
        iov[0].iov_len = sizeof h;
        iov[1].iov_base = const_cast<char*>(r->data + r->rndv_done);
        iov[1].iov_len = n;
        if (stopped(transmit(world, p, iov, 2, sizeof h + n))) return;
        r->rndv_done += n;
      }
      p.pending.pop_front();
      send_done(r);
      continue;
    }
    struct iovec iov[1];
    iov[0].iov_base = f.bytes.data();
    iov[0].iov_len = f.bytes.size();
    if (stopped(transmit(world, p, iov, 1, f.bytes.size()))) return;
    p.pending.pop_front();
  }
  --pending_peers_;
}

void Engine::flush_all() {
  for (int w = 0; w < peer_count() && pending_peers_ > 0; ++w)
    if (!peers_[static_cast<size_t>(w)].pending.empty()) flush_peer(w);
}

void Engine::hold_sends(bool hold) {
  hold_ = hold;
  if (!hold) flush_all();
}

void Engine::send_ctl(int world, uint8_t type, uint64_t sreq, uint64_t rreq) {
  wire::Header h = make_header(type, 0, rank_, 0, 0);
  h.sreq = sreq;
  h.rreq = rreq;
  Status s = send_frame(world, h, nullptr, 0);
  if (!s.ok()) peer_failed(world, s);
}

bool Engine::activate(Request* r) {
  r->active = true;
  r->complete = false;
  r->st_error = MPI_SUCCESS;
  r->st_cancelled = false;
  if (r->peer != MPI_PROC_NULL) return false;
  r->st_source = MPI_PROC_NULL;
  r->st_tag = MPI_ANY_TAG;
  r->st_bytes = 0;
  complete(r);
  return true;
}

Status Engine::send_now(const Comm* c, int peer, int tag, uint32_t context, const void* buf, int count,
                        const dt::Datatype* dt, bool* done) {
  // Every condition that would make start_send do more than send_frame.
  *done = false;
  if (peer == MPI_PROC_NULL || !contiguous(dt) || __builtin_expect(mlog_ != nullptr || hold_, 0)) return Status::Ok();
  const int world = c->world_rank_of(peer);
  Peer& p = peers_[static_cast<size_t>(world)];
  const uint64_t bytes = packed_bytes(dt, count);
  if (bytes > p.eager_limit || p.failed || !p.pending.empty() || (p.zcopy_from != 0 && bytes >= p.zcopy_from))
    return Status::Ok();
  *done = true;
  const wire::Header h = make_header(wire::kEager, context, c->rank(), tag, bytes);
  ++p.messages_sent;  // what send_frame() would do, the checks above made
  return hand_over(world, p, h, static_cast<const char*>(buf) + first_byte(dt), bytes);
}

Status Engine::start_send(Request* r) {
  if (activate(r)) return Status::Ok();
  Comm* c = r->comm;
  const int world = c->world_rank_of(r->peer);
  r->world_peer = world;
  r->rndv = r->zcopy = r->withdrawing = r->answered = false;
  r->remote_req = 0;
  if (r->bsend_xfer != nullptr) {  // a persistent buffered send started again
    r->bsend_xfer->bsend_owner = nullptr;
    r->bsend_xfer = nullptr;
  }
  Peer& p = peers_[static_cast<size_t>(world)];
  if (__builtin_expect(p.failed, 0)) {
    fail_request(r, MPI_ERR_PROC_FAILED);
    return Status::Ok();
  }
  const uint64_t bytes = packed_bytes(r->dt, r->count);
  r->bytes = bytes;
  if (contiguous(r->dt)) {
    r->data = static_cast<const char*>(r->buf) + first_byte(r->dt);
  } else {
    r->tmp = static_cast<char*>(std::malloc(bytes ? bytes : 1));
    if (r->tmp == nullptr) return Internal("out of memory packing a message of " + std::to_string(bytes) + " bytes");
    r->dt->pack(r->buf, r->count, r->tmp);
    r->data = r->tmp;
  }
  wire::Header h = make_header(wire::kEager, r->context, c->rank(), r->tag, bytes);
  h.sreq = reinterpret_cast<uintptr_t>(r);
  if (__builtin_expect(mlog_ != nullptr, 0) && !mlog_->stamp_send(world, &h.rreq)) {
    // Delivered before the restart (the receiver's was-early registry).
    r->free_tmp();
    complete(r);
    return Status::Ok();
  }
  if (p.zcopy_from != 0 && bytes >= p.zcopy_from && bytes <= p.eager_limit) {
    // Large eager messages go zero-copy where the transport says so: the
    // request completes when the transport is done with the buffer. A
    // synchronous or buffered one, or one the transport cannot take now,
    // goes by rendezvous: no copy of a frame this large.
    if ((r->mode == Request::Mode::kStandard || r->mode == Request::Mode::kReady) && send_eager_zcopy(r, world, h))
      return Status::Ok();
  } else if (bytes <= p.eager_limit) {
    const bool sync = r->mode == Request::Mode::kSync;
    if (sync) {
      h.flags = wire::kFlagSync;
      add_waiting(world, r);
    }
    Status s = send_frame(world, h, r->data, bytes);
    if (__builtin_expect(!s.ok(), 0)) {
      if (sync) remove_waiting(r);
      fail_request(r, MPI_ERR_OTHER);
      return s;
    }
    if (!sync) complete(r);
    return Status::Ok();
  }

  // Rendezvous. A buffered send copies its data into the attached buffer and
  // completes at once; an internal request carries the transfer.
  Request* xfer = r;
  if (r->mode == Request::Mode::kBuffered) {
    char* copy = bsend_buffer().allocate(bytes);
    if (copy == nullptr) {
      r->free_tmp();
      fail_request(r, MPI_ERR_BUFFER);
      return Status(Code::kInvalidArgument, "MPI_Bsend: the attached buffer has no room for " +
                                                std::to_string(bytes) + " bytes (+MPI_BSEND_OVERHEAD)");
    }
    std::memcpy(copy, r->data, bytes);
    r->free_tmp();
    xfer = request_pool().get();
    xfer->kind = Request::Kind::kSend;
    xfer->comm = c;
    xfer->peer = r->peer;
    xfer->tag = r->tag;
    xfer->context = r->context;
    xfer->world_peer = world;
    xfer->bytes = bytes;
    xfer->tmp = copy;
    xfer->tmp_is_bsend = true;
    xfer->data = copy;
    xfer->active = true;
    xfer->user_freed = true;  // nobody waits on it: released at completion
    xfer->bsend_owner = r;
    r->bsend_xfer = xfer;
    h.sreq = reinterpret_cast<uintptr_t>(xfer);
    complete(r);
  }
  h.type = wire::kRts;
  Counters::bump(counters().rendezvous_sends);
  h.addr = reinterpret_cast<uintptr_t>(xfer->data);
  xfer->rndv = true;
  const std::string* key = nullptr;
  if (world != rank_ && p.has_get && bytes >= p.get_threshold && offer_get(xfer, p)) {
    h.flags |= wire::kFlagGet;
    key = &xfer->region->region.key;
  }
  add_waiting(world, xfer);
  Status s = key ? send_frame(world, h, key->data(), key->size()) : send_frame(world, h, nullptr, 0);
  if (!s.ok()) {
    remove_waiting(xfer);
    fail_request(xfer, MPI_ERR_OTHER);
    return s;
  }
  return Status::Ok();
}

bool Engine::send_eager_zcopy(Request* r, int world, const wire::Header& h) {
  Peer& p = peers_[static_cast<size_t>(world)];
  if (world == rank_ || hold_ || !p.pending.empty()) return false;  // queued frames go first, as copies
  auto* op = new TransferOp{this, r, world, Status::Ok(), true};
  transfers_.push_back(op);
  add_waiting(world, r);  // a lost peer fails it (and orphans the op)
  struct iovec iov[2];
  iov[0].iov_base = const_cast<wire::Header*>(&h);
  iov[0].iov_len = sizeof h;
  iov[1].iov_base = const_cast<char*>(r->data);
  iov[1].iov_len = r->bytes;
  Status s = p.transport->send_zcopy(p.index, iov, 2, transport::Completion{&Engine::transfer_done, op});
  if (s.ok()) {
    r->zcopy = true;
    ++p.messages_sent;
    ++p.sent.messages;
    p.sent.bytes += sizeof h + r->bytes;
    return true;
  }
  remove_waiting(r);
  transfers_.erase(std::find(transfers_.begin(), transfers_.end(), op));
  delete op;
  if (s.code() != Code::kWouldBlock)
    log::debug("p2p: zero-copy send to rank %d not started (%s); going by rendezvous", world, s.message().c_str());
  return false;
}

bool Engine::offer_get(Request* xfer, Peer& p) {
  // The remote key travels in the rendezvous request.
  const auto key_fits = [&p](const transport::MemoryRegion& r) {
    return r.key.size() <= transport::kMaxRemoteKey && sizeof(wire::Header) + r.key.size() <= p.transport->max_frame();
  };
  // MPI_Alloc_mem memory: its area's registration with this transport, made
  // once. Not while a checkpoint is releasing the transports (live_ false):
  // the cache was emptied for it.
  if (registration_cache().areas() != 0 && live_) {
    if (auto region = registration_cache().find(p.transport, xfer->data, xfer->bytes); region && key_fits(*region)) {
      xfer->region = new RegisteredBuffer{p.transport, std::move(*region), true};
      return true;
    }
  }
  auto* rb = new RegisteredBuffer{p.transport, {}};
  Status s = p.transport->register_memory(xfer->data, xfer->bytes, &rb->region);
  if (s.ok() && key_fits(rb->region)) {
    xfer->region = rb;
    return true;
  }
  if (s.ok()) {
    log::debug("p2p: a %zu-byte remote key does not fit a rendezvous request; streaming instead", rb->region.key.size());
    p.transport->deregister_memory(rb->region);
  } else {
    log::debug("p2p: registering %llu bytes for single copy failed (%s); streaming instead",
               static_cast<unsigned long long>(xfer->bytes), s.message().c_str());
  }
  delete rb;
  return false;
}

void Engine::release_region(Request* r) {
  if (!r->region->cached) r->region->module->deregister_memory(r->region->region);
  delete r->region;
  r->region = nullptr;
}

}  // namespace lz::rt
