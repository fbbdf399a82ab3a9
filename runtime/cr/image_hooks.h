// What a core image needs prepared beyond the engine and the transports:
// state a layer above the CR service owns (one-sided windows, runtime/osc,
// whose shared-memory segments cannot go into a per-process image as they
// are). That layer registers its hooks; the CR service (cr_service.cpp)
// calls them around the dump, and has nothing to do while none are set.
//
//   set_image_hooks({&osc::app_stopped_needed, &osc::images_need_work,
//                    &osc::before_image, &osc::after_image});
#pragma once

#include "lazarus/status.h"

namespace lz::rt {

struct ImageHooks {
  // Every rank's program must be stopped at an MPI call before the drain
  // is reported (memory other processes write).
  bool (*app_stopped_needed)() = nullptr;
  // before_image() / after_image() have something to do.
  bool (*needs_work)() = nullptr;
  Status (*before_image)() = nullptr;
  Status (*after_image)(double timeout_s) = nullptr;
};

// Process-wide; set once by the layer that needs it (idempotent).
void set_image_hooks(const ImageHooks& hooks);
const ImageHooks& image_hooks();

}  // namespace lz::rt
