// UcxTransport, sending: send(), the completion of queued sends, and the
// flushes behind unsent_bytes() (contract in ucx_transport.h).
#include <algorithm>
#include <cstring>
#include <memory>

#include "lazarus/frameworks/transport_iov.h"
#include "lazarus/log.h"
#include "ucx_transport.h"

namespace lz::transport::ucx {

Status UcxTransport::create_gather_dt() {
  ucp_generic_dt_ops_t ops{};
  ops.start_pack = [](void*, const void* buffer, size_t) -> void* { return const_cast<void*>(buffer); };
  ops.packed_size = [](void* state) -> size_t { return static_cast<SendOp*>(state)->bytes; };
  ops.pack = [](void* state, size_t offset, void* dest, size_t max_length) -> size_t {
    const auto* op = static_cast<const SendOp*>(state);
    const size_t n = std::min(max_length, op->bytes - std::min(offset, op->bytes));
    if (op->copy) std::memcpy(dest, op->copy.get() + offset, n);
    else iov_copy_range(op->iov, op->iovcnt, offset, n, dest);
    return n;
  };
  ops.finish = [](void*) {};
  // Frames are received as active messages, never with this datatype.
  ops.start_unpack = [](void*, void*, size_t) -> void* { return nullptr; };
  ops.unpack = [](void*, size_t, const void*, size_t) -> ucs_status_t { return UCS_ERR_UNSUPPORTED; };
  const ucs_status_t st = ucp_dt_create_generic(&ops, nullptr, &gather_dt_);
  if (st == UCS_OK) return Status::Ok();
  gather_dt_ = 0;
  return Internal(std::string("ucx: ucp_dt_create_generic: ") + ucs_status_string(st));
}

void UcxTransport::destroy_gather_dt() {
  if (gather_dt_ != 0) ucp_dt_destroy(gather_dt_);
  gather_dt_ = 0;
}

namespace {

// Frame buffers from this size on are kept for reuse, up to kSpareBuffers.
// 4 MiB ping-pongs over posix (eight 512 KiB frames each way): 5.8 ms with a
// fresh buffer per frame, as fast as with malloc's mmap threshold raised to
// 1 GiB once they are reused (see the commit).
constexpr size_t kPooledFrom = 64 * 1024;
constexpr size_t kSpareBuffers = 16;
// The size of the kept buffers: larger frames (up to max_frame, 8 MiB by
// default) are rare enough to be allocated each time.
constexpr size_t kPoolBytes = 512 * 1024;
// Frames up to this size are first tried as an immediate send from the stack
// (post()); UCX's short protocol over posix takes about 100 bytes less than
// this, over tcp about 8 KiB.
constexpr size_t kImmediateMax = 1024;

}  // namespace

// Inlined into send() and post(): on the 0-byte ping-pong's path, a call
// and its register saves were a tenth of the transport's instructions.
inline __attribute__((always_inline)) ucs_status_t UcxTransport::send_immediate(UcxPeer& p, const FrameHeader& h,
                                                                               const struct iovec* iov, int iovcnt,
                                                                               size_t total) {
  // One piece (the engine's header alone: a 0-byte message) goes from
  // where it is; none or more are gathered on the stack.
  char payload[kImmediateMax];
  const void* data = iovcnt == 1 ? iov[0].iov_base : payload;
  if (iovcnt != 1) iov_gather(iov, iovcnt, payload);
  ucp_request_param_t param;
  param.op_attr_mask = UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
  void* req = ucp_am_send_nbx(p.ep, kAmId, &h, sizeof h, data, total, &param);
  if (UCS_PTR_IS_ERR(req)) return UCS_PTR_STATUS(req);
  if (__builtin_expect(req != nullptr, 0)) finish_immediate(req);
  p.unflushed_bytes += total;
  return UCS_OK;
}

void UcxTransport::finish_immediate(void* req) {
  // Not what FORCE_IMM_CMPL promises; the stack buffers must outlive it.
  while (ucp_request_check_status(req) == UCS_INPROGRESS) ucp_worker_progress(worker_.worker());
  ucp_request_free(req);
}

Status UcxTransport::send(int peer, const struct iovec* iov, int iovcnt) {
  // First the common case, the engine's small frame (its header and maybe
  // a payload) to an active, connected peer: what check_send() and post()
  // would do for it, without their general cases (send_general()).
  UcxPeer* p = peer_at(peer);
  if (__builtin_expect(p != nullptr && (iovcnt == 1 || iovcnt == 2) && p->state == UcxPeer::State::kActive &&
                           p->ep != nullptr && !checkpointed_ && worker_.is_open() &&
                           outstanding_bytes_ < config_.send_queue_limit,
                       1)) {
    const size_t total = iov[0].iov_len + (iovcnt == 2 ? iov[1].iov_len : 0);
    if (total <= kImmediateMax) {
      const FrameHeader h{tag_, static_cast<uint32_t>(rank_), kData, p->next_seq};
      const ucs_status_t st = send_immediate(*p, h, iov, iovcnt, total);
      if (__builtin_expect(st == UCS_OK, 1)) {
        ++p->next_seq;
        return Status::Ok();
      }
      if (st != UCS_ERR_NO_RESOURCE) return send_failed(*p, st);
    }
  }
  return send_general(peer, iov, iovcnt);
}

Status UcxTransport::send_general(int peer, const struct iovec* iov, int iovcnt) {
  size_t total = 0;
  UcxPeer* p = nullptr;
  LZ_RETURN_IF_ERROR(check_send(peer, iov, iovcnt, &total, &p));
  return post(*p, kData, iov, iovcnt);
}

Status UcxTransport::check_send(int peer, const struct iovec* iov, int iovcnt, size_t* out_total, UcxPeer** out) {
  UcxPeer* p = peer_at(peer);
  if (p == nullptr)
    return InvalidArgument("ucx: send to rank " + std::to_string(peer) + ": not a peer of rank " +
                           std::to_string(rank_) + " in a job of " + std::to_string(peers_.size()));
  if (iovcnt < 0 || (iovcnt > 0 && iov == nullptr)) return InvalidArgument("ucx: send with a bad iovec array");
  const size_t total = iov_bytes(iov, iovcnt);
  if (total > config_.max_frame)
    return InvalidArgument("ucx: frame of " + std::to_string(total) + " bytes exceeds max_frame " +
                           std::to_string(config_.max_frame) + " (transport_ucx_max_frame)");
  switch (p->state) {
    case UcxPeer::State::kFailed:
      return Status(Code::kAborted, "ucx: rank " + std::to_string(peer) + " was lost: " + p->failure.message());
    case UcxPeer::State::kFinalized:
      return Status(Code::kAborted, "ucx: rank " + std::to_string(peer) + " has finalized");
    case UcxPeer::State::kNoAddress:
      return Unavailable("ucx: rank " + std::to_string(peer) + " published no ucx address");
    case UcxPeer::State::kSuspended:  // its worker is gone until connect() reads the new one
      return Status(Code::kWouldBlock, "ucx: rank " + std::to_string(peer) + " is checkpointing");
    case UcxPeer::State::kActive: break;
  }
  if (checkpointed_ || !worker_.is_open()) return Status(Code::kWouldBlock, "ucx: checkpointed, not reconnected yet");
  if (outstanding_bytes_ >= config_.send_queue_limit)
    return Status(Code::kWouldBlock, "ucx: send queue full (transport_ucx_send_queue_limit)");
  *out_total = total;
  *out = p;
  return Status::Ok();
}

Status UcxTransport::post(UcxPeer& p, FrameKind kind, const struct iovec* iov, int iovcnt, uint64_t id) {
  LZ_RETURN_IF_ERROR(ensure_ep(p));
  const size_t total = iov_bytes(iov, iovcnt);
  FrameHeader h{tag_, static_cast<uint32_t>(rank_), kind, kind == kData ? p.next_seq : id};
  if (total <= kImmediateMax) {
    // A small frame goes out from the stack when UCX can send it at once,
    // with no SendOp and no heap buffer; otherwise it takes the path below.
    const ucs_status_t st = send_immediate(p, h, iov, iovcnt, total);
    if (st == UCS_OK) {
      if (kind == kData) ++p.next_seq;
      return Status::Ok();
    }
    if (st != UCS_ERR_NO_RESOURCE) return send_failed(p, st);
  }
  std::unique_ptr<SendOp> op = take_op();
  op->peer = &p;
  op->h = h;
  op->bytes = total;
  auto keep_copy = [&] {
    op->copy = take_buffer(total);
    iov_gather(iov, iovcnt, op->copy.get());
  };
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  param.cb.send = &UcxTransport::send_done;
  param.user_data = op.get();
  void* req;
  if (p.shared_memory) {  // packed by UCX from the caller's buffers (SendOp)
    op->iov = iov;
    op->iovcnt = iovcnt;
    param.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
    param.datatype = gather_dt_;
    req = ucp_am_send_nbx(p.ep, kAmId, &op->h, sizeof op->h, op.get(), total, &param);
  } else {
    // Over tcp a contiguous buffer: UCX sends it zero-copy (32 KiB: 6.2 us,
    // where the generic datatype took UCX's rendezvous, 22 us).
    keep_copy();
    req = ucp_am_send_nbx(p.ep, kAmId, &op->h, sizeof op->h, op->copy.get(), total, &param);
  }
  if (UCS_PTR_IS_ERR(req)) {
    give_op(std::move(op));
    return send_failed(p, UCS_PTR_STATUS(req));
  }
  if (kind == kData) ++p.next_seq;
  if (req == nullptr) {  // completed inline: packed already
    p.unflushed_bytes += total;
    give_op(std::move(op));
    return Status::Ok();
  }
  // UCX keeps it (no room yet, fragments, a rendezvous): the caller's
  // buffers are free on return, so UCX packs the rest from a copy.
  if (!op->copy) keep_copy();
  op->iov = nullptr;
  op->iovcnt = 0;
  op->counted = std::max(total + sizeof(FrameHeader), kMinCounted);
  p.inflight_bytes += total;
  outstanding_bytes_ += op->counted;
  ++outstanding_ops_;
  op.release();  // send_done owns it
  return Status::Ok();
}

std::unique_ptr<UcxTransport::SendOp> UcxTransport::take_op() {
  if (spare_ops_.empty()) {
    auto op = std::make_unique<SendOp>();
    op->owner = this;
    return op;
  }
  std::unique_ptr<SendOp> op = std::move(spare_ops_.back());
  spare_ops_.pop_back();
  return op;
}

void UcxTransport::give_op(std::unique_ptr<SendOp> op) {
  if (op->copy) give_buffer(std::move(op->copy), op->bytes);
  op->iov = nullptr;
  op->iovcnt = 0;
  if (spare_ops_.size() < kSpareOps) spare_ops_.push_back(std::move(op));
}

Status UcxTransport::send_failed(UcxPeer& p, ucs_status_t why) {
  const std::string what = "ucx: ucp_am_send_nbx to rank " + std::to_string(p.rank) + ": " + ucs_status_string(why);
  switch (why) {
    case UCS_ERR_ENDPOINT_TIMEOUT:
    case UCS_ERR_CONNECTION_RESET:
    case UCS_ERR_UNREACHABLE:
    case UCS_ERR_REJECTED:
      // The endpoint failed under the peer's death, possibly before its
      // error callback ran: a lost peer (kAborted), reported as such.
      mark_lost(p, Status(Code::kAborted, what));
      return Status(Code::kAborted, what);
    default: return IoError(what);
  }
}

void UcxTransport::send_done(void* request, ucs_status_t status, void* user_data) {
  std::unique_ptr<SendOp> op(static_cast<SendOp*>(user_data));
  UcxTransport& t = *op->owner;
  UcxPeer& p = *op->peer;
  p.inflight_bytes -= op->bytes;
  if (status == UCS_OK) p.unflushed_bytes += op->bytes;
  else log::debug("ucx: a send to rank %d ended with %s", p.rank, ucs_status_string(status));
  t.outstanding_bytes_ -= op->counted;
  --t.outstanding_ops_;
  ++t.events_;
  ucp_request_free(request);
  t.give_op(std::move(op));
}

std::unique_ptr<char[]> UcxTransport::take_buffer(size_t bytes) {
  if (bytes < kPooledFrom || bytes > kPoolBytes) return std::unique_ptr<char[]>(new char[bytes]);
  if (!spare_.empty()) {
    std::unique_ptr<char[]> b = std::move(spare_.back());
    spare_.pop_back();
    return b;
  }
  return std::unique_ptr<char[]>(new char[kPoolBytes]);
}

void UcxTransport::give_buffer(std::unique_ptr<char[]> buf, size_t bytes) {
  if (bytes >= kPooledFrom && bytes <= kPoolBytes && spare_.size() < kSpareBuffers) spare_.push_back(std::move(buf));
}

size_t UcxTransport::unsent_bytes(int peer) const {
  UcxPeer* p = peer_at(peer);
  if (p == nullptr || p->state == UcxPeer::State::kFailed) return 0;
  const size_t n = p->inflight_bytes + p->unflushed_bytes + p->flushing_bytes;
  if (p->unflushed_bytes != 0) p->want_flush = flush_wanted_ = true;  // progress() starts the flush
  return n;
}

void UcxTransport::flush_done(void* request, ucs_status_t status, void* user_data) {
  auto* p = static_cast<UcxPeer*>(user_data);
  if (status != UCS_OK) log::debug("ucx: flush to rank %d ended with %s", p->rank, ucs_status_string(status));
  p->flushing_bytes = 0;
  p->flush_in_flight = false;
  --p->owner->outstanding_ops_;
  ++p->owner->events_;
  ucp_request_free(request);
}

void UcxTransport::start_flushes() {
  flush_wanted_ = false;
  for (auto& pp : peers_) {
    if (!pp || !pp->want_flush) continue;
    UcxPeer& p = *pp;
    p.want_flush = false;
    if (p.flush_in_flight || p.unflushed_bytes == 0 || p.ep == nullptr || p.state == UcxPeer::State::kFailed) continue;
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    param.cb.send = &UcxTransport::flush_done;
    param.user_data = &p;
    p.flushing_bytes = p.unflushed_bytes;
    p.unflushed_bytes = 0;
    void* req = ucp_ep_flush_nbx(p.ep, &param);
    if (req == nullptr || UCS_PTR_IS_ERR(req)) {
      // Done at once; an error is the endpoint's failure, which its error
      // callback reports.
      p.flushing_bytes = 0;
      continue;
    }
    p.flush_in_flight = true;
    ++outstanding_ops_;
  }
}

Status UcxTransport::flush_all(double deadline, const char* why) {
  if (!worker_.is_open()) return Status::Ok();
  // One ucp_ep_flush_nbx per endpoint of a live peer, not ucp_worker_flush_nbx:
  // a worker flush also waits on the endpoint of a peer found dead by its
  // pidfd and force-closed, and did not complete before the deadline (10 s
  // in finalize after PeerKilledMidStream, and a request left in UCX's pool).
  // On the heap: flushes that outlive the deadline still point at it; the
  // last callback frees it then (or the worker's destruction leaks it).
  struct Flushes {
    int pending = 0;
    bool abandoned = false;
    ucs_status_t status = UCS_OK;
  };
  auto* f = new Flushes;
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  param.cb.send = [](void* req, ucs_status_t st, void* ud) {
    auto* ff = static_cast<Flushes*>(ud);
    ucp_request_free(req);
    if (st != UCS_OK && ff->status == UCS_OK) ff->status = st;
    if (--ff->pending == 0 && ff->abandoned) delete ff;
  };
  param.user_data = f;
  for (auto& pp : peers_) {
    if (!pp || pp->ep == nullptr || pp->lost || pp->state == UcxPeer::State::kFailed) continue;
    void* req = ucp_ep_flush_nbx(pp->ep, &param);
    if (UCS_PTR_IS_ERR(req)) {
      if (f->status == UCS_OK) f->status = UCS_PTR_STATUS(req);
    } else if (req != nullptr) {
      ++f->pending;
    }
  }
  while (f->pending != 0 && now_s() < deadline) progress_worker();
  if (f->pending != 0) {
    f->abandoned = true;
    return Timeout(std::string("ucx: ") + why + ": flushing the endpoints took longer than " +
                   std::to_string(config_.checkpoint_timeout) + " s (transport_ucx_checkpoint_timeout); " +
                   "still outstanding: " + outstanding_summary());
  }
  const ucs_status_t st = f->status;
  delete f;
  for (auto& p : peers_)
    if (p) p->unflushed_bytes = 0;
  if (st != UCS_OK) return IoError(std::string("ucx: ") + why + ": flushing an endpoint: " + ucs_status_string(st));
  return Status::Ok();
}

std::string UcxTransport::outstanding_summary() const {
  std::string out;
  for (const auto& p : peers_) {
    if (!p || (p->inflight_bytes == 0 && !p->flush_in_flight)) continue;
    out += (out.empty() ? "" : ", ") + std::to_string(p->inflight_bytes) + " bytes to rank " + std::to_string(p->rank);
  }
  if (std::string rma = rma_summary(); !rma.empty()) out += (out.empty() ? "" : ", ") + rma;
  return out;
}

}  // namespace lz::transport::ucx
