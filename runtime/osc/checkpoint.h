// The windows' part of a core-image checkpoint (the CR service calls these;
// runtime/cr/cr_service.cpp).
//
// Operations in flight are messages (wire.h), so the checkpoint's drain
// already brings every one to its target, and the image holds each
// window's whole state: memory, locks granted and queued, epochs, the
// operations not yet executed. What a per-process image cannot hold
// consistently is memory several processes write: a shared-memory window
// (shared_segment.h). For those:
//   - before the rank reports its drain done, its program must be stopped
//     at an MPI call (app_stopped_needed()), so that once every rank is
//     drained no process writes the segment any more;
//   - before the image, each rank keeps only its own part, in private
//     memory at the same address (before_image());
//   - after it, continued or restarted, the ranks map a new segment there
//     and write their parts back (after_image()).
// MPI_Win_allocate's memory that peers of the host load and store directly
// (window_direct.cpp) is written only inside MPI calls, which a checkpoint
// holds off: before the image the peers' mappings go and the rank's own
// segment becomes private memory; from then on its peers reach it by
// messages, wherever the image is restored.
#pragma once

#include "lazarus/status.h"

namespace lz::osc {

bool app_stopped_needed();
// Whether before_image() / after_image() have anything to do.
bool images_need_work();
Status before_image();
Status after_image(double timeout_s);

}  // namespace lz::osc
