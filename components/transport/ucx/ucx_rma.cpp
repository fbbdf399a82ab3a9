// UcxTransport, single copy (kCapGet, kCapPut): the engine's rendezvous reads
// a sender's buffer through get_async(), and one-sided windows (runtime/osc)
// read and write their targets' memory through get_async() and put_async(). register_memory() maps the buffer
// (ucp_mem_map) and packs its remote key (ucp_rkey_pack). get_async() then
// takes one of two ways, by what UCX can do towards that peer:
//   - a native read (one host; rc, dc anywhere): it unpacks the key on the
//     endpoint and reads with ucp_get_nbx. On one host UCX 1.13 does not
//     read by cma: the RMA lanes it picks need short or bcopy operations,
//     which cma lacks, so it serves the get over its shared-memory active
//     messages (ucp_get_req_handler/ucp_get_rep_handler in a profile). That
//     still beats a pull here: 256 KiB and 1 MiB ping-pongs 13.6 and 50 us
//     against 44 and 155;
//   - a pull (tcp, whose UCX 1.13 interface has put_zcopy but no get: UCP
//     would emulate the get over active messages, 3-5x slower than the
//     engine streaming frames): it sends kGetReq naming the region, the
//     address and the length, and the owner answers with the bytes in one
//     active message sent with UCX's own rendezvous (UCP_AM_SEND_FLAG_RNDV),
//     which the reader receives with ucp_am_recv_data_nbx straight into the
//     engine's destination. That is what Open MPI's pml ucx gets from UCX's
//     tagged rendezvous (zero copy on both sides, UCX's put_zcopy over tcp),
//     for one more small frame each way. The owner checks that the range
//     lies inside a region it registered and answers kGetFail otherwise.
//     With transport_ucx_pull_zcopy (the default) the request goes on a
//     second endpoint, p.bulk_ep, made without UCX error handling, and the
//     owner answers on its end of that endpoint (UCP_AM_SEND_FLAG_REPLY).
//     UCX 1.13 sends a rendezvous over tcp zero-copy only on such an
//     endpoint: with error handling it needs UCT_IFACE_FLAG_ERRHANDLE_ZCOPY_BUF,
//     which tcp lacks, and sends the data as active-message fragments the
//     reader copies (a 4 MiB ping-pong spent 10% in memmove). The peer's
//     death is still seen through p.ep and the pidfd; fail_pulls() then
//     ends the pulls itself, since UCX never completes a receive on the
//     bulk endpoint whose sender died.
//   Both complete through progress().
//
// Keys do not survive the checkpoint hooks: the context that mapped a region
// is destroyed by on_checkpoint (unmap_regions() first), and a restored
// process has new workers. A key therefore starts with a fingerprint of the
// worker address of its owner at registration (then the region's handle,
// then UCX's packed key); get_async() refuses a key whose fingerprint is not
// that of the peer's current address (the engine then streams the message),
// so a stale key is never handed to UCX. A pull, a read or a pull being
// served counts as outstanding: on_checkpoint waits for it.
#include <algorithm>
#include <cstring>

#include "lazarus/log.h"
#include "ucx_transport.h"

