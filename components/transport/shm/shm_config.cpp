#include "shm_config.h"

#include "lazarus/param_reader.h"
#include "lazarus/param_store.h"
#include "shm_ring.h"

namespace lz::transport::shm {

StatusOr<ShmConfig> ShmConfig::from_params(const QueryContext& ctx) {
  const ParamReader p = ctx.params != nullptr ? ParamReader(*ctx.params, ctx.param_prefix)
                                              : ParamReader(kParams, "transport_shm_");
  ShmConfig c;
  c.ring_bytes = static_cast<uint64_t>(p.get_int("ring_size"));
  c.max_frame = static_cast<uint64_t>(p.get_int("max_frame"));
  c.get_threshold = static_cast<uint64_t>(p.get_int("get_threshold"));
  c.single_copy = p.get_bool("single_copy");
  c.membarrier = p.get_bool("membarrier");
  c.backing_dir = p.get_string("backing_dir");
  c.liveness_ms = p.get_int("liveness_ms");
  c.checkpoint_wait_ms = p.get_int("checkpoint_wait_ms");
  LZ_RETURN_IF_ERROR(c.validate());
  return c;
}

Status ShmConfig::validate() const {
  if (ring_bytes < 8192 || (ring_bytes & (ring_bytes - 1)) != 0 || ring_bytes > (uint64_t{1} << 32))
    return InvalidArgument("transport_shm_ring_size must be a power of two between 8k and 4G, not " +
                           std::to_string(ring_bytes));
  if (max_frame < 64 || max_frame > max_payload_for_ring(ring_bytes))
    return InvalidArgument("transport_shm_max_frame must be between 64 and ring_size/2 - 8 (" +
                           std::to_string(max_payload_for_ring(ring_bytes)) + "), not " +
                           std::to_string(max_frame));
  if (backing_dir.empty() || backing_dir[0] != '/')
    return InvalidArgument("transport_shm_backing_dir must be an absolute path, not '" + backing_dir + "'");
  if (liveness_ms <= 0) return InvalidArgument("transport_shm_liveness_ms must be positive");
  if (checkpoint_wait_ms < 0) return InvalidArgument("transport_shm_checkpoint_wait_ms must not be negative");
  return Status::Ok();
}

}  // namespace lz::transport::shm
