// Window, target side: the agent takes each origin's messages in order
// (wire.h) and executes them against this rank's memory, one at a time, so
// accumulates are atomic and ordered; an origin waiting for a lock keeps
// its later messages queued without stopping the others.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "lazarus/datatype/basic.h"
#include "osc/target_words.h"
#include "osc/window.h"
#include "p2p/match_queue.h"
#include "p2p/request.h"
#include "p2p/runtime.h"

namespace wire = lz::osc::wire;
using wire::Block;

namespace {
const wire::Op& header(const std::vector<char>& msg) { return *reinterpret_cast<const wire::Op*>(msg.data()); }
const Block* blocks_of(const std::vector<char>& msg) {
  return reinterpret_cast<const Block*>(msg.data() + sizeof(wire::Op));
}
const char* inline_data(const std::vector<char>& msg) {
  return msg.data() + sizeof(wire::Op) + header(msg).nblocks * sizeof(Block);
}
// Whether the origin sends data with `op` (puts and accumulates but MPI_NO_OP).
bool carries_data(const wire::Op& op) {
  if (op.kind == wire::kPut || op.kind == wire::kCas) return true;
  if (op.kind != wire::kAcc && op.kind != wire::kGetAcc) return false;
  return static_cast<lz::dt::Op::Kind>(op.op) != lz::dt::Op::Kind::kNoOp;
}
// [lo, hi): the bytes of the target layout relative to op.disp.
void span(const wire::Op& op, const Block* blocks, int64_t* lo, int64_t* hi) {
  if (op.nblocks == 0) {
    *lo = 0;
    *hi = static_cast<int64_t>(op.bytes);
    return;
  }
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (uint32_t i = 0; i < op.nblocks; ++i) {
    first = std::min(first, blocks[i].offset);
    last = std::max(last, blocks[i].offset + static_cast<int64_t>(blocks[i].length));
  }
  if (op.count == 0) {
    *lo = *hi = 0;
    return;
  }
  const int64_t step = op.extent * static_cast<int64_t>(op.count - 1);
  *lo = first + std::min<int64_t>(0, step);
  *hi = last + std::max<int64_t>(0, step);
}
// An erroneous operation found at the target (the origin could not check
// it: a dynamic window's regions are the target's): the window's default
// handler, MPI_ERRORS_ARE_FATAL, applies here.
[[noreturn]] void fatal(const char* function, int code, const std::string& message) {
  lz::rt::Runtime& rt = lz::rt::runtime();
  const std::string line = std::string(function) + ": rank " + std::to_string(rt.rank()) + ": " + message;
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
  rt.bootstrap().abort(code, line).ignore();
  std::_Exit(code);
}
const char* kind_name(uint8_t k) {
  switch (k) {
    case wire::kPut:
      return "MPI_Put";
    case wire::kGet:
      return "MPI_Get";
    case wire::kAcc:
      return "MPI_Accumulate";
    case wire::kGetAcc:
      return "MPI_Get_accumulate";
    case wire::kCas:
      return "MPI_Compare_and_swap";
    default:
      return "one-sided operation";
  }
}
}  // namespace

void lz_mpi_win_s::take_incoming() {
  const uint32_t ctx = comm_->p2p_context();
  while (lz::rt::Unexpected* u = engine_.take_any(ctx, wire::kTagOp)) {
    const int o = u->src;
    Incoming in;
    in.msg.resize(std::max<size_t>(u->length, sizeof(wire::Op)));
    in.req = new_request(lz_mpi_request_s::Kind::kRecv, in.msg.data(), static_cast<int>(u->length), nullptr, o,
                         wire::kTagOp);
    engine_.start_matched_recv(in.req, u);
    // A post notice is the origin side's, whatever this rank's queue of
    // that rank holds (it may wait for a lock this rank's own epoch keeps).
    if (in.req->complete && header(in.msg).kind == wire::kPost) {
      ++targets_[static_cast<size_t>(o)].posts;
      lz::rt::request_pool().put(in.req);
      continue;
    }
    if (in.req->complete && header(in.msg).kind == wire::kWake) {  // it woke this rank: nothing else to do
      lz::rt::request_pool().put(in.req);
      continue;
    }
    if (in.req->complete && header(in.msg).kind == wire::kFenceCount) {
      take_fence_count(header(in.msg));
      lz::rt::request_pool().put(in.req);
      continue;
    }
    if (in.req->complete && header(in.msg).kind == wire::kKeyReq) {
      answer_key(o, header(in.msg));
      lz::rt::request_pool().put(in.req);
      continue;
    }
    incoming_[static_cast<size_t>(o)].push_back(std::move(in));
  }
}

