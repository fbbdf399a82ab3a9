#include "osc/checkpoint.h"

#include "osc/shared_segment.h"
#include "osc/target_words.h"
#include "osc/window.h"

namespace lz::osc {

namespace {
// What a rank keeps of shared window `w`'s segment: its part and its
// words; rank 0 also the fence barrier (counters and asleep flags) at the
// end of the header page.
std::vector<SharedSegment::Range> own_ranges(const lz_mpi_win_s& w) {
  const char* header = w.shared()->header();
  const auto part = static_cast<size_t>(static_cast<char*>(w.base()) - header);
  const auto words = static_cast<size_t>(reinterpret_cast<char*>(words_in(w.shared()->header(), w.rank())) - header);
  std::vector<SharedSegment::Range> keep{{part, static_cast<size_t>(w.size_bytes())}, {words, sizeof(TargetWords)}};
  if (w.rank() == 0 && w.has_fence_barrier()) {
    const size_t room = fence_room(w.size());
    keep.push_back({SharedSegment::page() - room, room});
  }
  return keep;
}
}  // namespace

bool images_need_work() {
  for (const lz_mpi_win_s* w : lz_mpi_win_s::all())
    if (w->shared() != nullptr || w->has_direct_peers()) return true;
  return false;
}

bool app_stopped_needed() {
  for (const lz_mpi_win_s* w : lz_mpi_win_s::all())
    if (w->shared() != nullptr) return true;
  return false;
}

Status before_image() {
  for (lz_mpi_win_s* w : lz_mpi_win_s::all()) {
    if (SharedSegment* s = w->shared()) LZ_RETURN_IF_ERROR(s->privatize(own_ranges(*w)));
    // MPI_Win_allocate's memory stays this rank's own (private) from now
    // on: the image may be restored anywhere, so its peers reach it by
    // messages after the checkpoint.
    else
      LZ_RETURN_IF_ERROR(w->drop_direct_peers());
  }
  return Status::Ok();
}

Status after_image(double timeout_s) {
  for (lz_mpi_win_s* w : lz_mpi_win_s::all())
    if (SharedSegment* s = w->shared())
      LZ_RETURN_IF_ERROR(s->reshare(w->rank() == 0, own_ranges(*w), w->size(), timeout_s));
  return Status::Ok();
}

}  // namespace lz::osc