namespace lz::transport::ucx {
namespace {

// FNV-1a of a worker address: which incarnation of a worker a key belongs to.
uint64_t fingerprint(const std::string& address) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : address) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

// A native read, or a write's endpoint flush (`write`).
struct UcxTransport::GetOp {
  UcxTransport* owner;
  ucp_rkey_h rkey;
  Completion done;
  bool write;
};

// A pull this rank started (the reader's side), by id in pulls_.
struct UcxTransport::PullOp {
  UcxTransport* owner;
  UcxPeer* peer;
  uint64_t id;
  void* local;
  size_t len;
  Completion done;
  bool receiving;  // ucp_am_recv_data_nbx in flight: only its callback frees it
  bool abandoned;  // completed by fail_pulls() while receiving: its callback only frees it
};

namespace {

// A kGetReply being sent (the owner's side): its header must live until
// the send completes.
struct ServeOp {
  UcxTransport* owner;
  FrameHeader header;
};

// Key layout: fingerprint, region handle, UCX's packed remote key.
constexpr size_t kKeyPrefix = 2 * sizeof(uint64_t);

}  // namespace

// Whether ucp_get_nbx is worth it towards a peer: an RDMA transport (rc,
// dc) anywhere, or shared memory on one host (the list names cma, knem,
// xpmem or sm), where UCX 1.13 serves the get over shared-memory active
// messages (see the banner). Over tcp alone the same emulation measured 3-5x
// slower than the engine streaming the message in frames (ping-pong over
// UCX_TLS=tcp: 256 KiB 224 us against Open MPI's 70 us), so get_async()
// pulls instead.
bool UcxTransport::tls_has(const char* t) const {
  const std::string& tls = config_.tls;
  for (size_t at = tls.find(t); at != std::string::npos; at = tls.find(t, at + 1)) {
    const size_t end = at + std::strlen(t);
    if ((at == 0 || tls[at - 1] == ',' || tls[at - 1] == '^') && (end == tls.size() || tls[end] == ','))
      return tls[0] != '^';
  }
  return false;
}

bool UcxTransport::native_get(bool local) const {
  if (tls_has("rc") || tls_has("dc") || tls_has("rc_x") || tls_has("dc_x") || tls_has("rc_v")) return true;
  return local && (tls_has("cma") || tls_has("knem") || tls_has("xpmem") || tls_has("sm") || tls_has("all"));
}

bool UcxTransport::shared_memory(bool local) const {
  return local && (tls_has("posix") || tls_has("sysv") || tls_has("xpmem") || tls_has("sm") || tls_has("all"));
}

bool UcxTransport::is_local(int peer) const {
  return host_ != nullptr && peer >= 0 && peer < host_->size() &&
         host_->peer(peer).node_id == host_->peer(rank_).node_id;
}

Attributes UcxTransport::attributes(int peer) const {
  // Measured here (ping-pong, 2 ranks): 0.63 us and ~15 GB/s at 1 MiB over
  // posix+cma (the get emulated over active messages); tcp: about 6.2 us.
  const bool local = is_local(peer);
  Attributes a;
  a.exclusivity = 30;
  a.latency_us = local ? 0.63 : 6.2;
  a.bandwidth_mbs = local ? 15000 : 2500;
  // rc/dc: UCX's puts and gets are the NIC's. Otherwise (posix, cma, tcp
  // in UCX 1.13) UCX serves them through the target worker's progress.
  a.rma_passive = native_get(false);
  // A pull costs a round trip more than streaming the first frame: below
  // the threshold streaming wins (see pull_threshold).
  if (!native_get(local)) {
    a.get_threshold = config_.pull_threshold;
    // Up to a frame, one rendezvous (UCX's) instead of two: ucx_head_frame.cpp.
    if (config_.zcopy_threshold != 0) {
      a.eager_limit = config_.max_frame;  // the engine takes its header off
      a.zcopy_threshold = config_.zcopy_threshold;
    }
  }
  return a;
}

Status UcxTransport::register_memory(const void* addr, size_t len, MemoryRegion* out) {
  if (!worker_.is_open()) return Status(Code::kWouldBlock, "ucx: no worker (checkpointed)");
  ucp_mem_map_params_t mp{};
  mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
  mp.address = const_cast<void*>(addr);
  mp.length = len ? len : 1;
  ucp_mem_h memh = nullptr;
  ucs_status_t st = ucp_mem_map(worker_.context(), &mp, &memh);
  if (st != UCS_OK) return IoError(std::string("ucx: ucp_mem_map: ") + ucs_status_string(st));
  void* packed = nullptr;
  size_t packed_len = 0;
  st = ucp_rkey_pack(worker_.context(), memh, &packed, &packed_len);
  if (st != UCS_OK) {
    ucp_mem_unmap(worker_.context(), memh);
    return IoError(std::string("ucx: ucp_rkey_pack: ") + ucs_status_string(st));
  }
  const uint64_t fp = fingerprint(worker_.address());
  const uint64_t handle = next_region_++;
  out->key.assign(reinterpret_cast<const char*>(&fp), sizeof fp);
  out->key.append(reinterpret_cast<const char*>(&handle), sizeof handle);
  out->key.append(static_cast<const char*>(packed), packed_len);
  ucp_rkey_buffer_release(packed);
  out->handle = handle;
  regions_[handle] = Region{memh, reinterpret_cast<uintptr_t>(addr), len};
  return Status::Ok();
}

void UcxTransport::deregister_memory(const MemoryRegion& region) {
  auto it = regions_.find(region.handle);
  if (it == regions_.end()) return;  // unmapped with its context by a checkpoint hook
  if (worker_.is_open()) ucp_mem_unmap(worker_.context(), it->second.memh);
  regions_.erase(it);
}

void UcxTransport::unmap_regions() {
  if (!regions_.empty())
    log::debug("ucx: rank %d unmaps %zu region(s) with its context; their keys are stale", rank_, regions_.size());
  for (auto& [handle, r] : regions_) ucp_mem_unmap(worker_.context(), r.memh);
  regions_.clear();
}

Status UcxTransport::rma_target(int peer, std::string_view key, const char* what, UcxPeer** out) {
  if (!worker_.is_open() || checkpointed_) return Status(Code::kWouldBlock, "ucx: no worker (checkpointed)");
  UcxPeer* p = peer_at(peer);
  if (p == nullptr || p->state != UcxPeer::State::kActive)
    return Unavailable("ucx: rank " + std::to_string(peer) + " is not reachable for a " + what);
  uint64_t fp = 0;
  if (key.size() <= kKeyPrefix) return InvalidArgument("ucx: a remote key of " + std::to_string(key.size()) + " bytes");
  std::memcpy(&fp, key.data(), sizeof fp);
  if (fp != fingerprint(p->address))
    return Unavailable("ucx: the key of rank " + std::to_string(peer) + " belongs to a worker it no longer has");
  LZ_RETURN_IF_ERROR(ensure_ep(*p));
  *out = p;
  return Status::Ok();
}

Status UcxTransport::get_async(int peer, void* local, size_t len, uint64_t remote, std::string_view key,
                               Completion done) {
  UcxPeer* p = nullptr;
  LZ_RETURN_IF_ERROR(rma_target(peer, key, "get", &p));
  if (len == 0) {
    done(Status::Ok());
    return Status::Ok();
  }
  uint64_t region = 0;
  std::memcpy(&region, key.data() + sizeof(uint64_t), sizeof region);
  if (!native_get(p->local)) return pull(*p, local, len, remote, region, done);
  ucp_rkey_h rkey = nullptr;
  ucs_status_t st = ucp_ep_rkey_unpack(p->ep, key.data() + kKeyPrefix, &rkey);
  if (st != UCS_OK) return IoError(std::string("ucx: ucp_ep_rkey_unpack: ") + ucs_status_string(st));
  auto* op = new GetOp{this, rkey, done, false};
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  rp.cb.send = &UcxTransport::get_done;
  rp.user_data = op;
  ucs_status_ptr_t req = ucp_get_nbx(p->ep, local, len, remote, rkey, &rp);
  if (UCS_PTR_IS_ERR(req)) {
    ucp_rkey_destroy(rkey);
    delete op;
    return IoError("ucx: ucp_get_nbx from rank " + std::to_string(peer) + ": " +
                   ucs_status_string(UCS_PTR_STATUS(req)));
  }
  if (req == nullptr) {  // done inline
    ucp_rkey_destroy(rkey);
    delete op;
    done(Status::Ok());
    return Status::Ok();
  }
  ++outstanding_ops_;  // on_checkpoint waits for it; arm_wait() keeps the engine progressing
  ++reading_;
  return Status::Ok();
}

void UcxTransport::get_done(void* request, ucs_status_t status, void* user_data) {
  auto* op = static_cast<GetOp*>(user_data);
  UcxTransport& t = *op->owner;
  --t.outstanding_ops_;
  --(op->write ? t.writing_ : t.reading_);
  ++t.events_;
  ucp_rkey_destroy(op->rkey);
  ucp_request_free(request);
  const Completion done = op->done;
  const char* what = op->write ? "ucx: put: " : "ucx: get: ";
  delete op;
  done(status == UCS_OK ? Status::Ok() : IoError(what + std::string(ucs_status_string(status))));
}

// A put is complete for the engine once its bytes are in the peer's memory:
// ucp_put_nbx completes locally (the buffer may be reused), so an endpoint
// flush follows it, and the flush's completion (every operation on the
// endpoint before it is done at the target) is the put's. Over tcp UCX 1.13
// writes with the interface's put_zcopy, which the peer's worker progress
// lands (the engine's or the window's progress thread), never its program.
Status UcxTransport::put_async(int peer, const void* local, size_t len, uint64_t remote, std::string_view key,
                               Completion done) {
  UcxPeer* p = nullptr;
  LZ_RETURN_IF_ERROR(rma_target(peer, key, "put", &p));
  if (len == 0) {
    done(Status::Ok());
    return Status::Ok();
  }
  ucp_rkey_h rkey = nullptr;
  ucs_status_t st = ucp_ep_rkey_unpack(p->ep, key.data() + kKeyPrefix, &rkey);
  if (st != UCS_OK) return IoError(std::string("ucx: ucp_ep_rkey_unpack: ") + ucs_status_string(st));
  ucp_request_param_t rp{};
  ucs_status_ptr_t req = ucp_put_nbx(p->ep, local, len, remote, rkey, &rp);
  if (UCS_PTR_IS_ERR(req)) {
    ucp_rkey_destroy(rkey);
    return IoError("ucx: ucp_put_nbx to rank " + std::to_string(peer) + ": " + ucs_status_string(UCS_PTR_STATUS(req)));
  }
  if (req != nullptr) ucp_request_free(req);  // released by UCX when done; the flush below waits for it
  auto* op = new GetOp{this, rkey, done, true};
  ucp_request_param_t fp{};
  fp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  fp.cb.send = &UcxTransport::get_done;  // the flush completes the put
  fp.user_data = op;
  ucs_status_ptr_t flush = ucp_ep_flush_nbx(p->ep, &fp);
  if (flush == nullptr || UCS_PTR_IS_ERR(flush)) {
    ucp_rkey_destroy(rkey);
    delete op;
    // An error: the put may have left; the caller's fallback sends it again, harmless for a put.
    if (flush != nullptr)
      return IoError("ucx: put to rank " + std::to_string(peer) + ": " + ucs_status_string(UCS_PTR_STATUS(flush)));
    done(Status::Ok());  // flushed inline
    return Status::Ok();
  }
  ++outstanding_ops_;  // on_checkpoint waits for it
  ++writing_;
  return Status::Ok();
}

Status UcxTransport::pull(UcxPeer& p, void* local, size_t len, uint64_t remote, uint64_t region, Completion done) {
  const uint64_t id = next_pull_++;
  auto* op = new PullOp{this, &p, id, local, len, done, false, false};
  const PullRequest rq{region, remote, len};
  const struct iovec iov{const_cast<PullRequest*>(&rq), sizeof rq};
  if (Status s = config_.pull_zcopy ? post_bulk_request(p, id, rq) : post(p, kGetReq, &iov, 1, id); !s.ok()) {
    delete op;
    return s;
  }
  pulls_[id] = op;
  ++outstanding_ops_;
  log::trace("ucx: rank %d pulls %zu bytes from rank %d (pull #%llu)", rank_, len, p.rank,
             static_cast<unsigned long long>(id));
  return Status::Ok();
}

void UcxTransport::serve_pull(UcxPeer& p, uint64_t id, const void* data, size_t length, ucp_ep_h reply) {
  PullRequest rq{};
  const Region* r = nullptr;
  if (length == sizeof rq) {
    std::memcpy(&rq, data, sizeof rq);
    auto it = regions_.find(rq.region);
    if (it != regions_.end() && rq.addr >= it->second.addr && rq.len <= it->second.len &&
        rq.addr - it->second.addr <= it->second.len - rq.len)
      r = &it->second;
  }
  Status s = ensure_ep(p);
  if (reply == nullptr) reply = p.ep;
  if (s.ok() && r == nullptr) {
    // A region deregistered meanwhile (the engine gave up on it), or a
    // request from a confused peer: the reader falls back to streaming.
    log::debug("ucx: rank %d asked rank %d for %llu bytes outside its registered regions", p.rank, rank_,
               static_cast<unsigned long long>(rq.len));
    s = post(p, kGetFail, nullptr, 0, id);
  } else if (s.ok()) {
    auto* op = new ServeOp{this, FrameHeader{tag_, static_cast<uint32_t>(rank_), kGetReply, id}};
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = UCP_AM_SEND_FLAG_RNDV;
    param.cb.send = &UcxTransport::serve_done;
    param.user_data = op;
    void* req = ucp_am_send_nbx(reply, kAmId, &op->header, sizeof op->header,
                                reinterpret_cast<const void*>(static_cast<uintptr_t>(rq.addr)), rq.len, &param);
    if (UCS_PTR_IS_ERR(req)) {
      delete op;
      s = IoError("ucx: answering a pull of rank " + std::to_string(p.rank) + ": " +
                  ucs_status_string(UCS_PTR_STATUS(req)));
    } else if (req == nullptr) {
      delete op;
    } else {
      ++outstanding_ops_;
      ++serving_;
    }
  }
  // The reader learns of a failure with its peer's (the endpoint's error).
  if (!s.ok()) log::debug("%s", s.to_string().c_str());
}

namespace {

// A kGetReq sent on the bulk endpoint: header and request live until it completes.
struct BulkRequest {
  FrameHeader header;
  PullRequest request;
};

void bulk_request_done(void* request, ucs_status_t status, void* user_data) {
  if (status != UCS_OK) log::debug("ucx: a pull request ended with %s", ucs_status_string(status));
  ucp_request_free(request);
  delete static_cast<BulkRequest*>(user_data);
}

}  // namespace

Status UcxTransport::post_bulk_request(UcxPeer& p, uint64_t id, const PullRequest& rq) {
  LZ_RETURN_IF_ERROR(ensure_bulk_ep(p));
  auto* op = new BulkRequest{FrameHeader{tag_, static_cast<uint32_t>(rank_), kGetReq, id}, rq};
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
  param.flags = UCP_AM_SEND_FLAG_REPLY;  // the owner answers on the endpoint this came by
  param.cb.send = &bulk_request_done;
  param.user_data = op;
  void* req = ucp_am_send_nbx(p.bulk_ep, kAmId, &op->header, sizeof op->header, &op->request, sizeof op->request,
                              &param);
  if (UCS_PTR_IS_ERR(req)) {
    delete op;
    return IoError("ucx: asking rank " + std::to_string(p.rank) + " for a pull: " +
                   ucs_status_string(UCS_PTR_STATUS(req)));
  }
  if (req == nullptr) delete op;
  return Status::Ok();
}

void UcxTransport::serve_done(void* request, ucs_status_t status, void* user_data) {
  auto* op = static_cast<ServeOp*>(user_data);
  UcxTransport& t = *op->owner;
  if (status != UCS_OK) log::debug("ucx: answering a pull ended with %s", ucs_status_string(status));
  --t.outstanding_ops_;
  --t.serving_;
  ++t.events_;
  ucp_request_free(request);
  delete op;
}

ucs_status_t UcxTransport::take_pull_reply(UcxPeer& p, uint64_t id, bool failed, void* data, size_t length,
                                           bool rndv) {
  auto it = pulls_.find(id);
  // Not ours (any more): a rendezvous reply dropped completes its sender.
  if (it == pulls_.end() || it->second->peer != &p || it->second->receiving) return UCS_OK;
  PullOp* op = it->second;
  if (failed) {
    finish_pull(op, Unavailable("ucx: rank " + std::to_string(p.rank) + " has no such registered region"));
    return UCS_OK;
  }
  if (length != op->len) {
    finish_pull(op, ProtocolError("ucx: rank " + std::to_string(p.rank) + " answered a pull of " +
                                  std::to_string(op->len) + " bytes with " + std::to_string(length)));
    return UCS_OK;
  }
  if (!rndv) {  // UCX sent it eagerly after all
    std::memcpy(op->local, data, length);
    finish_pull(op, Status::Ok());
    return UCS_OK;
  }
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  rp.cb.recv_am = &UcxTransport::pull_recv_done;
  rp.user_data = op;
  void* req = ucp_am_recv_data_nbx(worker_.worker(), data, op->local, length, &rp);
  if (UCS_PTR_IS_ERR(req)) {
    finish_pull(op, IoError("ucx: receiving a pull from rank " + std::to_string(p.rank) + ": " +
                            ucs_status_string(UCS_PTR_STATUS(req))));
    return UCS_OK;
  }
  if (req == nullptr) finish_pull(op, Status::Ok());
  else op->receiving = true;
  return UCS_INPROGRESS;
}

void UcxTransport::pull_recv_done(void* request, ucs_status_t status, size_t length, void* user_data) {
  (void)length;
  auto* op = static_cast<PullOp*>(user_data);
  ucp_request_free(request);
  if (op->abandoned) {
    auto& a = op->owner->abandoned_;
    a.erase(std::find(a.begin(), a.end(), op));
    delete op;
    return;
  }
  op->receiving = false;
  op->owner->finish_pull(op, status == UCS_OK ? Status::Ok()
                                              : IoError(std::string("ucx: pull: ") + ucs_status_string(status)));
}

void UcxTransport::finish_pull(PullOp* op, const Status& result) {
  pulls_.erase(op->id);
  --outstanding_ops_;
  ++events_;
  const Completion done = op->done;
  if (op->receiving) {
    op->abandoned = true;
    abandoned_.push_back(op);
  } else {
    delete op;
  }
  done(result);
}

void UcxTransport::fail_pulls(UcxPeer& p, const Status& why) {
  // Every pull from `p` ends now, those whose data is being received too:
  // on the bulk endpoint (no error handling) UCX never completes a receive
  // whose sender died (seen with UCX 1.13 over tcp: the reader waited for
  // ever, its 32 MiB request still pending when the worker was destroyed).
  // The caller then closes p's endpoints, the bulk one with the connection
  // the data came by. (`local` is written only by a live owner's put; the
  // owner is dead or unreachable by then.)
  for (auto it = pulls_.begin(); it != pulls_.end();) {
    PullOp* op = it->second;
    ++it;
    if (op->peer == &p) finish_pull(op, why);
  }
}

std::string UcxTransport::rma_summary() const {
  std::string out;
  for (const auto& [id, op] : pulls_)
    out += (out.empty() ? "" : ", ") + std::string("pull #") + std::to_string(id) + " of " + std::to_string(op->len) +
           " bytes from rank " + std::to_string(op->peer->rank) + (op->receiving ? " (receiving)" : " (asked)");
  if (serving_ != 0) out += (out.empty() ? "" : ", ") + std::to_string(serving_) + " pull(s) being answered";
  if (reading_ != 0) out += (out.empty() ? "" : ", ") + std::to_string(reading_) + " read(s)";
  if (writing_ != 0) out += (out.empty() ? "" : ", ") + std::to_string(writing_) + " write(s)";
  return out;
}

void UcxTransport::free_abandoned() {
  for (PullOp* op : abandoned_) delete op;
  abandoned_.clear();
}

}  // namespace lz::transport::ucx
