// Window, load/store within a host: a target whose memory this process has
// mapped (an MPI_Win_allocate_shared segment, or the segment MPI_Win_allocate
// puts a rank's memory in when it has peers on its host over shm) is
// accessed by the origin itself: a put is a copy into the target's memory, a
// get a copy out of it, an accumulate a read-modify-write under the target's
// acc lock (target_words.h), a lock a compare-and-swap on its lock word. No
// message, no target involvement: complete when the call returns. The
// target's agent takes the same words for the messages of ranks on other
// hosts, so the two paths stay atomic and exclusive with each other.
#include <atomic>
#include <cstring>
#include <vector>

#include "osc/bulk_copy.h"
#include "osc/shared_segment.h"
#include "osc/target_words.h"
#include "osc/window.h"

namespace {
// The packed bytes of `count` elements of `dt` at `buf`: `buf` itself when
// contiguous, else packed into `tmp`.
const char* packed(const void* buf, int count, const lz::dt::Datatype& dt, std::vector<char>* tmp) {
  if (dt.is_contiguous()) return static_cast<const char*>(buf) + dt.true_lb();
  tmp->resize(dt.size() * static_cast<size_t>(count));
  dt.pack(buf, count, tmp->data());
  return tmp->data();
}
}  // namespace

void lz_mpi_win_s::set_direct(int t, char* base, lz::osc::TargetWords* words) {
  direct_[static_cast<size_t>(t)] = {base, words};
}

void lz_mpi_win_s::set_own_segment(std::unique_ptr<lz::osc::SharedSegment> seg) { own_segment_ = std::move(seg); }

void lz_mpi_win_s::add_peer_segment(std::unique_ptr<lz::osc::SharedSegment> seg) {
  peer_segments_.push_back(std::move(seg));
}

lz::Status lz_mpi_win_s::drop_direct_peers() {
  // A rank waiting in the fence barrier learns here, while every rank is
  // stopped, whether it passed; the words go with the mappings.
  if (barrier_waiting_ && fence_slots_ != nullptr) barrier_passed_ = all_entered(barriers_);
  fence_slots_ = nullptr;
  for (int t = 0; t < size(); ++t)
    if (t != rank()) direct_[static_cast<size_t>(t)] = {};
  peer_segments_.clear();
  set_all_direct(false);
  if (own_segment_ == nullptr) return lz::Status::Ok();
  return own_segment_->privatize({{0, lz::osc::SharedSegment::page() + own_segment_->bytes()}});
}

void lz_mpi_win_s::direct_put(const Direct& d, const void* origin, int ocount, const Datatype& odt, MPI_Aint disp,
                              int tcount, const Datatype& tdt) {
  char* at = d.base + disp;
  std::vector<char> tmp;
  const char* src = packed(origin, ocount, odt, &tmp);
  const size_t bytes = odt.size() * static_cast<size_t>(ocount);
  if (tdt.is_contiguous())
    lz::osc::copy_to_peer(at + tdt.true_lb(), src, bytes, bulk_copy_threshold_);
  else
    tdt.unpack(src, bytes, tcount, at);
}

void lz_mpi_win_s::direct_get(const Direct& d, void* origin, int ocount, const Datatype& odt, MPI_Aint disp, int tcount,
                              const Datatype& tdt) {
  const char* at = d.base + disp;
  std::vector<char> tmp;
  const char* src = packed(at, tcount, tdt, &tmp);
  const size_t bytes = tdt.size() * static_cast<size_t>(tcount);
  if (odt.is_contiguous())
    lz::osc::copy_from_peer(static_cast<char*>(origin) + odt.true_lb(), src, bytes, bulk_copy_threshold_);
  else
    odt.unpack(src, bytes, ocount, origin);
}

void lz_mpi_win_s::direct_accumulate(const Direct& d, const void* origin, int ocount, const Datatype& odt, void* result,
                                     int rcount, const Datatype* rdt, MPI_Aint disp, int tcount, const Datatype& tdt,
                                     const lz::dt::Op& op) {
  char* at = d.base + disp;
  const size_t bytes = tdt.size() * static_cast<size_t>(tcount);
  const bool no_op = op.kind() == lz::dt::Op::Kind::kNoOp;
  std::vector<char> in_tmp;
  const char* in = no_op ? nullptr : packed(origin, ocount, odt, &in_tmp);
  lz::osc::wire::Op w{};  // what combine() reads: the op and the basic type
  w.op = static_cast<uint8_t>(op.kind());
  lz::dt::Basic b = lz::dt::Basic::kByte;
  if (tdt.homogeneous(&b, nullptr)) w.basic = static_cast<uint8_t>(b);
  std::vector<char> cur(bytes);
  d.words->acc_lock();
  if (tdt.is_contiguous())
    std::memcpy(cur.data(), at + tdt.true_lb(), bytes);
  else
    tdt.pack(at, tcount, cur.data());
  if (result != nullptr) {
    if (rdt->is_contiguous())
      std::memcpy(static_cast<char*>(result) + rdt->true_lb(), cur.data(), bytes);
    else
      rdt->unpack(cur.data(), bytes, rcount, result);
  }
  if (!no_op) {
    combine(w, in, cur.data(), bytes);
    if (tdt.is_contiguous())
      std::memcpy(at + tdt.true_lb(), cur.data(), bytes);
    else
      tdt.unpack(cur.data(), bytes, tcount, at);
  }
  d.words->acc_unlock();
}

void lz_mpi_win_s::direct_cas(const Direct& d, const void* origin, const void* compare, void* result,
                              const Datatype& dt, MPI_Aint disp) {
  char* at = d.base + disp + dt.true_lb();
  const size_t n = dt.size();
  d.words->acc_lock();
  std::memcpy(result, at, n);
  if (std::memcmp(at, compare, n) == 0) std::memcpy(at, origin, n);
  d.words->acc_unlock();
}

void lz_mpi_win_s::direct_lock(int t, bool exclusive) {
  lz::osc::TargetWords* w = direct_[static_cast<size_t>(t)].words;
  if (w->try_lock(exclusive)) return;
  engine_.wait_until([&] { return w->try_lock(exclusive); });
}
