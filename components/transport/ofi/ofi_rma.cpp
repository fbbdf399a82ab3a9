// OfiTransport, single copy (kCapGet, kCapPut): the engine's rendezvous reads
// a sender's buffer with libfabric RMA, and one-sided windows (runtime/osc)
// read and write their targets' memory (fi_read, fi_writemsg). init() asks
// the provider for FI_RMA reads and writes first (transport_ofi_rma) and
// falls back to messages only.
// register_memory() registers the buffer for remote reads (fi_mr_reg) and
// packs a key: the owner's endpoint epoch, the region's base address and the
// provider's key (fi_mr_key). get_async() posts an fi_read to the peer,
// completed through the CQ by progress() like a send. The shm provider reads
// a peer on the host with process_vm_readv (CMA); tcp;ofi_rxm asks the owner
// over its connection and gets the bytes back on it (the owner's progress
// serves it).
//
// Keys do not survive the checkpoint hooks: on_checkpoint closes every
// registration with the domain, and every open draws a new random epoch that
// the rank publishes with its address. get_async() refuses a key whose epoch
// is not the one the peer published last (the engine then streams the
// message), so a key from an earlier endpoint is never handed to libfabric,
// where its number could name another region now.
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <cstring>
#include <vector>

#include "lazarus/log.h"
#include "ofi_info.h"
#include "ofi_transport.h"