// A count may belong to the next epoch (its sender left this fence first):
// it is kept by parity, as the operations are.
void lz_mpi_win_s::take_fence_count(const wire::Op& op) {
  ++fence_told_[op.epoch & 1];
  fence_owed_[op.epoch & 1] += static_cast<int>(op.bytes);
}

bool lz_mpi_win_s::run_queue(int o) {
  auto& q = incoming_[static_cast<size_t>(o)];
  bool ran = false;
  while (!q.empty()) {
    Incoming& in = q.front();
    if (!in.req->complete) break;
    const wire::Op& op = header(in.msg);
    if (op.kind == wire::kPost) {
      ++targets_[static_cast<size_t>(o)].posts;
    } else if (op.kind == wire::kWake) {
      // Woke this rank out of a fence barrier: nothing to execute.
    } else if (op.kind == wire::kFenceCount) {
      take_fence_count(op);
    } else if (op.kind == wire::kKeyReq) {
      answer_key(o, op);
    } else {
      // An operation of the next fence epoch waits until this rank's own
      // fence has ended the current one (its operations all executed).
      if ((op.flags & wire::kFlagFence) && op.epoch != fence_epoch_) break;
      // A lock, passive or PSCW operation waits while this rank's fence
      // still executes the epoch's operations: the origin left the fence
      // first, but what the epoch wrote here must be there for it to read
      // (a get under a lock right after the fence saw a put half landed).
      if (!(op.flags & wire::kFlagFence) && fence_closing_) break;
      if (carries_data(op) && !(op.flags & wire::kFlagInline) && in.data_req == nullptr) {
        // The data is the origin's next kTagData message: straight into the
        // window when it lands there contiguously, else unpacked after.
        const int len = static_cast<int>(op.bytes);
        if (op.kind == wire::kPut && op.nblocks == 0) {
          in.data_direct = true;
          char* at = target_address(o, op, 0, static_cast<int64_t>(op.bytes));
          in.data_req = new_request(lz_mpi_request_s::Kind::kRecv, at, len, nullptr, o, wire::kTagData);
        } else {
          in.data.resize(op.bytes);
          in.data_req = new_request(lz_mpi_request_s::Kind::kRecv, in.data.data(), len, nullptr, o, wire::kTagData);
        }
        engine_.start_recv(in.data_req).ignore();
      }
      if (in.data_req != nullptr && !in.data_req->complete) break;
      if (!execute(o, in)) break;
    }
    lz::rt::request_pool().put(in.req);
    if (in.data_req != nullptr) lz::rt::request_pool().put(in.data_req);
    q.pop_front();
    ran = true;
  }
  return ran;
}

char* lz_mpi_win_s::target_address(int o, const wire::Op& op, int64_t lo, int64_t hi) {
  if (hi <= lo) return static_cast<char*>(base_) + (flavor_ == MPI_WIN_FLAVOR_DYNAMIC ? 0 : op.disp);
  if (flavor_ == MPI_WIN_FLAVOR_DYNAMIC) {
    char* at = reinterpret_cast<char*>(static_cast<uintptr_t>(op.disp));
    // Covered by the attached regions, adjacent ones together.
    char* from = at + lo;
    for (bool grew = true; grew && from < at + hi;) {
      grew = false;
      for (const auto& [r, len] : regions_)
        if (from >= r && from < r + len) {
          from = r + len;
          grew = true;
        }
    }
    if (from >= at + hi) return at;
    fatal(kind_name(op.kind), MPI_ERR_RMA_RANGE,
          "rank " + std::to_string(o) + " addressed bytes [" + std::to_string(op.disp + lo) + ", " +
              std::to_string(op.disp + hi) + ") of this rank's dynamic window, which no attached region holds");
  }
  const int64_t d = static_cast<int64_t>(op.disp);
  if (d + lo < 0 || d + hi > size_)
    fatal(kind_name(op.kind), MPI_ERR_RMA_RANGE,
          "rank " + std::to_string(o) + " addressed bytes [" + std::to_string(d + lo) + ", " + std::to_string(d + hi) +
              ") of this rank's window of " + std::to_string(size_) + " bytes");
  return static_cast<char*>(base_) + d;
}

