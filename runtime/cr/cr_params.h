// Parameters of the rank's CR service (runtime/cr), registered with the
// runtime's others so `--mca cr_drain_timeout 30` is known to the launcher,
// `lazarus info` and the ranks.
#pragma once

#include "lazarus/registry.h"
#include "lazarus/status.h"

namespace lz::rt {

inline constexpr const char* kParamCrDrainTimeout = "cr_drain_timeout";
inline constexpr const char* kParamCrHookTimeout = "cr_hook_timeout";

// Idempotent.
Status register_cr_params(Registry& reg);

}  // namespace lz::rt
