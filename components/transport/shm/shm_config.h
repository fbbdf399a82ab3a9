// transport/shm parameters: the one table (transport_shm_<name>) and the
// validated values a module is built with.
//
//   LZ_ASSIGN_OR_RETURN(ShmConfig c, ShmConfig::from_params(ctx));
//   if (c.single_copy) ...
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>

#include "lazarus/component.h"
#include "lazarus/param.h"
#include "lazarus/status.h"

namespace lz::transport::shm {

// The parameter table (full names transport_shm_<name>).
inline constexpr ParamSpec kParams[] = {
    {"ring_size", ParamType::kSize, "128k",
     "Bytes of each per-sender receive ring (a power of two, >= 8k). Every rank's segment holds one ring per "
     "rank on its host: local_ranks^2 * ring_size of shared memory per host, reserved up front",
     4},
    {"max_frame", ParamType::kSize, "32k",
     "Largest frame copied through a ring (header and payload); at most ring_size/2 - 8", 4},
    {"get_threshold", ParamType::kSize, "32k",
     "Messages larger than this move by rendezvous and single-copy get (the p2p engine's eager limit over shm "
     "while single copy works, unless p2p_eager_limit is set)",
     4},
    {"single_copy", ParamType::kBool, "true",
     "Offer single-copy get() through process_vm_readv (needs ptrace permission between ranks)", 4},
    {"backing_dir", ParamType::kString, "/dev/shm",
     "Directory (normally a tmpfs) holding the shared segments and doorbell FIFOs", 6},
    {"liveness_ms", ParamType::kInt, "100",
     "Milliseconds between checks that local peers are still alive while this rank is busy", 7},
    {"membarrier", ParamType::kBool, "true",
     "Let a send publish its record without a full fence: a rank about to sleep runs "
     "membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) instead. Used where the kernel allows it; false fences every send",
     7},
    {"checkpoint_wait_ms", ParamType::kInt, "10000",
     "Milliseconds the checkpoint hook waits for local peers to consume the frames this rank sent them "
     "(they are draining too) before it refuses the checkpoint",
     7},
};
inline constexpr size_t kNumParams = std::size(kParams);

// Values come from from_params() only, so the table above is the one place a
// default is written.
struct ShmConfig {
  uint64_t ring_bytes{};          // each per-sender ring
  uint64_t max_frame{};           // largest frame through a ring
  uint64_t get_threshold{};       // eager limit advised to the engine while get works
  bool single_copy{};             // offer get() through process_vm_readv
  bool membarrier{};              // unfenced sends, membarrier before sleeping (shm_membarrier.h)
  std::string backing_dir;        // where segments and doorbells live
  int64_t liveness_ms{};          // how often a busy rank checks its peers are alive
  int64_t checkpoint_wait_ms{};   // on_checkpoint: bound on waiting for peers to consume our frames

  // Reads transport_shm_* through ctx (every parameter is registered, so this
  // cannot miss; without a ParamStore, the table's defaults) and checks the
  // combination; kInvalidArgument names the parameter.
  static StatusOr<ShmConfig> from_params(const QueryContext& ctx);
  Status validate() const;
};

}  // namespace lz::transport::shm