void lz_mpi_win_s::gather(const wire::Op& op, const Block* blocks, char* at, char* packed) const {
  if (op.nblocks == 0) {
    std::memcpy(packed, at, op.bytes);
    return;
  }
  for (uint64_t i = 0; i < op.count; ++i) {
    char* el = at + static_cast<int64_t>(i) * op.extent;
    for (uint32_t b = 0; b < op.nblocks; ++b) {
      std::memcpy(packed, el + blocks[b].offset, blocks[b].length);
      packed += blocks[b].length;
    }
  }
}

void lz_mpi_win_s::scatter(const wire::Op& op, const Block* blocks, char* at, const char* packed) const {
  if (op.nblocks == 0) {
    std::memcpy(at, packed, op.bytes);
    return;
  }
  for (uint64_t i = 0; i < op.count; ++i) {
    char* el = at + static_cast<int64_t>(i) * op.extent;
    for (uint32_t b = 0; b < op.nblocks; ++b) {
      std::memcpy(el + blocks[b].offset, packed, blocks[b].length);
      packed += blocks[b].length;
    }
  }
}

void lz_mpi_win_s::combine(const wire::Op& op, const char* in, char* inout, size_t bytes) {
  using Kind = lz::dt::Op::Kind;
  const auto k = static_cast<Kind>(op.op);
  if (k == Kind::kNoOp || bytes == 0) return;
  if (k == Kind::kReplace) {
    std::memcpy(inout, in, bytes);
    return;
  }
  auto b = static_cast<lz::dt::Basic>(op.basic);
  if (b == lz::dt::Basic::kChar) b = lz::dt::Basic::kSignedChar;  // MPI_CHAR accumulates as a signed char
  const lz::dt::BasicInfo& info = lz::dt::basic_info(b);
  const size_t n = bytes / info.size;
  if (info.size == info.extent) {  // the packed form is the memory form
    lz::dt::apply_basic(k, b, in, inout, n);
    return;
  }
  // A pair type with padding (MPI_DOUBLE_INT ...): reduce in memory layout.
  const Datatype& t = lz::dt::internal_type(b);
  std::vector<char> a(n * info.extent), r(n * info.extent);
  t.unpack(in, bytes, static_cast<int>(n), a.data());
  t.unpack(inout, bytes, static_cast<int>(n), r.data());
  lz::dt::apply_basic(k, b, a.data(), r.data(), n);
  t.pack(r.data(), static_cast<int>(n), inout);
}

bool lz_mpi_win_s::execute(int o, Incoming& in) {
  const wire::Op& op = header(in.msg);
  const Block* blocks = blocks_of(in.msg);
  const char* data = (op.flags & wire::kFlagInline) ? inline_data(in.msg) : in.data.data();
  switch (op.kind) {
    case wire::kLock:
      if (!grant(o, (op.flags & wire::kFlagExclusive) != 0)) return false;
      if (op.reply_tag != 0) reply(o, static_cast<int>(op.reply_tag), {});
      return true;
    case wire::kUnlock:
      if (replying_to(o)) return false;
      if ((op.flags & wire::kFlagDirect) && own_words_ != nullptr)
        own_words_->unlock(op.flags & wire::kFlagExclusive);
      else
        release_lock(o);
      reply(o, static_cast<int>(op.reply_tag), {});
      return true;
    case wire::kFlush:
      reply(o, static_cast<int>(op.reply_tag), {});
      return true;
    case wire::kComplete:
      if (replying_to(o)) return false;
      ++completes_[static_cast<size_t>(o)];
      return true;
    default:
      break;
  }
  int64_t lo, hi;
  span(op, blocks, &lo, &hi);
  char* at = target_address(o, op, lo, hi);
  // Accumulates take the acc lock that ranks storing directly take too.
  const bool acc = op.kind == wire::kAcc || op.kind == wire::kGetAcc || op.kind == wire::kCas;
  if (acc && own_words_ != nullptr) own_words_->acc_lock();
  switch (op.kind) {
    case wire::kPut:
      if (!in.data_direct) scatter(op, blocks, at, data);
      break;
    case wire::kGet:
      if (op.nblocks == 0) {
        reply_from(o, static_cast<int>(op.reply_tag), at, op.bytes);
      } else {
        std::vector<char> out(op.bytes);
        gather(op, blocks, at, out.data());
        reply(o, static_cast<int>(op.reply_tag), std::move(out));
      }
      break;
    case wire::kAcc:
    case wire::kGetAcc: {
      std::vector<char> cur(op.bytes);
      gather(op, blocks, at, cur.data());
      std::vector<char> old;
      if (op.kind == wire::kGetAcc) old = cur;
      if (carries_data(op)) {
        combine(op, data, cur.data(), cur.size());
        scatter(op, blocks, at, cur.data());
      }
      // The answer leaves once the memory holds the result: the origin may
      // tell a third rank, which then loads it (MPICH's win_shared_fop_flush_load).
      if (op.kind == wire::kGetAcc) reply(o, static_cast<int>(op.reply_tag), std::move(old));
      break;
    }
    case wire::kCas: {
      std::vector<char> cur(op.bytes);
      gather(op, blocks, at, cur.data());
      if (std::memcmp(cur.data(), data + op.bytes, op.bytes) == 0) scatter(op, blocks, at, data);
      reply(o, static_cast<int>(op.reply_tag), std::move(cur));
      break;
    }
    default:
      fatal("MPI one-sided", MPI_ERR_INTERN,
            "rank " + std::to_string(o) + " sent an unknown operation " + std::to_string(op.kind));
  }
  if (acc && own_words_ != nullptr) own_words_->acc_unlock();
  if (op.flags & wire::kFlagFence) ++fence_done_[op.epoch & 1];
  return true;
}

