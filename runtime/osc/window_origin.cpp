// Window, origin side: the operations (MPI_Put ... MPI_Compare_and_swap) as
// messages to the target's agent (wire.h), and the origin's requests.
//
// Data up to kInline bytes travels in the operation's own message (one
// eager frame, the program's buffer free at once); more goes as a message
// of its own from the program's buffer and datatype (the engine's eager or
// rendezvous protocol, single copy where the transport can). A get's or a
// get-accumulate's answer lands by a receive posted into the program's
// buffer before the request leaves. Contiguous puts and gets may instead
// go straight through the transport (window_native.cpp).
#include <cstring>

#include "osc/window.h"
#include "p2p/request.h"

namespace {
// Largest data sent inside the operation's message.
constexpr size_t kInline = 8192;
}  // namespace

using lz::osc::wire::Block;
namespace wire = lz::osc::wire;

lz_mpi_win_s::Request* lz_mpi_win_s::new_request(lz_mpi_request_s::Kind kind, const void* buf, int count,
                                                 const Datatype* dt, int peer, int tag) {
  Request* r = lz::rt::request_pool().get();
  r->kind = kind;
  r->buf = const_cast<void*>(buf);
  r->count = count;
  r->dt = dt;
  if (dt != nullptr) const_cast<Datatype*>(dt)->retain();
  r->comm = comm_;
  r->peer = peer;
  r->tag = tag;
  r->context = comm_->p2p_context();
  return r;
}

int lz_mpi_win_s::next_reply_tag() {
  const int t = reply_tag_;
  reply_tag_ = reply_tag_ == wire::kLastReplyTag ? wire::kFirstReplyTag : reply_tag_ + 1;
  return t;
}

lz_mpi_win_s::Outgoing lz_mpi_win_s::begin_op(wire::Kind kind, int target, MPI_Aint tdisp, int tcount,
                                              const Datatype& tdt) {
  Outgoing out;
  wire::Op& op = out.op;
  op.kind = kind;
  const int64_t disp = static_cast<int64_t>(tdisp) * units_[static_cast<size_t>(target)];
  op.count = static_cast<uint64_t>(tcount);
  op.extent = tdt.extent();
  op.bytes = tdt.size() * static_cast<uint64_t>(tcount);
  lz::dt::Basic b = lz::dt::Basic::kByte;
  if (tdt.homogeneous(&b, nullptr)) op.basic = static_cast<uint8_t>(b);
  const std::vector<lz_datatype_s::Block>* blocks = nullptr;
  if (tdt.is_contiguous()) {
    op.disp = static_cast<uint64_t>(disp + tdt.true_lb());
  } else {
    op.disp = static_cast<uint64_t>(disp);
    blocks = &tdt.blocks();
    op.nblocks = static_cast<uint32_t>(blocks->size());
  }
  // An operation of a fence epoch counts towards the next MPI_Win_fence.
  if (fence_open_ && !in_lock_epoch() && !in_pscw_access() && kind <= wire::kCas) {
    op.flags |= wire::kFlagFence;
    op.epoch = fence_epoch_;
    ++targets_[static_cast<size_t>(target)].fence_ops;
  }
  out.bytes.resize(sizeof(wire::Op) + op.nblocks * sizeof(Block));
  if (blocks != nullptr) {
    auto* bl = reinterpret_cast<Block*>(out.bytes.data() + sizeof(wire::Op));
    for (size_t i = 0; i < blocks->size(); ++i) bl[i] = {(*blocks)[i].offset, (*blocks)[i].length};
  }
  return out;
}

lz::Status lz_mpi_win_s::send_bytes(int target, const void* data, size_t len, int tag, std::shared_ptr<bool> done,
                                    bool control) {
  bool taken = false;
  LZ_RETURN_IF_ERROR(engine_.send_now(comm_, target, tag, comm_->p2p_context(), data, static_cast<int>(len),
                                      &lz::dt::byte_type(), &taken));
  if (taken) {
    if (done) *done = true;
    return lz::Status::Ok();
  }
  LocalOp l;
  l.owned.reset(new char[len ? len : 1]);
  std::memcpy(l.owned.get(), data, len);
  l.req = new_request(lz_mpi_request_s::Kind::kSend, l.owned.get(), static_cast<int>(len), nullptr, target, tag);
  l.target = target;
  l.done = std::move(done);
  l.control = control;
  LZ_RETURN_IF_ERROR(engine_.start_send(l.req));
  local_.push_back(std::move(l));
  return lz::Status::Ok();
}

