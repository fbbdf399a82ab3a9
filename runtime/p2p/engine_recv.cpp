// Receiving: posted receives against the unexpected queue, probes and
// cancels, and the frames that arrive (eager data, rendezvous RTS/CTS/data,
// control), matched in order per context.
#include "p2p/engine.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "lazarus/log.h"
#include "p2p/comm.h"
#include "p2p/engine_detail.h"

namespace lz::rt {

using namespace engine_detail;

Status Engine::start_recv(Request* r) {
  if (activate(r)) return Status::Ok();
  open_recv(r);
  if (__builtin_expect(mlog_ != nullptr, 0) && r->peer == MPI_ANY_SOURCE) {
    int forced = -1;
    r->cr_wild = 1 + mlog_->wildcard_posted(r->context, &forced);
    if (forced >= 0) r->peer = forced;  // a replay: the source it matched before the restart
  }
  if (r->peer != MPI_ANY_SOURCE) {
    int world = r->comm->world_rank_of(r->peer);
    r->world_peer = world;
  }
  MatchQueue* q = queue(r->context);
  Unexpected* u = q->find_unexpected(r->peer, r->tag, true);
  if (u != nullptr) {
    receive_unexpected(r, u);
    return Status::Ok();
  }
  if (r->peer != MPI_ANY_SOURCE && peers_[static_cast<size_t>(r->world_peer)].failed) {
    fail_request(r, MPI_ERR_PROC_FAILED);
    return Status::Ok();
  }
  q->post(r);
  return Status::Ok();
}

void Engine::receive_unexpected(Request* r, Unexpected* u) {
  if (u->type == wire::kEager) {
    recv_eager_into(r, u->world_src, u->src, u->tag, u->stamp, u->data.data(), u->length);
    if (u->flags & wire::kFlagSync) send_ctl(u->world_src, wire::kAck, u->sreq, 0);
  } else {
    RndvSource from{u->addr, (u->flags & wire::kFlagGet) != 0, std::string_view(u->data.data(), u->data.size())};
    if (__builtin_expect(mlog_ != nullptr, 0)) note_match(r, u->world_src, u->src, u->tag, u->stamp);
    start_rndv_recv(r, u->world_src, u->src, u->tag, u->length, u->sreq, from);
  }
  queue(r->context)->recycle(u);
}

Unexpected* Engine::take_unexpected(uint32_t ctx, int src, int tag) {
  if (__builtin_expect(mlog_ == nullptr || src != MPI_ANY_SOURCE, 1))
    return queue(ctx)->find_unexpected(src, tag, true);
  auto it = std::find_if(wild_probes_.begin(), wild_probes_.end(),
                         [ctx](const WildProbe& w) { return w.context == ctx; });
  if (it == wild_probes_.end()) {
    WildProbe w;
    w.context = ctx;
    w.wild = 1 + mlog_->wildcard_posted(ctx, &w.forced);
    it = wild_probes_.insert(wild_probes_.end(), w);
  }
  Unexpected* u = queue(ctx)->find_unexpected(it->forced >= 0 ? it->forced : src, tag, true);
  if (u != nullptr) {
    mlog_->wildcard_matched(it->wild - 1, u->src);
    wild_probes_.erase(it);
  }
  return u;
}

void Engine::open_recv(Request* r) {
  r->cr_open = true;
  ++open_recvs_;
  r->cr_late = false;
  r->cr_wild = 0;
  r->bytes = packed_bytes(r->dt, r->count);
  r->dest = contiguous(r->dt) ? static_cast<char*>(r->buf) + first_byte(r->dt) : nullptr;
}

void Engine::start_matched_recv(Request* r, Unexpected* u) {
  r->peer = u->src;
  activate(r);  // false: the peer is a rank, not MPI_PROC_NULL
  open_recv(r);  // a wildcard probe's match was noted when it took the message
  r->world_peer = u->world_src;
  receive_unexpected(r, u);
}

bool Engine::iprobe(uint32_t ctx, int src, int tag, Request* probe) {
  Unexpected* u = queue(ctx)->find_unexpected(src, tag, false);
  if (u == nullptr) return false;
  probe->st_source = u->src;
  probe->st_tag = u->tag;
  probe->st_error = MPI_SUCCESS;
  probe->st_cancelled = false;
  probe->st_bytes = u->length;
  return true;
}

namespace {

// A receive matched a message of `len` packed bytes: its status, and how many
// bytes it takes (a longer message is truncated, MPI_ERR_TRUNCATE).
uint64_t accept(Request* r, int src, int tag, uint64_t len) {
  r->st_source = src;
  r->st_tag = tag;
  if (len <= r->bytes) return len;
  r->st_error = MPI_ERR_TRUNCATE;
  return r->bytes;
}

}  // namespace

void Engine::note_match(Request* r, int world, int src, int tag, uint64_t stamp) {
  if (r->cr_wild != 0) mlog_->wildcard_matched(r->cr_wild - 1, src);
  r->cr_stamp = stamp;
  r->cr_late = mlog_->on_match({world, r->context, src, tag, stamp});
}

void Engine::log_late(Request* r, const char* data, uint64_t bytes) {
  r->cr_late = false;
  mlog_->log_payload({r->world_peer, r->context, r->st_source, r->st_tag, r->cr_stamp}, data, bytes);
}

// Inlined into deliver(), with deliver_eager(): an eager message's whole
// way to its posted receive is one function.
inline __attribute__((always_inline)) void Engine::recv_eager_into(Request* r, int world, int src, int tag,
                                                                    uint64_t stamp, const char* payload,
                                                                    uint64_t len) {
  if (__builtin_expect(mlog_ != nullptr, 0)) note_match(r, world, src, tag, stamp);
  const uint64_t n = accept(r, src, tag, len);
  r->world_peer = world;
  if (n) {
    if (r->dest != nullptr) std::memcpy(r->dest, payload, n);
    else r->dt->unpack(payload, n, r->count, r->buf);
  }
  r->st_bytes = n;
  if (__builtin_expect(r->cr_late, 0)) log_late(r, payload, n);
  complete(r);
}

void Engine::start_rndv_recv(Request* r, int world, int src, int tag, uint64_t length, uint64_t sreq,
                             const RndvSource& from) {
  const uint64_t n = accept(r, src, tag, length);
  r->world_peer = world;
  r->st_bytes = n;
  r->remote_req = sreq;
  r->rndv_total = length;
  r->rndv_done = 0;
  if (r->dest == nullptr) {
    r->tmp = static_cast<char*>(std::malloc(n ? n : 1));
    r->dest = r->tmp;
  }
  Peer& p = peers_[static_cast<size_t>(world)];
  if (world == rank_) {
    if (n) std::memcpy(r->dest, reinterpret_cast<const void*>(static_cast<uintptr_t>(from.addr)), n);
    send_ctl(world, wire::kFin, sreq, 0);
    finish_recv(r);
    return;
  }
  if (from.get_offered && p.has_get && !hold_ && start_get(r, world, from, n)) return;
  add_waiting(world, r);
  send_ctl(world, wire::kCts, sreq, reinterpret_cast<uintptr_t>(r));
}

bool Engine::start_get(Request* r, int world, const RndvSource& from, uint64_t n) {
  Peer& p = peers_[static_cast<size_t>(world)];
  auto* op = new TransferOp{this, r, world, Status::Ok()};
  transfers_.push_back(op);
  add_waiting(world, r);  // a lost peer fails it (and orphans the op)
  Status s = p.transport->get_async(p.index, r->dest, n, from.addr, from.key, transport::Completion{&Engine::transfer_done, op});
  if (s.ok()) return true;
  log::debug("p2p: single-copy get from rank %d not started (%s); streaming instead", world, s.message().c_str());
  remove_waiting(r);
  transfers_.erase(std::find(transfers_.begin(), transfers_.end(), op));
  delete op;
  return false;
}

// Runs inside the transport (progress or get_async itself): only queues.
void Engine::transfer_done(void* arg, const Status& result) {
  auto* op = static_cast<TransferOp*>(arg);
  op->result = result;
  Deferred d{};
  d.kind = Deferred::kTransferDone;
  d.op = op;
  op->engine->deferred_.push_back(std::move(d));
}

void Engine::finish_transfer(TransferOp* op) {
  transfers_.erase(std::find(transfers_.begin(), transfers_.end(), op));
  Request* r = op->req;
  const Status result = op->result;
  const int world = op->world;
  const bool send = op->send;
  const bool rma = op->rma;
  delete op;
  if (r == nullptr) return;  // failed with its peer meanwhile
  if (rma) {
    finish_rma(r, world, result);
    return;
  }
  if (send) {  // a zero-copy eager send
    r->zcopy = false;
    if (result.ok()) {
      send_done(r);  // or, while a cancel is asked, the answer completes it
      return;
    }
    remove_waiting(r);
    log::error("p2p: sending to rank %d failed: %s", world, result.message().c_str());
    fail_request(r, result.code() == Code::kAborted ? MPI_ERR_PROC_FAILED : MPI_ERR_OTHER);
    return;
  }
  remove_waiting(r);
  if (result.ok()) {
    send_ctl(world, wire::kFin, r->remote_req, 0);
    finish_recv(r);
    return;
  }
  log::debug("p2p: single-copy get from rank %d failed (%s); streaming instead", world, result.message().c_str());
  add_waiting(world, r);
  send_ctl(world, wire::kCts, r->remote_req, reinterpret_cast<uintptr_t>(r));
}

void Engine::finish_recv(Request* r) {
  if (__builtin_expect(r->cr_late, 0)) log_late(r, r->tmp != nullptr ? r->tmp : r->dest, r->st_bytes);
  if (r->tmp != nullptr && r->dt != nullptr && r->st_bytes) r->dt->unpack(r->tmp, r->st_bytes, r->count, r->buf);
  r->free_tmp();
  r->dest = nullptr;
  complete(r);
}


void Engine::deliver(int src, const void* data, size_t len) {
  // First the common frame, a well-formed eager message; deliver_frame()
  // takes every other (and says what is wrong with a bad one).
  if (__builtin_expect(len >= sizeof(wire::Header) && src >= 0 && src < peer_count(), 1)) {
    wire::Header h;
    std::memcpy(&h, data, sizeof h);
    if (__builtin_expect(h.version == wire::kVersion && h.type == wire::kEager && h.length == len - sizeof h &&
                             h.context < kMaxContext,
                         1)) {
      Peer& p = peers_[static_cast<size_t>(src)];
      ++p.received.messages;
      p.received.bytes += len;
      deliver_eager(src, h, static_cast<const char*>(data) + sizeof h);
      return;
    }
  }
  deliver_frame(src, data, len);
}

void Engine::deliver_frame(int src, const void* data, size_t len) {
  if (__builtin_expect(len < sizeof(wire::Header) || src < 0 || src >= peer_count(), 0)) {
    log::error("p2p: dropped a %zu-byte frame from rank %d: shorter than the p2p header or from no peer", len, src);
    return;
  }
  wire::Header h;
  std::memcpy(&h, data, sizeof h);
  Peer& p = peers_[static_cast<size_t>(src)];
  if (__builtin_expect(h.type == wire::kMarker, 0) && h.version == wire::kVersion) {
    // Not counted: a marker tells what the counts should be.
    if (len != sizeof h || src < size_) {
      log::error("p2p: dropped a malformed bridge marker from peer %d (%zu bytes)", src, len);
      return;
    }
    // The channel is ordered: the last marker is the peer's newest.
    BridgeMarker& m = p.marker;
    m.gen_in = static_cast<uint32_t>(h.addr >> 32);
    m.echo_in = static_cast<uint32_t>(h.addr);
    m.value_in = {h.sreq, h.rreq};
    return;
  }
  ++p.received.messages;
  p.received.bytes += len;
  if (__builtin_expect(h.version != wire::kVersion, 0)) {
    log::error("p2p: dropped a frame from rank %d with protocol version %u (expected %u)", src, h.version,
               wire::kVersion);
    return;
  }
  const char* payload = static_cast<const char*>(data) + sizeof h;
  const size_t plen = len - sizeof h;
  switch (h.type) {
    case wire::kEager:
      if (h.length != plen || h.context >= kMaxContext) break;
      deliver_eager(src, h, payload);
      return;
    case wire::kRts:
      if (h.context >= kMaxContext || plen > transport::kMaxRemoteKey) break;
      deliver_rts(src, h, payload, plen);
      return;
    case wire::kCts: {
      Request* r = as_request(h.sreq);
      if (r == nullptr || r->kind != Request::Kind::kSend) break;
      r->remote_req = h.rreq;
      deferred_.push_back({Deferred::kCts, src, 0, 0, 0, 0, 0, 0, r, 0});
      return;
    }
    case wire::kFrag: {
      Request* r = as_request(h.rreq);
      if (r == nullptr || r->kind != Request::Kind::kRecv || h.length != plen) break;
      if (h.addr < r->st_bytes) {
        uint64_t n = std::min<uint64_t>(plen, r->st_bytes - h.addr);
        std::memcpy(r->dest + h.addr, payload, n);
      }
      frag_arrived(r, plen);
      return;
    }
    case wire::kFin:
    case wire::kAck: {
      Request* r = as_request(h.sreq);
      if (r == nullptr || r->kind != Request::Kind::kSend) break;
      send_done(r);
      return;
    }
    case wire::kCancel:
      if (h.context >= kMaxContext) break;
      deliver_cancel(src, h);
      return;
    case wire::kCancelAck:
      deliver_cancel_ack(h);
      return;
    case wire::kLineCount:
      if (plen != 0 || src < size_) break;
      if (line_count_handler_) line_count_handler_(src, h.rreq, h.sreq);
      return;
    default:
      break;
  }
  log::error("p2p: dropped a malformed frame from rank %d (type %u, %zu bytes)", src, h.type, len);
}

void Engine::frag_arrived(Request* r, uint64_t bytes) {
  r->rndv_done += bytes;
  if (r->rndv_done >= r->rndv_total) {
    remove_waiting(r);
    finish_recv(r);
  }
}

void* Engine::place(int src, const void* head, size_t len) {
  if (src < 0 || src >= peer_count()) return nullptr;
  Peer& p = peers_[static_cast<size_t>(src)];
  if (p.failed || p.placing != nullptr || len < sizeof(wire::Header)) return nullptr;
  wire::Header h;
  std::memcpy(&h, head, sizeof h);
  if (h.version != wire::kVersion || h.length != len - sizeof h) return nullptr;
  if (h.type == wire::kEager) return place_eager(src, p, h);
  if (h.type != wire::kFrag) return nullptr;
  Request* r = as_request(h.rreq);
  // Only a piece the receive takes whole (a truncated one is clipped by deliver()).
  if (r == nullptr || r->kind != Request::Kind::kRecv || r->dest == nullptr || h.addr > r->st_bytes ||
      h.length > r->st_bytes - h.addr)
    return nullptr;
  p.placing = r;
  return r->dest + h.addr;
}

void* Engine::place_eager(int world, Peer& p, const wire::Header& h) {
  if (h.context >= kMaxContext) return nullptr;
  MatchQueue* q = queue(h.context);
  Request* r = q->find_posted(h.src, h.tag);
  // Only a receive that takes it whole, contiguous; deliver() does the rest.
  if (r == nullptr || r->dest == nullptr || h.length > r->bytes) return nullptr;
  q->unpost(r);
  ++p.messages_received;
  if (__builtin_expect(mlog_ != nullptr, 0)) note_match(r, world, h.src, h.tag, h.rreq);
  r->st_bytes = accept(r, h.src, h.tag, h.length);
  r->world_peer = world;
  add_waiting(world, r);  // a lost peer fails it
  p.placing = r;
  return r->dest;
}

void Engine::deliver_placed(int src, const void* head, size_t len) {
  if (src < 0 || src >= peer_count()) return;
  Peer& p = peers_[static_cast<size_t>(src)];
  Request* r = std::exchange(p.placing, nullptr);
  ++p.received.messages;
  p.received.bytes += len;
  wire::Header h;
  std::memcpy(&h, head, sizeof h);
  // A piece names its receive; an eager frame's rreq is its stamp.
  if (r == nullptr || (h.type == wire::kFrag && as_request(h.rreq) != r)) {
    log::error("p2p: rank %d delivered a placed frame of %zu bytes that no placement is waiting for", src, len);
    return;
  }
  if (h.type == wire::kEager) {
    remove_waiting(r);
    if (h.flags & wire::kFlagSync) deferred_.push_back({Deferred::kCtl, src, wire::kAck, 0, 0, 0, h.sreq, 0, nullptr, 0});
    finish_recv(r);
    return;
  }
  frag_arrived(r, h.length);
}

inline __attribute__((always_inline)) void Engine::deliver_eager(int world, const wire::Header& h, const char* payload) {
  ++peers_[static_cast<size_t>(world)].messages_received;
  MatchQueue* q = queue(h.context);
  Request* r = q->match_posted(h.src, h.tag);
  if (r != nullptr) {
    recv_eager_into(r, world, h.src, h.tag, h.rreq, payload, h.length);
    if (h.flags & wire::kFlagSync) deferred_.push_back({Deferred::kCtl, world, wire::kAck, 0, 0, 0, h.sreq, 0, nullptr, 0});
    return;
  }
  park_unexpected(q, world, h, payload, h.length);
}

void Engine::deliver_rts(int world, const wire::Header& h, const char* key, size_t key_len) {
  ++peers_[static_cast<size_t>(world)].messages_received;
  MatchQueue* q = queue(h.context);
  Request* r = q->match_posted(h.src, h.tag);
  if (r != nullptr) {
    Deferred d{Deferred::kRndvStart, world, h.flags, h.src, h.tag, h.length, h.sreq, h.addr, r, h.rreq};
    if (h.flags & wire::kFlagGet) d.key.assign(key, key_len);
    deferred_.push_back(std::move(d));
    return;
  }
  park_unexpected(q, world, h, key, key_len);
}

void Engine::park_unexpected(MatchQueue* q, int world, const wire::Header& h, const char* payload, size_t len) {
  Unexpected* u = q->new_unexpected();
  u->src = h.src;
  u->tag = h.tag;
  u->world_src = world;
  u->type = h.type;
  u->flags = h.flags;
  u->length = h.length;
  u->sreq = h.sreq;
  u->stamp = h.rreq;
  u->addr = h.type == wire::kEager ? 0 : h.addr;
  u->data.assign(payload, payload + len);  // eager: the message; RTS: the remote key
  q->append(u);
}

void Engine::replay(std::vector<crcp::Replayed> messages) {
  // Before anything that arrived already (a peer may send as soon as this
  // process's transports connect): the replayed messages are older, and
  // receives from one source must match them first (non-overtaking). Put at
  // the front in reverse, they keep their own order.
  for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
    crcp::Replayed& m = *it;
    MatchQueue* q = queue(m.m.context);
    Unexpected* u = q->new_unexpected();
    u->src = m.m.src;
    u->tag = m.m.tag;
    u->world_src = m.m.world_src;
    u->type = wire::kEager;
    u->flags = 0;
    u->length = m.payload.size();
    u->sreq = 0;
    u->addr = 0;
    u->stamp = m.m.stamp;
    u->data.assign(m.payload.begin(), m.payload.end());
    q->prepend(u);
  }
}