namespace lz::transport::ofi {
namespace {

// The packed key: fixed size, native byte order (both ends are ranks of one
// job built from one tree; a key never leaves the job).
struct PackedKey {
  uint64_t epoch;  // the owner's endpoint incarnation
  uint64_t base;   // the region's first address in the owner's process
  uint64_t len;    // its length
  uint64_t key;    // fi_mr_key
};

Status read_failed(const OfiOp& op, const std::string& why) {
  return IoError(std::string("ofi: ") + (op.write ? "put" : "get") + " of " + std::to_string(op.bytes) +
                 " bytes, rank " + std::to_string(op.peer) + ", failed: " + why);
}

}  // namespace

Status OfiTransport::register_memory(const void* addr, size_t len, MemoryRegion* out) {
  if (!rma_) return Unimplemented("ofi: provider " + provider_ + " has no FI_RMA reads here");
  if (!fabric_.is_open() || checkpointed_) return Status(Code::kWouldBlock, "ofi: no endpoint (checkpointed)");
  const uint64_t handle = next_region_++;
  fid_mr* mr = nullptr;
  // Without FI_MR_PROV_KEY the key is ours to choose, unique in the domain:
  // the handle is.
  const uint64_t access = FI_REMOTE_READ | (rma_write_ ? FI_REMOTE_WRITE : 0);
  const int rc = fi_mr_reg(fabric_.domain(), addr, len ? len : 1, access, 0, handle, 0, &mr, nullptr);
  if (rc != 0) return IoError("ofi: fi_mr_reg of " + std::to_string(len) + " bytes: " + fi_error_text(rc));
  const PackedKey k{epoch_, reinterpret_cast<uint64_t>(addr), len, fi_mr_key(mr)};
  if (k.key == FI_KEY_NOTAVAIL) {  // a provider wanting FI_MR_RAW, which the hints do not offer
    fi_close(&mr->fid);
    return Unimplemented("ofi: provider " + provider_ + " gives raw keys only (FI_MR_RAW)");
  }
  out->handle = handle;
  out->key.assign(reinterpret_cast<const char*>(&k), sizeof k);
  regions_[handle] = mr;
  return Status::Ok();
}

void OfiTransport::deregister_memory(const MemoryRegion& region) {
  auto it = regions_.find(region.handle);
  if (it == regions_.end()) return;  // closed with its domain by a checkpoint hook
  if (int rc = fi_close(&it->second->fid); rc != 0)
    log::warn("ofi: fi_close(memory region): %s", fi_error_text(rc).c_str());
  regions_.erase(it);
}

void OfiTransport::close_regions() {
  if (!regions_.empty())
    log::debug("ofi: rank %d closes %zu memory region(s) with its domain; their keys are stale", rank_,
               regions_.size());
  for (auto& [handle, mr] : regions_)
    if (int rc = fi_close(&mr->fid); rc != 0) log::warn("ofi: fi_close(memory region): %s", fi_error_text(rc).c_str());
  regions_.clear();
}

Status OfiTransport::get_async(int peer_rank, void* local, size_t len, uint64_t remote, std::string_view key,
                               Completion done) {
  return start_rma(false, peer_rank, local, len, remote, key, done);
}

Status OfiTransport::put_async(int peer_rank, const void* local, size_t len, uint64_t remote, std::string_view key,
                               Completion done) {
  if (!rma_write_) return Unimplemented("ofi: provider " + provider_ + " has no FI_RMA writes here");
  return start_rma(true, peer_rank, const_cast<void*>(local), len, remote, key, done);
}

Status OfiTransport::start_rma(bool write, int peer_rank, void* local, size_t len, uint64_t remote,
                               std::string_view key, Completion done) {
  const char* what = write ? "put" : "get";
  if (!rma_) return Unimplemented("ofi: provider " + provider_ + " has no FI_RMA reads here");
  if (!fabric_.is_open() || checkpointed_) return Status(Code::kWouldBlock, "ofi: no endpoint (checkpointed)");
  OfiPeer* p = peer(peer_rank);
  if (p == nullptr || p->addr == FI_ADDR_NOTAVAIL || p->failed)
    return Unavailable("ofi: rank " + std::to_string(peer_rank) + " is not reachable for a " + what);
  PackedKey k{};
  if (key.size() != sizeof k)
    return InvalidArgument("ofi: a remote key of " + std::to_string(key.size()) + " bytes (expected " +
                           std::to_string(sizeof k) + ")");
  std::memcpy(&k, key.data(), sizeof k);
  if (k.epoch == 0 || k.epoch != p->epoch)
    return Unavailable("ofi: the key of rank " + std::to_string(peer_rank) +
                       " belongs to an endpoint it no longer has");
  if (remote < k.base || len > k.len || remote - k.base > k.len - len)
    return InvalidArgument(std::string("ofi: a ") + what + " of " + std::to_string(len) +
                           " bytes outside the region of rank " + std::to_string(peer_rank));
  if (len == 0) {
    done(Status::Ok());
    return Status::Ok();
  }
  // FI_MR_VIRT_ADDR: the target is the owner's address; otherwise an offset
  // into the region.
  const uint64_t target = (fabric_.mr_mode() & FI_MR_VIRT_ADDR) ? remote : remote - k.base;
  auto op = std::make_unique<OfiOp>(OfiOp::kRead);
  op->peer = peer_rank;
  op->bytes = len;
  op->done = done;
  op->write = write;
  ssize_t rc = 0;
  if (write) {
    // Completed when the bytes are in the target's memory (FI_DELIVERY_COMPLETE),
    // which is what a one-sided flush promises; a provider without it
    // refuses the flag and the window sends the data as a message instead.
    struct iovec iov {
      local, len
    };
    struct fi_rma_iov rma {
      target, len, k.key
    };
    struct fi_msg_rma msg {};
    msg.msg_iov = &iov;
    msg.iov_count = 1;
    msg.addr = p->addr;
    msg.rma_iov = &rma;
    msg.rma_iov_count = 1;
    msg.context = op.get();
    rc = fi_writemsg(fabric_.ep(), &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE);
  } else {
    rc = fi_read(fabric_.ep(), local, len, nullptr, p->addr, target, k.key, op.get());
  }
  if (rc == -FI_EAGAIN) return Status(Code::kWouldBlock, "ofi: the endpoint's transmit queue is full");
  if (rc != 0)
    return IoError(std::string("ofi: ") + (write ? "fi_writemsg" : "fi_read") + " of " + std::to_string(len) +
                   " bytes, rank " + std::to_string(peer_rank) + ": " + fi_error_text(static_cast<int>(rc)));
  OfiOp* raw = op.get();
  reads_.emplace(raw, std::move(op));
  return Status::Ok();
}

void OfiTransport::complete_read(OfiOp* op, bool ok, const std::string& why) {
  auto it = reads_.find(op);
  if (it == reads_.end()) return;
  std::unique_ptr<OfiOp> owned = std::move(it->second);
  reads_.erase(it);
  if (owned->orphaned) {  // its failure was reported already
    --orphaned_reads_;
    return;
  }
  // Our state is consistent before calling out (re-entry rule).
  owned->done(ok ? Status::Ok() : read_failed(*owned, why));
}

void OfiTransport::drop_reads() {
  if (!reads_.empty())
    log::debug("ofi: rank %d drops %zu read(s) still posted with its endpoint", rank_, reads_.size());
  reads_.clear();
  orphaned_reads_ = 0;
}

void OfiTransport::fail_reads(int rank, const Status& why) {
  // A provider need not complete a read from a dead peer: libfabric 1.17's
  // shm reports the failed process_vm_readv as an error completion without
  // its context, so the read would wait for ever. Each read from `rank`
  // fails now; its OfiOp stays in reads_ (orphaned) until a late completion
  // or the endpoint's close, so that no new operation reuses its address
  // while the provider may still name it.
  std::vector<OfiOp*> from;
  for (auto& [raw, op] : reads_)
    if (op->peer == rank && !op->orphaned) from.push_back(raw);
  for (OfiOp* op : from) {
    op->orphaned = true;
    ++orphaned_reads_;
    const Completion done = op->done;
    done(read_failed(*op, why.message()));
  }
}

}  // namespace lz::transport::ofi
