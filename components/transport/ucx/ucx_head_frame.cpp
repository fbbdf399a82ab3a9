// UcxTransport, head frames: a large frame sent with send_zcopy() goes as one
// active message under UCX's own rendezvous (UCP_AM_SEND_FLAG_RNDV), its first
// bytes (the engine's header, at most kMaxHead) in the AM header beside ours
// (kind kDataHead, ucx_frame.h), the rest straight from the caller's buffers.
// UCX's rendezvous request brings the head; the receiver asks Host::place
// where the rest belongs and has UCX write it there (ucp_am_recv_data_nbx),
// then calls Host::deliver_placed. So a message of the engine's eager size
// costs UCX's rendezvous alone (over tcp: RTS, RTR, the data by put_zcopy,
// ATP), as Open MPI's pml ucx does over UCX's tagged rendezvous, where the
// engine's rendezvous used to run first (RTS, a pull request, then UCX's):
// 256 KiB ping-pongs over tcp take 48 us against 66, Open MPI's 46
// (tests/perf/results/20261127-ucx-head-frames.md).
//
// The engine asks for it through Attributes::zcopy_threshold, given to peers
// whose memory UCX cannot read itself (tcp); where it can (one host), the
// engine's single-copy rendezvous stays faster. A receive not posted yet, a
// frame out of its turn, or a host that does not place: the rest is received
// into the held frame behind its head and delivered in its turn, as a frame
// sent by send() is.
//
// Like the pull replies (ucx_rma.cpp), head frames travel on an endpoint
// without UCX error handling when transport_ucx_pull_zcopy is on, since only
// there UCX 1.13 sends a rendezvous over tcp zero-copy, and on the same one:
// the receiver's bulk endpoint, answered on our end of it. The receiver makes
// it when the first head frame comes (that one, on p.ep, is copied through
// active-message fragments) and says so with kBulkHello, sent with
// UCP_AM_SEND_FLAG_REPLY; its handler keeps UCX's reply endpoint in
// p.bulk_reply. A bulk endpoint of the sender's own, the first design,
// crashed UCX about one ring run in 30 (a NULL receive buffer in its tcp
// put receive, libuct's uct_tcp_ep_progress_put_rx), where pulls, whose
// connection the reader makes, ran 40 of 40; ucx_bulk_endpoint.cpp has the
// order in which endpoints must be made, and the handshake that lets both
// ends release their worker safely. The order of head frames with
// the frames of p.ep is the data frames' seq. UCX never completes a send on
// that endpoint whose receiver died: fail_bulk_sends() completes them with the
// peer's failure when it is reported, and leaves the requests to UCX (freed
// by their callback, or with the worker).
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "lazarus/frameworks/transport_iov.h"
#include "lazarus/log.h"
#include "ucx_transport.h"