void lz_mpi_win_s::reply(int o, int tag, std::vector<char> bytes) {
  bool taken = false;
  lz::Status s = engine_.send_now(comm_, o, tag, comm_->p2p_context(), bytes.data(), static_cast<int>(bytes.size()),
                                  &lz::dt::byte_type(), &taken);
  if (taken || !s.ok()) return;  // a failed origin: nothing waits for the answer
  Reply r{nullptr, std::move(bytes), o};
  r.req = new_request(lz_mpi_request_s::Kind::kSend, r.bytes.data(), static_cast<int>(r.bytes.size()), nullptr, o, tag);
  engine_.start_send(r.req).ignore();
  replies_.push_back(std::move(r));
}

void lz_mpi_win_s::reply_from(int o, int tag, const void* at, size_t len) {
  bool taken = false;
  lz::Status s =
      engine_.send_now(comm_, o, tag, comm_->p2p_context(), at, static_cast<int>(len), &lz::dt::byte_type(), &taken);
  if (taken || !s.ok()) return;
  Reply r{nullptr, {}, o};
  r.req = new_request(lz_mpi_request_s::Kind::kSend, at, static_cast<int>(len), nullptr, o, tag);
  engine_.start_send(r.req).ignore();
  replies_.push_back(std::move(r));
}

void lz_mpi_win_s::reap_replies() {
  for (auto it = replies_.begin(); it != replies_.end();) {
    if (!it->req->complete) {
      ++it;
      continue;
    }
    lz::rt::request_pool().put(it->req);
    it = replies_.erase(it);
  }
}

bool lz_mpi_win_s::replying_to(int o) const {
  for (const Reply& r : replies_)
    if (r.origin == o && !r.req->complete && r.bytes.empty()) return true;
  return false;
}

bool lz_mpi_win_s::grant(int o, bool exclusive) {
  int& held = lock_held_[static_cast<size_t>(o)];
  if (held != kUnlocked) return true;  // already held by this origin
  if (own_words_ != nullptr) {         // the lock ranks of this host take directly
    if (!own_words_->try_lock(exclusive)) return false;
    held = exclusive ? kExclusive : kShared;
    return true;
  }
  if (exclusive) {
    if (shared_holders_ != 0 || exclusive_held_) return false;
    exclusive_held_ = true;
    held = kExclusive;
    return true;
  }
  if (exclusive_held_) return false;
  ++shared_holders_;
  held = kShared;
  return true;
}

void lz_mpi_win_s::release_lock(int o) {
  int& held = lock_held_[static_cast<size_t>(o)];
  if (own_words_ != nullptr && held != kUnlocked) {
    own_words_->unlock(held == kExclusive);
    held = kUnlocked;
    return;
  }
  if (held == kExclusive)
    exclusive_held_ = false;
  else if (held == kShared)
    --shared_holders_;
  held = kUnlocked;
}
