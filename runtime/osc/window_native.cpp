// Window, native puts and gets: an origin writes or reads a target's window
// memory through the transport (Engine::start_rma: ucx, ofi, shm with
// process_vm_writev/_readv), and the target's agent never sees the
// operation. Used where that is both possible and safe:
//   - the transport does it with nothing of the target's process (CMA,
//     the NIC's RDMA: osc_native_rma auto), or the program asked for it
//     wherever the transport can (on): an emulation through the target's
//     progress (UCX 1.13's posix/cma/tcp, libfabric's shm and tcp) costs a
//     small operation more than the message it replaces;
//   - the transport registered the target's memory and the origin holds
//     the target's key of this key generation. Keys are asked for, by a
//     kKeyReq the target's agent answers, the first time access is certain
//     in a generation (that operation itself still goes as a message); a
//     checkpoint's transport hooks start a new generation (every key stale).
//     The answer is a LocalOp: the epoch's end waits for it, so no answer is
//     ever left in flight when MPI_Win_free frees the context;
//   - the data is contiguous on both sides (derived types go to the agent,
//     which unpacks them);
//   - access is certain without asking the target: a fence epoch, a
//     post-start-complete-wait access epoch, or a lock (or lock_all) taken
//     with MPI_MODE_NOCHECK. A lock the target grants lazily (the request
//     goes with the first message) would have to be waited for first;
//     those operations stay messages;
//   - a put or a get, never an accumulate: accumulates must be atomic
//     against each other and against the agent's execution of the others,
//     which a NIC's atomics would not be (they are not atomic against the
//     target CPU's own accumulates), so the agent keeps them all.
// Completion: a native transfer is a LocalOp like a message, whose request
// completes when the bytes are in the target's memory; flush, unlock,
// fence and MPI_Win_complete wait for it as for the others (complete()
// before its kComplete goes: the target's MPI_Win_wait must not return
// before the data landed).
#include <cstring>

#include "lazarus/log.h"
#include "osc/window.h"
#include "p2p/request.h"

namespace wire = lz::osc::wire;

namespace {
// The largest answer to a kKeyReq.
constexpr size_t kKeyAnswer = sizeof(wire::Op) + lz::transport::kMaxRemoteKey;
}  // namespace

void lz_mpi_win_s::ask_key(int target) {
  peer_keys_[static_cast<size_t>(target)].asked = engine_.rma_generation();
  wire::Op op{};
  op.kind = wire::kKeyReq;
  op.reply_tag = static_cast<uint32_t>(next_reply_tag());
  LocalOp l;
  l.owned.reset(new char[kKeyAnswer]);
  l.req = new_request(lz_mpi_request_s::Kind::kRecv, l.owned.get(), static_cast<int>(kKeyAnswer), nullptr, target,
                      static_cast<int>(op.reply_tag));
  l.target = target;
  l.control = true;
  l.key_reply = true;
  engine_.start_recv(l.req).ignore();  // a receive from a rank of the window's communicator starts
  local_.push_back(std::move(l));
  send_bytes(target, &op, sizeof op, wire::kTagOp, nullptr, true).ignore();
}

void lz_mpi_win_s::answer_key(int o, const wire::Op& request) {
  const uint64_t generation = engine_.rma_generation();
  std::string key;
  const int world = comm_->world_rank_of(o);
  const bool wanted = native_rma_ == kNativeOn || (native_rma_ == kNativeAuto && engine_.rma_passive(world));
  const bool reachable = wanted && size_ != 0 && direct(o) == nullptr &&
                         engine_.rma_key(this, world, base_, static_cast<size_t>(size_), &key);
  wire::Op op{};
  op.kind = wire::kKeyReq;
  op.flags = reachable ? wire::kFlagInline : 0;
  op.disp = reinterpret_cast<uintptr_t>(base_);
  op.epoch = static_cast<uint32_t>(generation);
  op.bytes = key.size();
  std::vector<char> bytes(sizeof op + key.size());
  std::memcpy(bytes.data(), &op, sizeof op);
  std::memcpy(bytes.data() + sizeof op, key.data(), key.size());
  reply(o, static_cast<int>(request.reply_tag), std::move(bytes));
}

void lz_mpi_win_s::take_key(const LocalOp& l) {
  wire::Op op;
  const size_t got = l.req->st_bytes;
  if (l.req->st_error != MPI_SUCCESS || got < sizeof op) return;
  std::memcpy(&op, l.owned.get(), sizeof op);
  // An answer made in an earlier generation (before a checkpoint) is stale;
  // one without kFlagInline: the target's transport cannot (asked again
  // next generation). A key may be empty (shm needs none).
  const uint64_t generation = engine_.rma_generation();
  if (op.epoch != static_cast<uint32_t>(generation) || !(op.flags & wire::kFlagInline) || got < sizeof op + op.bytes)
    return;
  PeerKey& k = peer_keys_[static_cast<size_t>(l.target)];
  k.generation = generation;
  k.base = op.disp;
  k.key.assign(l.owned.get() + sizeof op, op.bytes);
  lz::log::debug("osc: rank %d puts and gets to rank %d through the transport (key generation %llu)", rank(), l.target,
                 static_cast<unsigned long long>(generation));
}

bool lz_mpi_win_s::native_transfer(bool put, void* local, size_t bytes, int target, MPI_Aint tdisp,
                                   const Datatype& tdt, std::shared_ptr<bool>& done) {
  if (bytes == 0 || target == rank()) return false;
  const TargetState& t = targets_[static_cast<size_t>(target)];
  // A lock (lock_all locks every target) decides; else an active-target epoch.
  const bool certain = t.lock != kUnlocked ? t.nocheck : in_pscw_access() || fence_open_;
  if (!certain) return false;
  const uint64_t generation = engine_.rma_generation();
  PeerKey& k = peer_keys_[static_cast<size_t>(target)];
  if (k.generation != generation) {
    if (k.asked != generation && engine_.live()) ask_key(target);
    return false;
  }
  const uint64_t remote = k.base + static_cast<uint64_t>(tdisp * units_[static_cast<size_t>(target)] + tdt.true_lb());
  LocalOp l;
  l.req = new_request(put ? lz_mpi_request_s::Kind::kSend : lz_mpi_request_s::Kind::kRecv, local, 0, nullptr, target,
                      0);
  l.target = target;
  l.native = true;
  lz::Status s = engine_.start_rma(l.req, put, comm_->world_rank_of(target), local, bytes, remote, k.key);
  if (!s.ok()) {
    lz::log::debug("osc: a %zu-byte %s rank %d goes as a message: %s", bytes, put ? "put to" : "get from", target,
                   s.message().c_str());
    lz::rt::request_pool().put(l.req);
    return false;
  }
  l.done = std::move(done);
  local_.push_back(std::move(l));
  return true;
}

void lz_mpi_win_s::wait_native(int target) {
  engine_.wait_until([&] {
    for (const LocalOp& l : local_)
      if (l.native && (target < 0 || l.target == target) && !l.req->complete) return false;
    return true;
  });
}