namespace lz::transport::ucx {

// A head frame in flight: the AM header must live until UCX completes (1.13
// has no UCP_AM_SEND_FLAG_COPY_HEADER), the caller's buffers are described
// by `iov`.
struct UcxTransport::ZcopyOp {
  UcxTransport* owner;
  UcxPeer* peer;
  size_t bytes;  // frame bytes after the head
  Completion done;
  bool abandoned = false;  // completed by fail_bulk_sends(): UCX's callback only frees it
  size_t header_len = 0;
  char header[sizeof(FrameHeader) + kMaxHead];
  std::vector<ucp_dt_iov_t> iov;
};

Status UcxTransport::send_zcopy(int peer, const struct iovec* iov, int iovcnt, Completion done) {
  size_t total = iov_bytes(iov, iovcnt);
  if (config_.zcopy_threshold == 0 || total < config_.zcopy_threshold || iovcnt < 2 || iov[0].iov_len == 0 ||
      iov[0].iov_len > kMaxHead)
    return Module::send_zcopy(peer, iov, iovcnt, done);  // a copy, complete at once
  UcxPeer* pp = nullptr;
  LZ_RETURN_IF_ERROR(check_send(peer, iov, iovcnt, &total, &pp));
  UcxPeer& p = *pp;
  LZ_RETURN_IF_ERROR(ensure_ep(p));  // watches the peer, bulk endpoint or not
  ucp_ep_h ep = config_.pull_zcopy && p.bulk_reply != nullptr ? p.bulk_reply : p.ep;
  auto op = std::make_unique<ZcopyOp>();
  op->owner = this;
  op->peer = &p;
  op->bytes = total - iov[0].iov_len;
  op->done = done;
  const FrameHeader h{tag_, static_cast<uint32_t>(rank_), kDataHead, p.next_seq};
  std::memcpy(op->header, &h, sizeof h);
  std::memcpy(op->header + sizeof h, iov[0].iov_base, iov[0].iov_len);
  op->header_len = sizeof h + iov[0].iov_len;
  for (int i = 1; i < iovcnt; ++i)
    if (iov[i].iov_len != 0) op->iov.push_back({iov[i].iov_base, iov[i].iov_len});
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
  param.flags = UCP_AM_SEND_FLAG_RNDV;
  param.cb.send = &UcxTransport::zcopy_done;
  param.user_data = op.get();
  const void* buffer = op->iov.data();
  size_t count = op->iov.size();
  if (op->iov.size() == 1) {
    buffer = op->iov[0].buffer;
    count = op->iov[0].length;
  } else {
    param.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
    param.datatype = ucp_dt_make_iov();
  }
  void* req = ucp_am_send_nbx(ep, kAmId, op->header, op->header_len, buffer, count, &param);
  if (UCS_PTR_IS_ERR(req)) return send_failed(p, UCS_PTR_STATUS(req));
  ++p.next_seq;
  // On p.ep it makes its bulk endpoint to us: our end must see its wireup
  // through before our worker goes (settle_bulk).
  if (ep == p.ep && config_.pull_zcopy) p.hello_due = true;
  if (req == nullptr) {  // done already (UCX completed it inline)
    p.unflushed_bytes += op->bytes;
    done(Status::Ok());
    return Status::Ok();
  }
  p.inflight_bytes += op->bytes;
  outstanding_bytes_ += kMinCounted;
  ++outstanding_ops_;
  zcopies_.push_back(op.release());
  return Status::Ok();
}

void UcxTransport::zcopy_done(void* request, ucs_status_t status, void* user_data) {
  std::unique_ptr<ZcopyOp> op(static_cast<ZcopyOp*>(user_data));
  UcxTransport& t = *op->owner;
  ucp_request_free(request);
  t.zcopies_.erase(std::find(t.zcopies_.begin(), t.zcopies_.end(), op.get()));
  if (op->abandoned) return;
  UcxPeer& p = *op->peer;
  p.inflight_bytes -= op->bytes;
  t.outstanding_bytes_ -= kMinCounted;
  --t.outstanding_ops_;
  ++t.events_;
  if (status == UCS_OK) {
    p.unflushed_bytes += op->bytes;
    op->done(Status::Ok());
    return;
  }
  log::debug("ucx: a zero-copy send to rank %d ended with %s", p.rank, ucs_status_string(status));
  const bool gone = p.lost || p.state == UcxPeer::State::kFailed;
  op->done(Status(gone ? Code::kAborted : Code::kIo, "ucx: a send of " + std::to_string(op->bytes) +
                                                              " bytes to rank " + std::to_string(p.rank) +
                                                              " ended with " + ucs_status_string(status)));
}

void UcxTransport::fail_bulk_sends(UcxPeer* p, const Status& why) {
  // Neither may a hello or an ack to a lost peer ever be sent (no error handling).
  for (auto& pp : peers_)
    if (pp && (p == nullptr || pp.get() == p)) {
      abandon_control(*pp, &UcxPeer::hello_op);
      abandon_control(*pp, &UcxPeer::ack_op);
    }
  for (ZcopyOp* op : std::vector<ZcopyOp*>(zcopies_)) {  // done() may send: a copy of the list
    if (op->abandoned || (p != nullptr && op->peer != p)) continue;
    op->abandoned = true;
    op->peer->inflight_bytes -= op->bytes;
    outstanding_bytes_ -= kMinCounted;
    --outstanding_ops_;
    op->done(Status(Code::kAborted, why.message()));
  }
}

void UcxTransport::free_zcopies() {
  for (ZcopyOp* op : zcopies_) delete op;  // all abandoned (close_worker): UCX calls back no more
  zcopies_.clear();
}

ucs_status_t UcxTransport::take_head_frame(UcxPeer& p, uint64_t seq, const char* head, size_t head_len, void* data,
                                           size_t length, bool rndv) {
  HeldFrame& f = p.held[seq];
  if (!rndv) {  // UCX sent it eagerly after all (a user's UCX_RNDV_* settings): joined, in its turn
    f.data.reserve(head_len + length);
    f.data.assign(head, head_len);
    f.data.append(static_cast<const char*>(data), length);
    f.ready = true;
    held_ready_ = true;
    deliver_held(p);
    return UCS_OK;
  }
  f.data.assign(head, head_len);
  if (seq != p.expect_seq && !stashing_) {
    // Its turn comes once the frames before it are in (each on its way: it
    // needs nothing of ours but progress); deliver_held() fetches it then,
    // so that it can still be placed.
    f.desc = data;
    f.rest = length;
    return UCS_INPROGRESS;
  }
  return fetch_head_frame(p, seq, f, data, length);
}

ucs_status_t UcxTransport::fetch_head_frame(UcxPeer& p, uint64_t seq, HeldFrame& f, void* desc, size_t length) {
  const size_t head_len = f.data.size();
  void* dst = nullptr;
  if (seq == p.expect_seq && !stashing_ && head_len == host_->placement_head())
    dst = host_->place(p.rank, f.data.data(), head_len + length);
  if (dst != nullptr) {
    f.placed = head_len + length;
  } else {
    f.data.resize(head_len + length);
    dst = f.data.data() + head_len;
  }
  return fetch(p, seq, desc, dst, length);
}

void UcxTransport::drop_placement(int src) {
  // Only when the peer failed: it writes no more, and its frames are not
  // delivered any more (deliver_held), the placed one included.
  if (UcxPeer* p = peer_at(src))
    for (auto& [seq, f] : p->held)
      if (f.placed != 0 && !f.ready) f.dropped = true;
}

}  // namespace lz::transport::ucx