void Engine::run_deferred() {
  // Index loop: nothing below appends, but keep it robust if it ever does.
  for (size_t i = 0; i < deferred_.size(); ++i) {
    Deferred d = deferred_[i];
    switch (d.kind) {
      case Deferred::kCtl:
        send_ctl(d.world, d.type, d.sreq, d.addr);  // addr: the reply's rreq (kCancelAck's verdict)
        break;
      case Deferred::kRndvStart:
        if (__builtin_expect(mlog_ != nullptr, 0)) note_match(d.req, d.world, d.src, d.tag, d.stamp);
        start_rndv_recv(d.req, d.world, d.src, d.tag, d.length, d.sreq,
                        RndvSource{d.addr, (d.type & wire::kFlagGet) != 0, d.key});
        break;
      case Deferred::kTransferDone:
        finish_transfer(d.op);
        break;
      case Deferred::kCts: {
        Peer& p = peers_[static_cast<size_t>(d.world)];
        if (p.failed) break;
        if (p.pending.empty()) ++pending_peers_;
        PendingFrame f;
        f.stream = d.req;
        d.req->rndv_done = 0;
        p.pending.push_back(std::move(f));
        flush_peer(d.world);
        break;
      }
    }
  }
  deferred_.clear();
}

}  // namespace lz::rt
