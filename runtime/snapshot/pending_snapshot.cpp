#include "snapshot/pending_snapshot.h"

#include <utility>

#include "lazarus/log.h"
#include "lazarus/snapshot_layout.h"
#include "snapshot/durable_io.h"

namespace lz::snapshot {

PendingSnapshot::PendingSnapshot(uint64_t seq, std::string dir, std::string final_dir)
    : seq_(seq), dir_(std::move(dir)), final_dir_(std::move(final_dir)), pending_(true) {}

PendingSnapshot::PendingSnapshot(PendingSnapshot&& o) noexcept
    : seq_(o.seq_), dir_(std::move(o.dir_)), final_dir_(std::move(o.final_dir_)),
      pending_(std::exchange(o.pending_, false)) {}

PendingSnapshot& PendingSnapshot::operator=(PendingSnapshot&& o) noexcept {
  if (this != &o) {
    discard();
    seq_ = o.seq_;
    dir_ = std::move(o.dir_);
    final_dir_ = std::move(o.final_dir_);
    pending_ = std::exchange(o.pending_, false);
  }
  return *this;
}

PendingSnapshot::~PendingSnapshot() { discard(); }

void PendingSnapshot::discard() noexcept {
  if (!pending_) return;
  pending_ = false;
  if (auto s = remove_tree(dir_); !s.ok())
    log::warn("snapshot: could not remove unfinished snapshot %s: %s", dir_.c_str(), s.message().c_str());
}

StatusOr<std::string> PendingSnapshot::rank_dir(int rank) const {
  if (!pending_) return InvalidArgument("snapshot " + std::to_string(seq_) + " is no longer pending");
  if (rank < 0) return InvalidArgument("rank " + std::to_string(rank) + " is negative");
  std::string d = snapshot_rank_dir(dir_, rank);
  LZ_RETURN_IF_ERROR(make_dir(d, 0700));
  return d;
}

}  // namespace lz::snapshot
