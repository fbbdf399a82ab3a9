// register_runtime_params(): every parameter table owned by the runtime
// rather than by a component (owner "runtime"). The launcher and each rank's
// MPI_Init both call it before Registry::configure(): the launcher validates
// --mca/--config/LZ_MCA_* against it and forwards the non-default values to
// the ranks as LZ_MCA_<name>, whose registries must know the same names.
// Runtime pieces that add parameters (p2p, cr service, ...) add their table
// here, so both sides stay in step. It sits in the core layer because it
// sees every table (core and rte); the launcher and CLI sit above it.
//
//   lz::Registry reg;
//   LZ_RETURN_IF_ERROR(lz::rt::register_runtime_params(reg));
//   LZ_RETURN_IF_ERROR(reg.configure(options));
#pragma once

#include "lazarus/registry.h"
#include "lazarus/status.h"

namespace lz::rt {

// Idempotent: a second call on the same registry does nothing.
Status register_runtime_params(Registry& reg);

}  // namespace lz::rt
