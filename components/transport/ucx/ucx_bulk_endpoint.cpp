// UcxTransport, the bulk endpoint: a second endpoint to a peer, made without
// UCX error handling, on which pulls (ucx_rma.cpp) and head frames
// (ucx_head_frame.cpp) travel, because only there UCX 1.13 sends a
// rendezvous over tcp zero-copy. The reader of those bytes always makes it,
// the puller for its kGetReq, the receiver of head frames when the first one
// comes (on p.ep), and the other side answers on its own end of it: UCX's
// reply endpoint, which UCX made when the wireup request came.
//
// That end must not be destroyed with its wireup reply still pending: UCX
// 1.13 asserts in ucp_worker_destroy then ("got REP message", from
// ucp_request_send_state_ff; mpi.errors.np4.ucx_tcp in CI, 1 run in 60 by
// hand), and UCX's code purges it the same way when its connection fails,
// as it would if the maker exited first (not seen). So the receiver and the
// sender of head frames shake hands:
//   - the receiver sends kBulkHello on its new endpoint (UCP_AM_SEND_FLAG_REPLY),
//     which hands the sender its end of it (p.bulk_reply);
//   - the sender answers kBulkAck on that end, queued behind UCX's wireup
//     reply on it, so its completion means the reply went;
//   - before either releases its worker (finalize, on_checkpoint), settle_bulk()
//     waits for its half: the sender for every hello its head frames on p.ep
//     asked for (p.hello_due) and for its acks in flight; the receiver for
//     the ack to its hello. kBye and kCheckpoint say whether their sender
//     sent us a hello (FrameHeader::seq, kSaidHello), so a sender whose
//     head frames made none waits no longer.
// A lost peer ends both waits; the deadline is transport_ucx_checkpoint_timeout.
// A pull needs none of this: the owner's answer goes on its reply endpoint
// behind the wireup reply, and the pull ends only when the answer came.
#include "lazarus/log.h"
#include "ucx_transport.h"

namespace lz::transport::ucx {

// kBulkHello or kBulkAck in flight: counted in outstanding_ops_ while its
// peer holds it in `slot` (fail_bulk_sends() abandons it: peer null).
struct UcxTransport::ControlOp {
  UcxTransport* owner;
  UcxPeer* peer;
  void* UcxPeer::*slot;
  FrameHeader h;
};

Status UcxTransport::ensure_bulk_ep(UcxPeer& p) {
  if (p.bulk_ep != nullptr) return Status::Ok();
  // The main endpoint first, on both sides: UCP pairs a new endpoint with
  // the peer's endpoint of the same creation rank (its connection sequence
  // number). A bulk endpoint made first took the number of the peer's main
  // one, and UCP, refusing the mixed error handling (ucp_ep_adjust_params),
  // destroyed that endpoint with a rendezvous under way on it: an assertion
  // in ucp_ep_destroy_base in every ring run over UCX's tcp.
  LZ_RETURN_IF_ERROR(ensure_ep(p));
  ucp_ep_params_t ep{};
  ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
  ep.address = reinterpret_cast<const ucp_address_t*>(p.address.data());
  ep.err_mode = UCP_ERR_HANDLING_MODE_NONE;
  const ucs_status_t st = ucp_ep_create(worker_.worker(), &ep, &p.bulk_ep);
  if (st == UCS_OK) return Status::Ok();
  p.bulk_ep = nullptr;
  return Unavailable("ucx: ucp_ep_create (bulk endpoint) to rank " + std::to_string(p.rank) + ": " +
                     ucs_status_string(st));
}

bool UcxTransport::send_control(UcxPeer& p, ucp_ep_h ep, FrameKind kind, void* UcxPeer::*slot) {
  auto* op = new ControlOp{this, &p, slot, FrameHeader{tag_, static_cast<uint32_t>(rank_), kind, 0}};
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
  param.flags = kind == kBulkHello ? UCP_AM_SEND_FLAG_REPLY : 0;  // what the peer keeps: its end of `ep`
  param.cb.send = [](void* req, ucs_status_t, void* arg) {
    auto* c = static_cast<ControlOp*>(arg);
    if (c->peer != nullptr) {  // not abandoned
      c->peer->*c->slot = nullptr;
      --c->owner->outstanding_ops_;
      ++c->owner->events_;
    }
    delete c;
    ucp_request_free(req);
  };
  param.user_data = op;
  void* req = ucp_am_send_nbx(ep, kAmId, &op->h, sizeof op->h, nullptr, 0, &param);
  if (req == nullptr || UCS_PTR_IS_ERR(req)) {
    if (UCS_PTR_IS_ERR(req))
      log::debug("ucx: sending frame kind %u to rank %d: %s", kind, p.rank, ucs_status_string(UCS_PTR_STATUS(req)));
    delete op;
    return !UCS_PTR_IS_ERR(req);
  }
  p.*slot = op;
  ++outstanding_ops_;
  return true;
}

void UcxTransport::abandon_control(UcxPeer& p, void* UcxPeer::*slot) {
  if (p.*slot == nullptr) return;
  static_cast<ControlOp*>(p.*slot)->peer = nullptr;  // its callback only frees it
  p.*slot = nullptr;
  --outstanding_ops_;
}

void UcxTransport::send_hello(UcxPeer& p) {
  if (Status s = ensure_bulk_ep(p); !s.ok()) {
    log::debug("%s", s.to_string().c_str());  // head frames from it keep coming on its endpoint
    return;
  }
  p.hello_sent = send_control(p, p.bulk_ep, kBulkHello, &UcxPeer::hello_op);
  log::debug("ucx: rank %d made a bulk endpoint to rank %d for its head frames (hello %s)", rank_, p.rank,
             p.hello_sent ? "sent" : "refused");
}

void UcxTransport::take_hello(UcxPeer& p, ucp_ep_h reply_ep) {
  p.hello_due = false;
  if (reply_ep == nullptr || p.lost) return;
  p.bulk_reply = reply_ep;
  // From inside the AM handler, as serve_pull() answers: a send is allowed
  // there (a progress is not).
  send_control(p, reply_ep, kBulkAck, &UcxPeer::ack_op);
}

bool UcxTransport::bulk_unsettled(const UcxPeer& p) const {
  if (p.lost || p.state == UcxPeer::State::kFailed) return false;
  return p.hello_due || p.ack_op != nullptr || p.hello_op != nullptr || (p.hello_sent && !p.bulk_acked);
}

void UcxTransport::settle_bulk(double deadline) {
  auto unsettled = [&] {
    for (const auto& p : peers_)
      if (p && bulk_unsettled(*p)) return true;
    return false;
  };
  while (unsettled() && now_s() < deadline) {
    progress_worker();
    if (any_local_) check_waitset();  // a local peer that died says so only there
  }
  for (const auto& p : peers_)
    if (p && bulk_unsettled(*p))
      log::debug("ucx: the bulk endpoint with rank %d is not settled (hello due %d, ack in flight %d, "
                 "hello in flight %d, acked %d): its wireup may be pending",
                 p->rank, p->hello_due, p->ack_op != nullptr, p->hello_op != nullptr, p->bulk_acked);
}

}  // namespace lz::transport::ucx
