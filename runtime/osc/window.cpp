// Window: construction, the process's list of windows, attached regions of
// dynamic windows, and the agent's progress turn. The origin side is in
// window_origin.cpp, the target side in window_target.cpp, the
// synchronization calls in window_sync.cpp.
#include "osc/window.h"

#include <algorithm>

#include "cr/image_hooks.h"
#include "osc/checkpoint.h"
#include "osc/progress_thread.h"
#include "osc/shared_segment.h"
#include "osc/target_words.h"
#include "p2p/comm_factory.h"
#include "p2p/comm_record.h"
#include "p2p/runtime.h"

namespace {
std::vector<lz_mpi_win_s*>& windows() {
  static std::vector<lz_mpi_win_s*> all;
  return all;
}
}  // namespace

lz_mpi_win_s::lz_mpi_win_s(Comm* comm, int flavor, void* base, MPI_Aint size, int disp_unit,
                           std::vector<MPI_Aint> sizes, std::vector<int> units)
    : comm_(comm),
      engine_(lz::rt::runtime().engine()),
      flavor_(flavor),
      base_(base),
      size_(size),
      disp_unit_(disp_unit),
      sizes_(std::move(sizes)),
      units_(std::move(units)) {
  lz::rt::CommRecord::instance().count_unmovable(1);
  const auto n = static_cast<size_t>(comm_->size());
  targets_.resize(n);
  direct_.resize(n);
  incoming_.resize(n);
  lock_held_.assign(n, kUnlocked);
  completes_.assign(n, 0);
  peer_keys_.resize(n);
  if (flavor == MPI_WIN_FLAVOR_CREATE || flavor == MPI_WIN_FLAVOR_ALLOCATE) {
    const std::string& mode = lz::rt::runtime().registry().params().get_string("osc_native_rma");
    native_rma_ = mode == "on" ? kNativeOn : mode == "auto" ? kNativeAuto : kNativeOff;
  }
  bulk_copy_threshold_ = static_cast<size_t>(lz::rt::runtime().registry().params().get_int("osc_bulk_copy_threshold"));
  attr_size = size;
  attr_disp_unit = disp_unit;
  attr_flavor = flavor;
  windows().push_back(this);
  engine_.add_progress_hook(this);
  lz::osc::ProgressThread::agent_needed();  // until set_all_direct(true)
  lz::rt::set_image_hooks(
      {&lz::osc::app_stopped_needed, &lz::osc::images_need_work, &lz::osc::before_image, &lz::osc::after_image});
}

lz_mpi_win_s::~lz_mpi_win_s() {
  lz::rt::CommRecord::instance().count_unmovable(-1);
  if (!all_direct_) lz::osc::ProgressThread::agent_done();
  engine_.remove_progress_hook(this);
  if (native_rma_ != kNativeOff) engine_.rma_forget(this);
  auto& all = windows();
  all.erase(std::remove(all.begin(), all.end(), this), all.end());
  for (auto& q : incoming_)
    for (Incoming& in : q) {
      if (in.req != nullptr) lz::rt::request_pool().put(in.req);
      if (in.data_req != nullptr) lz::rt::request_pool().put(in.data_req);
    }
  for (LocalOp& l : local_) lz::rt::request_pool().put(l.req);
  for (Reply& r : replies_) lz::rt::request_pool().put(r.req);
  lz::rt::comm_free(comm_);
  magic_ = 0;
}

const std::vector<lz_mpi_win_s*>& lz_mpi_win_s::all() { return windows(); }

void lz_mpi_win_s::set_shared(std::unique_ptr<lz::osc::SharedSegment> seg, std::vector<size_t> offsets) {
  segment_ = std::move(seg);
  shared_offsets_ = std::move(offsets);
}

char* lz_mpi_win_s::shared_base_of(int r) const {
  return segment_ == nullptr ? nullptr : segment_->data() + shared_offsets_[static_cast<size_t>(r)];
}

lz::Status lz_mpi_win_s::attach(void* base, MPI_Aint size) {
  char* b = static_cast<char*>(base);
  for (const auto& [at, len] : regions_)
    if (b < at + len && at < b + size)
      return lz::InvalidArgument("the region overlaps one attached before (MPI_ERR_RMA_ATTACH)");
  regions_.emplace_back(b, static_cast<size_t>(size));
  return lz::Status::Ok();
}

lz::Status lz_mpi_win_s::detach(const void* base) {
  auto it = std::find_if(regions_.begin(), regions_.end(), [base](const auto& r) { return r.first == base; });
  if (it == regions_.end()) return lz::InvalidArgument("no region attached at that address");
  regions_.erase(it);
  return lz::Status::Ok();
}

std::string lz_mpi_win_s::busy() const {
  const auto ops = std::count_if(local_.begin(), local_.end(), [](const LocalOp& l) { return !l.control; });
  if (ops != 0) return std::to_string(ops) + " operation(s) of this rank not complete";
  if (in_lock_epoch()) return "a lock epoch is open (MPI_Win_unlock / MPI_Win_unlock_all first)";
  if (in_pscw_access()) return "an access epoch is open (MPI_Win_complete first)";
  if (exposure_open_) return "an exposure epoch is open (MPI_Win_wait first)";
  return "";
}

void lz_mpi_win_s::set_all_direct(bool all) {
  if (all == all_direct_) return;
  all_direct_ = all;
  if (all)
    lz::osc::ProgressThread::agent_done();
  else
    lz::osc::ProgressThread::agent_needed();
}

void lz_mpi_win_s::finish() {
  engine_.wait_until([&] {
    reap_replies();
    reap_local();
    return replies_.empty() && local_.empty();
  });
}

void lz_mpi_win_s::advance() {
  if (running_) return;  // an execution's own progress (never: it does not wait)
  running_ = true;
  take_incoming();
  for (bool moved = true; moved;) {
    moved = false;
    for (size_t o = 0; o < incoming_.size(); ++o)
      if (!incoming_[o].empty()) moved |= run_queue(static_cast<int>(o));
  }
  if (!replies_.empty()) reap_replies();
  if (!local_.empty()) reap_local();
  running_ = false;
}
