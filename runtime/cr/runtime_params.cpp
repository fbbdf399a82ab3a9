#include "cr/runtime_params.h"

#include "cr/cr_params.h"
#include "oob/oob_params.h"
#include "p2p/params.h"
#include "snapshot/snapshot_params.h"

namespace lz::rt {

Status register_runtime_params(Registry& reg) {
  LZ_RETURN_IF_ERROR(oob::register_runtime_params(reg));
  LZ_RETURN_IF_ERROR(register_p2p_params(reg));
  LZ_RETURN_IF_ERROR(snapshot::register_snapshot_params(reg));
  LZ_RETURN_IF_ERROR(register_cr_params(reg));
  return Status::Ok();
}

}  // namespace lz::rt
