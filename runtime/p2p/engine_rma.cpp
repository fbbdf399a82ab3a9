// Engine, one-sided transfers: the window memory a transport reads and
// writes for its peers (rma_key), and the reads and writes themselves
// (start_rma), which complete a request of the window's like a transfer
// (TransferOp) and fail with their peer.
#include <algorithm>

#include "lazarus/log.h"
#include "p2p/engine.h"
#include "p2p/registration_cache.h"

namespace lz::rt {

namespace {
constexpr uint64_t kRmaCaps = transport::kCapPut | transport::kCapGet;
}  // namespace

bool Engine::rma_key(const void* owner, int world, void* addr, size_t len, std::string* key) {
  if (!live_ || world < 0 || world >= peer_count() || world == rank_) return false;
  Peer& p = peers_[static_cast<size_t>(world)];
  if (p.failed || (p.transport->capabilities() & kRmaCaps) != kRmaCaps) return false;
  for (const RmaRegion& r : rma_regions_)
    if (r.owner == owner && r.module == p.transport && r.addr == addr && r.len == len) {
      *key = r.region.key;
      return true;
    }
  RmaRegion r{owner, p.transport, addr, len, {}, false};
  if (registration_cache().areas() != 0) {
    if (auto cached = registration_cache().find(p.transport, addr, len)) {
      r.region = std::move(*cached);
      r.cached = true;
    }
  }
  if (!r.cached) {
    Status s = p.transport->register_memory(addr, len, &r.region);
    if (!s.ok()) {
      log::debug("p2p: registering %zu bytes of a window for rank %d's transport failed (%s); messages instead", len,
                 world, s.message().c_str());
      return false;
    }
  }
  if (r.region.key.size() > transport::kMaxRemoteKey) {
    if (!r.cached) p.transport->deregister_memory(r.region);
    return false;
  }
  *key = r.region.key;
  rma_regions_.push_back(std::move(r));
  return true;
}

void Engine::rma_forget(const void* owner) {
  auto keep = std::remove_if(rma_regions_.begin(), rma_regions_.end(), [&](const RmaRegion& r) {
    if (r.owner != owner) return false;
    if (!r.cached && live_) r.module->deregister_memory(r.region);
    return true;
  });
  rma_regions_.erase(keep, rma_regions_.end());
}

void Engine::rma_drop_all() {
  for (const RmaRegion& r : rma_regions_)
    if (!r.cached) r.module->deregister_memory(r.region);
  rma_regions_.clear();
  ++rma_generation_;
}

Status Engine::start_rma(Request* r, bool put, int world, void* local, size_t len, uint64_t remote,
                         std::string_view key) {
  // Not while a checkpoint holds sends (hold_sends): its wait for the
  // transfers running must not see new ones.
  if (!live_ || hold_) return Status(Code::kWouldBlock, "p2p: a checkpoint holds the transports");
  Peer& p = peers_[static_cast<size_t>(world)];
  if (p.failed) return Unavailable("p2p: rank " + std::to_string(world) + " is lost");
  auto* op = new TransferOp{this, r, world, Status::Ok(), false, true};
  transfers_.push_back(op);
  r->world_peer = world;  // remove_waiting() finds the list by it
  add_waiting(world, r);  // a lost peer fails it (and orphans the op)
  const transport::Completion done{&Engine::transfer_done, op};
  Status s = put ? p.transport->put_async(p.index, local, len, remote, key, done)
                 : p.transport->get_async(p.index, local, len, remote, key, done);
  if (s.ok()) return s;
  remove_waiting(r);
  transfers_.erase(std::find(transfers_.begin(), transfers_.end(), op));
  delete op;
  return s;
}

void Engine::finish_rma(Request* r, int world, const Status& result) {
  remove_waiting(r);
  if (result.ok()) {
    complete(r);
    return;
  }
  log::error("p2p: a one-sided %s rank %d failed: %s", r->kind == Request::Kind::kSend ? "put to" : "get from", world,
             result.message().c_str());
  fail_request(r, result.code() == Code::kAborted ? MPI_ERR_PROC_FAILED : MPI_ERR_OTHER);
}

}  // namespace lz::rt
