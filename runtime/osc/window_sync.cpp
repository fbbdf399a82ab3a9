// Window, synchronization: fence (with the binding's count exchange),
// post/start/complete/wait, locks and flushes. Every call that promises
// remote completion waits for the target's acknowledgement or count.
#include <algorithm>
#include <atomic>
#include <cstring>

#include "lazarus/cpu_relax.h"
#include "osc/target_words.h"
#include "osc/window.h"
#include "p2p/request.h"

namespace wire = lz::osc::wire;

bool lz_mpi_win_s::in_lock_epoch() const {
  if (lock_all_) return true;
  return std::any_of(targets_.begin(), targets_.end(), [](const TargetState& t) { return t.lock != kUnlocked; });
}

std::string lz_mpi_win_s::access_error(int target) const {
  if (may_access(target)) return "";
  if (pscw_started_) {
    if (std::find(access_group_.begin(), access_group_.end(), target) != access_group_.end()) return "";
    return "rank " + std::to_string(target) + " is not in the group of this rank's MPI_Win_start";
  }
  return "no access epoch to rank " + std::to_string(target) +
         " is open (MPI_Win_fence, MPI_Win_start, MPI_Win_lock or MPI_Win_lock_all first)";
}

// ---- fence -----------------------------------------------------------------------------

std::vector<int> lz_mpi_win_s::fence_counts() {
  std::atomic_thread_fence(std::memory_order_seq_cst);  // this rank's direct stores before the others read
  wait_local(-1);
  std::vector<int> sent(targets_.size());
  for (size_t t = 0; t < targets_.size(); ++t) {
    sent[t] = targets_[t].fence_ops;
    targets_[t].fence_ops = 0;
    targets_[t].dirty = false;
  }
  return sent;
}

void lz_mpi_win_s::fence_exchange(const std::vector<int>& sent, int assert) {
  const int p = fence_epoch_ & 1;
  wire::Op op{};
  op.kind = wire::kFenceCount;
  op.epoch = fence_epoch_;
  fence_closing_ = true;
  for (int r = 0; r < size(); ++r) {
    if (r == rank()) continue;
    op.bytes = static_cast<uint64_t>(sent[static_cast<size_t>(r)]);
    send_bytes(r, &op, sizeof(op), wire::kTagOp, nullptr, true).ignore();
  }
  engine_.wait_until([&] { return fence_told_[p] == size() - 1; });
  const int expected = fence_owed_[p] + sent[static_cast<size_t>(rank())];
  fence_told_[p] = 0;
  fence_owed_[p] = 0;
  fence_finish(expected, assert);
}

