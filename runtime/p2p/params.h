// Parameters of the p2p engine ("MCA vars" owned by the runtime). The runtime
// registers them before the registry reads its sources; `lazarus info` and
// the launcher register them too so `--mca p2p_eager_limit 8k` is known.
//
//   reg.register_params(lz::rt::p2p_params(), lz::rt::p2p_params_count(), "runtime/p2p");
#pragma once

#include <cstddef>

#include "lazarus/param.h"
#include "lazarus/registry.h"

namespace lz::rt {

const ParamSpec* p2p_params();
size_t p2p_params_count();
// Registers them (idempotent: already registered names are skipped).
Status register_p2p_params(Registry& reg);

}  // namespace lz::rt
