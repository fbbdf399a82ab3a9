#include "osc/checkpoint.h"

#include "osc/shared_segment.h"
#include "osc/window.h"

namespace lz::osc {

namespace {
// This rank's part of shared window `w`: its offset in the segment.
size_t own_offset(const lz_mpi_win_s& w) {
  return static_cast<size_t>(static_cast<char*>(w.base()) - w.shared()->data());
}
}  // namespace

bool app_stopped_needed() {
  for (const lz_mpi_win_s* w : lz_mpi_win_s::all())
    if (w->shared() != nullptr) return true;
  return false;
}

Status before_image() {
  for (lz_mpi_win_s* w : lz_mpi_win_s::all())
    if (SharedSegment* s = w->shared())
      LZ_RETURN_IF_ERROR(s->privatize(own_offset(*w), static_cast<size_t>(w->size_bytes())));
  return Status::Ok();
}

Status after_image(double timeout_s) {
  for (lz_mpi_win_s* w : lz_mpi_win_s::all())
    if (SharedSegment* s = w->shared())
      LZ_RETURN_IF_ERROR(s->reshare(w->rank() == 0, own_offset(*w), static_cast<size_t>(w->size_bytes()),
                                    w->size(), timeout_s));
  return Status::Ok();
}

}  // namespace lz::osc