void lz_mpi_win_s::fence_finish(int expected, int assert) {
  int& done = fence_done_[fence_epoch_ & 1];
  engine_.wait_until([&] { return done >= expected; });
  done -= expected;
  fence_closing_ = false;
  ++fence_epoch_;
  fence_open(assert);
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void lz_mpi_win_s::set_fence_barrier(char* rank0_header, size_t page) {
  fence_slots_ = lz::osc::fence_slots_in(rank0_header, page, size());
}

bool lz_mpi_win_s::all_entered(uint32_t n) const {
  for (int r = 0; r < size(); ++r)
    if (static_cast<int32_t>(fence_slots_[r].entered.load(std::memory_order_seq_cst) - n) < 0) return false;
  return true;
}

namespace {
// A rank in the fence barrier looks at the others' slots this many times
// before the engine's own spin, with a progress turn every kLooksPerTurn.
constexpr int kBarrierLooks = 4096;
constexpr int kLooksPerTurn = 64;
}  // namespace

bool lz_mpi_win_s::direct_barrier() {
  lz::osc::FenceSlot& mine = fence_slots_[rank()];
  const uint32_t n = ++barriers_;
  mine.entered.store(n, std::memory_order_seq_cst);
  // The last one in (or one of the last, seeing all entered) wakes the
  // ranks asleep in this barrier. seq_cst against their flag-then-look: a
  // rank that looked before this store and slept has its flag seen here.
  if (all_entered(n)) {
    wire::Op wake{};
    wake.kind = wire::kWake;
    for (int r = 0; r < size(); ++r)
      if (r != rank() && fence_slots_[r].asleep.load(std::memory_order_seq_cst) != 0)
        send_bytes(r, &wake, sizeof(wake), wire::kTagOp, nullptr, true).ignore();
  }
  barrier_waiting_ = true;
  barrier_passed_ = false;
  // all_direct_ first: after a checkpoint dropped the mappings the slots are gone.
  auto passed = [&] { return !all_direct_ || all_entered(n); };
  // The others are a cache line away: look at them between progress turns,
  // which may cost far more than a look (ucx's worker progress). Not when
  // ranks share CPUs: the rank we wait for may need this one.
  if (!engine_.oversubscribed())
    for (int i = 1; i <= kBarrierLooks && !passed(); ++i) {
      lz::cpu_relax();
      if (i % kLooksPerTurn == 0) engine_.progress();
    }
  if (!passed() && !engine_.spin(passed)) {
    mine.asleep.store(1, std::memory_order_seq_cst);
    engine_.wait_until(passed);
    if (all_direct_) mine.asleep.store(0, std::memory_order_relaxed);
  }
  barrier_waiting_ = false;
  return all_direct_ || barrier_passed_;
}

// ---- post / start / complete / wait ----------------------------------------------------------

void lz_mpi_win_s::post(const std::vector<int>& ranks, int assert) {
  exposure_group_ = ranks;
  exposure_open_ = true;
  if (assert & MPI_MODE_NOCHECK) return;
  wire::Op op{};
  op.kind = wire::kPost;
  for (int r : ranks) send_bytes(r, &op, sizeof(op), wire::kTagOp, nullptr).ignore();
}

void lz_mpi_win_s::start(const std::vector<int>& ranks, int assert) {
  access_group_ = ranks;
  pscw_started_ = true;
  if (assert & MPI_MODE_NOCHECK) return;
  engine_.wait_until([&] {
    return std::all_of(ranks.begin(), ranks.end(), [&](int r) { return targets_[static_cast<size_t>(r)].posts > 0; });
  });
  for (int r : ranks) --targets_[static_cast<size_t>(r)].posts;
}

void lz_mpi_win_s::complete() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  wait_native(-1);  // landed before the targets' MPI_Win_wait hears of the end
  wire::Op op{};
  op.kind = wire::kComplete;
  for (int r : access_group_) {
    send_bytes(r, &op, sizeof(op), wire::kTagOp, nullptr).ignore();
    targets_[static_cast<size_t>(r)].dirty = false;
  }
  wait_local(-1);
  access_group_.clear();
  pscw_started_ = false;
}

void lz_mpi_win_s::wait() {
  engine_.wait_until([&] { return test(); });
}

bool lz_mpi_win_s::test() {
  if (!exposure_open_) return true;
  for (int r : exposure_group_)
    if (completes_[static_cast<size_t>(r)] == 0) return false;
  for (int r : exposure_group_) --completes_[static_cast<size_t>(r)];
  exposure_group_.clear();
  exposure_open_ = false;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return true;
}

// ---- locks and flushes ---------------------------------------------------------------------

bool lz_mpi_win_s::needs_lock(int target) const {
  const TargetState& t = targets_[static_cast<size_t>(target)];
  return t.lock != kUnlocked && !t.nocheck && !t.lock_sent;
}

lz::Status lz_mpi_win_s::send_lock(int target, bool wait_grant) {
  TargetState& t = targets_[static_cast<size_t>(target)];
  wire::Op op{};
  op.kind = wire::kLock;
  if (t.lock == kExclusive) op.flags |= wire::kFlagExclusive;
  if (wait_grant) {
    op.reply_tag = static_cast<uint32_t>(next_reply_tag());
    post_reply(target, nullptr, 0, nullptr, static_cast<int>(op.reply_tag), nullptr);
  }
  t.lock_sent = true;
  return send_bytes(target, &op, sizeof(op), wire::kTagOp, nullptr);
}

