// UcxTransport, single copy (kCapGet): the engine's rendezvous reads a
// sender's buffer with UCP RMA. register_memory() maps the buffer
// (ucp_mem_map) and packs its remote key (ucp_rkey_pack); get_async()
// unpacks that key on the endpoint to the peer and reads with ucp_get_nbx,
// completing through progress() (UCX moves it by cma on one host, and
// emulates the read over active messages where a transport has no get of its
// own, as tcp here).
//
// Keys do not survive the checkpoint hooks: the context that mapped a region
// is destroyed by on_checkpoint (unmap_regions() first), and a restored
// process has new workers. A key therefore starts with a fingerprint of the
// worker address of its owner at registration; get_async() refuses a key
// whose fingerprint is not that of the peer's current address (the engine
// then streams the message), so a stale key is never handed to UCX.
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

struct UcxTransport::GetOp {
  UcxTransport* owner;
  ucp_rkey_h rkey;
  Completion done;
};

// Whether UCX can read a peer's memory itself: cma (or knem, xpmem) on one
// host, an RDMA transport (rc, dc) anywhere. Otherwise UCP emulates a get
// over active messages, which measured 3-5x slower than the engine streaming
// the message in frames (ping-pong over UCX_TLS=tcp: 256 KiB 224 us against
// Open MPI's 70 us), so the engine is told not to use get there.
bool UcxTransport::native_get(bool local) const {
  auto has = [&](const char* t) {
    const std::string& tls = config_.tls;
    for (size_t at = tls.find(t); at != std::string::npos; at = tls.find(t, at + 1)) {
      const size_t end = at + std::strlen(t);
      if ((at == 0 || tls[at - 1] == ',' || tls[at - 1] == '^') && (end == tls.size() || tls[end] == ','))
        return tls[0] != '^';
    }
    return false;
  };
  if (has("rc") || has("dc") || has("rc_x") || has("dc_x") || has("rc_v")) return true;
  return local && (has("cma") || has("knem") || has("xpmem") || has("sm") || has("all"));
}

Attributes UcxTransport::attributes(int peer) const {
  // Measured here (ping-pong, 2 ranks): 0.63 us and ~15 GB/s at 1 MiB over
  // posix+cma (get by cma); tcp: about 6.2 us.
  const bool local = host_ != nullptr && peer >= 0 && peer < host_->size() &&
                     host_->peer(peer).node_id == host_->peer(rank_).node_id;
  Attributes a;
  a.exclusivity = 30;
  a.latency_us = local ? 0.63 : 6.2;
  a.bandwidth_mbs = local ? 15000 : 2500;
  if (!native_get(local)) a.get_threshold = SIZE_MAX;
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
  out->key.assign(reinterpret_cast<const char*>(&fp), sizeof fp);
  out->key.append(static_cast<const char*>(packed), packed_len);
  ucp_rkey_buffer_release(packed);
  out->handle = next_region_++;
  regions_[out->handle] = memh;
  return Status::Ok();
}

void UcxTransport::deregister_memory(const MemoryRegion& region) {
  auto it = regions_.find(region.handle);
  if (it == regions_.end()) return;  // unmapped with its context by a checkpoint hook
  if (worker_.is_open()) ucp_mem_unmap(worker_.context(), it->second);
  regions_.erase(it);
}

void UcxTransport::unmap_regions() {
  if (!regions_.empty())
    log::debug("ucx: rank %d unmaps %zu region(s) with its context; their keys are stale", rank_, regions_.size());
  for (auto& [handle, memh] : regions_) ucp_mem_unmap(worker_.context(), memh);
  regions_.clear();
}

Status UcxTransport::get_async(int peer, void* local, size_t len, uint64_t remote, std::string_view key,
                               Completion done) {
  if (!worker_.is_open() || checkpointed_) return Status(Code::kWouldBlock, "ucx: no worker (checkpointed)");
  UcxPeer* p = peer_at(peer);
  if (p == nullptr || p->state != UcxPeer::State::kActive)
    return Unavailable("ucx: rank " + std::to_string(peer) + " is not reachable for a get");
  uint64_t fp = 0;
  if (key.size() <= sizeof fp) return InvalidArgument("ucx: a remote key of " + std::to_string(key.size()) + " bytes");
  std::memcpy(&fp, key.data(), sizeof fp);
  if (fp != fingerprint(p->address))
    return Unavailable("ucx: the key of rank " + std::to_string(peer) + " belongs to a worker it no longer has");
  LZ_RETURN_IF_ERROR(ensure_ep(*p));
  ucp_rkey_h rkey = nullptr;
  ucs_status_t st = ucp_ep_rkey_unpack(p->ep, key.data() + sizeof fp, &rkey);
  if (st != UCS_OK) return IoError(std::string("ucx: ucp_ep_rkey_unpack: ") + ucs_status_string(st));
  auto* op = new GetOp{this, rkey, done};
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
  return Status::Ok();
}

void UcxTransport::get_done(void* request, ucs_status_t status, void* user_data) {
  auto* op = static_cast<GetOp*>(user_data);
  UcxTransport& t = *op->owner;
  --t.outstanding_ops_;
  ++t.events_;
  ucp_rkey_destroy(op->rkey);
  ucp_request_free(request);
  const Completion done = op->done;
  delete op;
  done(status == UCS_OK ? Status::Ok() : IoError(std::string("ucx: get: ") + ucs_status_string(status)));
}

}  // namespace lz::transport::ucx