lz::Status lz_mpi_win_s::send_data(int target, const void* buf, int count, const Datatype& dt,
                                   std::shared_ptr<bool> done) {
  LocalOp l;
  l.req = new_request(lz_mpi_request_s::Kind::kSend, buf, count, &dt, target, wire::kTagData);
  l.target = target;
  l.done = std::move(done);
  LZ_RETURN_IF_ERROR(engine_.start_send(l.req));
  local_.push_back(std::move(l));
  return lz::Status::Ok();
}

lz_mpi_win_s::Request* lz_mpi_win_s::post_reply(int target, void* buf, int count, const Datatype* dt, int tag,
                                                std::shared_ptr<bool> done) {
  LocalOp l;
  l.req = new_request(lz_mpi_request_s::Kind::kRecv, buf, count, dt, target, tag);
  l.target = target;
  l.done = std::move(done);
  engine_.start_recv(l.req).ignore();  // a receive from a rank of the window's communicator starts
  Request* r = l.req;
  local_.push_back(std::move(l));
  return r;
}

lz::Status lz_mpi_win_s::send_op(int target, Outgoing& out, std::shared_ptr<bool> done) {
  if (needs_lock(target)) LZ_RETURN_IF_ERROR(send_lock(target, false));
  // An operation the target answers needs no flush message: the target
  // executes in order, so its answer says this and every earlier operation
  // is done, and wait_local() waits for the answer.
  targets_[static_cast<size_t>(target)].dirty = out.op.reply_tag == 0;
  std::memcpy(out.bytes.data(), &out.op, sizeof(wire::Op));
  return send_bytes(target, out.bytes.data(), out.bytes.size(), wire::kTagOp, std::move(done));
}

lz::Status lz_mpi_win_s::put(const void* origin, int ocount, const Datatype& odt, int target, MPI_Aint tdisp,
                             int tcount, const Datatype& tdt, std::shared_ptr<bool> done) {
  if (const Direct* d = direct(target)) {
    direct_put(*d, origin, ocount, odt, tdisp * units_[static_cast<size_t>(target)], tcount, tdt);
    if (done) *done = true;
    return lz::Status::Ok();
  }
  if (native_rma_ != kNativeOff && odt.is_contiguous() && tdt.is_contiguous() &&
      native_transfer(true, const_cast<char*>(static_cast<const char*>(origin)) + odt.true_lb(),
                      odt.size() * static_cast<size_t>(ocount), target, tdisp, tdt, done))
    return lz::Status::Ok();
  Outgoing out = begin_op(wire::kPut, target, tdisp, tcount, tdt);
  return send_with_data(target, out, origin, ocount, odt, std::move(done));
}

lz::Status lz_mpi_win_s::send_with_data(int target, Outgoing& out, const void* origin, int ocount, const Datatype& odt,
                                        std::shared_ptr<bool> done) {
  const size_t bytes = odt.size() * static_cast<size_t>(ocount);
  if (bytes <= kInline) {
    out.op.flags |= wire::kFlagInline;
    const size_t at = out.bytes.size();
    out.bytes.resize(at + bytes);
    if (bytes != 0) odt.pack(origin, ocount, out.bytes.data() + at);
    return send_op(target, out, std::move(done));
  }
  LZ_RETURN_IF_ERROR(send_op(target, out));
  return send_data(target, origin, ocount, odt, std::move(done));
}

lz::Status lz_mpi_win_s::accumulate(const void* origin, int ocount, const Datatype& odt, int target, MPI_Aint tdisp,
                                    int tcount, const Datatype& tdt, const lz::dt::Op& op, std::shared_ptr<bool> done) {
  if (const Direct* d = direct(target)) {
    direct_accumulate(*d, origin, ocount, odt, nullptr, 0, nullptr, tdisp * units_[static_cast<size_t>(target)], tcount,
                      tdt, op);
    if (done) *done = true;
    return lz::Status::Ok();
  }
  Outgoing out = begin_op(wire::kAcc, target, tdisp, tcount, tdt);
  out.op.op = static_cast<uint8_t>(op.kind());
  if (op.kind() == lz::dt::Op::Kind::kNoOp) {  // nothing changes; still an operation (counted, ordered)
    out.op.flags |= wire::kFlagInline;
    out.op.bytes = 0;
    return send_op(target, out, std::move(done));
  }
  return send_with_data(target, out, origin, ocount, odt, std::move(done));
}