void lz_mpi_win_s::request_ack(int target, wire::Kind kind) {
  wire::Op op{};
  op.kind = kind;
  op.reply_tag = static_cast<uint32_t>(next_reply_tag());
  post_reply(target, nullptr, 0, nullptr, static_cast<int>(op.reply_tag), nullptr);
  send_bytes(target, &op, sizeof(op), wire::kTagOp, nullptr).ignore();
  targets_[static_cast<size_t>(target)].dirty = false;
}

void lz_mpi_win_s::lock(int type, int target, int assert) {
  TargetState& t = targets_[static_cast<size_t>(target)];
  t.lock = type == MPI_LOCK_EXCLUSIVE ? kExclusive : kShared;
  t.nocheck = (assert& MPI_MODE_NOCHECK) != 0;
  t.lock_sent = false;
  if (!t.nocheck && direct(target) != nullptr) {
    direct_lock(target, t.lock == kExclusive);
    t.lock_sent = t.direct_lock = true;
    return;
  }
  // The program loads and stores its own window once this returns.
  if (target == rank() && !t.nocheck) {
    send_lock(target, true).ignore();
    wait_local(target);
  }
}

void lz_mpi_win_s::end_lock(int target) {
  TargetState& t = targets_[static_cast<size_t>(target)];
  if (t.direct_lock && direct(target) != nullptr) {
    direct_[static_cast<size_t>(target)].words->unlock(t.lock == kExclusive);
  } else if (t.direct_lock) {  // taken directly before a checkpoint dropped the mapping
    wire::Op op{};
    op.kind = wire::kUnlock;
    op.flags = wire::kFlagDirect | (t.lock == kExclusive ? wire::kFlagExclusive : 0);
    op.reply_tag = static_cast<uint32_t>(next_reply_tag());
    post_reply(target, nullptr, 0, nullptr, static_cast<int>(op.reply_tag), nullptr);
    send_bytes(target, &op, sizeof(op), wire::kTagOp, nullptr).ignore();
  } else if (t.lock_sent)
    request_ack(target, wire::kUnlock);
  else if (t.dirty)
    request_ack(target, wire::kFlush);
  t.lock = kUnlocked;
  t.nocheck = t.lock_sent = t.direct_lock = false;
}

void lz_mpi_win_s::unlock(int target) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  end_lock(target);
  wait_local(target);
}

void lz_mpi_win_s::lock_all(int assert) {
  lock_all_ = true;
  for (size_t i = 0; i < targets_.size(); ++i) {
    TargetState& t = targets_[i];
    t.lock = kShared;
    t.nocheck = (assert& MPI_MODE_NOCHECK) != 0;
    t.lock_sent = false;
    if (!t.nocheck && direct(static_cast<int>(i)) != nullptr) {
      direct_lock(static_cast<int>(i), false);
      t.lock_sent = t.direct_lock = true;
    }
  }
}

void lz_mpi_win_s::unlock_all() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (size_t t = 0; t < targets_.size(); ++t) end_lock(static_cast<int>(t));
  lock_all_ = false;
  wait_local(-1);
}

void lz_mpi_win_s::flush(int target) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (targets_[static_cast<size_t>(target)].dirty) request_ack(target, wire::kFlush);
  wait_local(target);
}

void lz_mpi_win_s::flush_all() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (size_t t = 0; t < targets_.size(); ++t)
    if (targets_[t].dirty) request_ack(static_cast<int>(t), wire::kFlush);
  wait_local(-1);
}

void lz_mpi_win_s::flush_local(int target) { wait_local(target); }

void lz_mpi_win_s::flush_local_all() { wait_local(-1); }
