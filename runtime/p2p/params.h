// Parameters of the p2p engine ("MCA vars" owned by the runtime). The runtime
// registers them before the registry reads its sources; `lazarus info` and
// the launcher register them too so `--mca p2p_eager_limit 8k` is known.
//
//   LZ_RETURN_IF_ERROR(lz::rt::register_p2p_params(reg));
#pragma once

#include <cstddef>

#include "lazarus/param.h"
#include "lazarus/registry.h"

namespace lz::rt {

// Registers them (idempotent: a second call registers nothing).
Status register_p2p_params(Registry& reg);

}  // namespace lz::rt