lz::Status lz_mpi_win_s::get(void* origin, int ocount, const Datatype& odt, int target, MPI_Aint tdisp, int tcount,
                             const Datatype& tdt, std::shared_ptr<bool> done) {
  if (const Direct* d = direct(target)) {
    direct_get(*d, origin, ocount, odt, tdisp * units_[static_cast<size_t>(target)], tcount, tdt);
    if (done) *done = true;
    return lz::Status::Ok();
  }
  if (native_rma_ != kNativeOff && odt.is_contiguous() && tdt.is_contiguous() &&
      native_transfer(false, static_cast<char*>(origin) + odt.true_lb(), odt.size() * static_cast<size_t>(ocount),
                      target, tdisp, tdt, done))
    return lz::Status::Ok();
  Outgoing out = begin_op(wire::kGet, target, tdisp, tcount, tdt);
  out.op.reply_tag = static_cast<uint32_t>(next_reply_tag());
  post_reply(target, origin, ocount, &odt, static_cast<int>(out.op.reply_tag), std::move(done));
  return send_op(target, out);
}

lz::Status lz_mpi_win_s::get_accumulate(const void* origin, int ocount, const Datatype& odt, void* result, int rcount,
                                        const Datatype& rdt, int target, MPI_Aint tdisp, int tcount,
                                        const Datatype& tdt, const lz::dt::Op& op, std::shared_ptr<bool> done) {
  if (const Direct* d = direct(target)) {
    direct_accumulate(*d, origin, ocount, odt, result, rcount, &rdt, tdisp * units_[static_cast<size_t>(target)],
                      tcount, tdt, op);
    if (done) *done = true;
    return lz::Status::Ok();
  }
  Outgoing out = begin_op(wire::kGetAcc, target, tdisp, tcount, tdt);
  out.op.op = static_cast<uint8_t>(op.kind());
  out.op.reply_tag = static_cast<uint32_t>(next_reply_tag());
  post_reply(target, result, rcount, &rdt, static_cast<int>(out.op.reply_tag), std::move(done));
  // MPI_NO_OP sends no data (an empty inline part).
  return send_with_data(target, out, origin, op.kind() == lz::dt::Op::Kind::kNoOp ? 0 : ocount, odt, nullptr);
}

lz::Status lz_mpi_win_s::compare_and_swap(const void* origin, const void* compare, void* result, const Datatype& dt,
                                          int target, MPI_Aint tdisp) {
  if (const Direct* d = direct(target)) {
    direct_cas(*d, origin, compare, result, dt, tdisp * units_[static_cast<size_t>(target)]);
    return lz::Status::Ok();
  }
  Outgoing out = begin_op(wire::kCas, target, tdisp, 1, dt);
  out.op.reply_tag = static_cast<uint32_t>(next_reply_tag());
  out.op.flags |= wire::kFlagInline;
  post_reply(target, result, 1, &dt, static_cast<int>(out.op.reply_tag), nullptr);
  const size_t n = dt.size();
  const size_t at = out.bytes.size();
  out.bytes.resize(at + 2 * n);
  dt.pack(origin, 1, out.bytes.data() + at);
  dt.pack(compare, 1, out.bytes.data() + at + n);
  return send_op(target, out);
}

void lz_mpi_win_s::reap_local() {
  size_t kept = 0;
  for (size_t i = 0; i < local_.size(); ++i) {
    LocalOp& l = local_[i];
    if (l.req->complete) {
      if (l.done) *l.done = true;
      if (l.key_reply) take_key(l);
      lz::rt::request_pool().put(l.req);
      continue;
    }
    if (kept != i) local_[kept] = std::move(l);
    ++kept;
  }
  local_.resize(kept);
}

bool lz_mpi_win_s::local_done(int target) const {
  for (const LocalOp& l : local_)
    if ((target < 0 || l.target == target) && !l.req->complete) return false;
  return true;
}

void lz_mpi_win_s::wait_local(int target) {
  engine_.wait_until([&] { return local_done(target); });
  reap_local();
}
