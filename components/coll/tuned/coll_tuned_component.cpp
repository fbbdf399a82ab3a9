// Descriptor of coll/tuned: the switch points are its parameters.
#include <iterator>
#include <memory>

#include "coll_tuned.h"
#include "lazarus/param_store.h"

namespace {

constexpr lz::ParamSpec kParams[] = {
    {"allreduce_rabenseifner_min", lz::ParamType::kSize, "64k",
     "Allreduce message size (bytes) from which Rabenseifner's reduce-scatter + allgather is used (commutative "
     "ops, count >= largest power of two <= communicator size); below it, recursive doubling",
     5},
    {"allreduce_ring_min", lz::ParamType::kSize, "4M",
     "Allreduce message size (bytes) from which the ring reduce-scatter + allgather is used (commutative ops, "
     "count >= communicator size); it takes precedence over allreduce_rabenseifner_min",
     5},
    {"allgather_bruck_max", lz::ParamType::kSize, "16k",
     "Allgather total result size (bytes) up to which Bruck's algorithm is used; above it, the ring", 5},
    {"alltoall_pairwise_min", lz::ParamType::kSize, "1k",
     "Alltoall(v) block size (bytes per peer, largest of this rank's) from which the pairwise exchange is used; "
     "below it every transfer is posted at once",
     5},
};

lz::StatusOr<std::unique_ptr<lz::Module>> query(const lz::QueryContext& ctx) {
  lz::coll::TunedConfig cfg;
  if (ctx.params != nullptr) {
    auto get = [&](const char* name, int64_t fallback) {
      std::string full = ctx.param_prefix + name;
      return ctx.params->is_registered(full) ? ctx.params->get_int(full) : fallback;
    };
    cfg.allreduce_rabenseifner_min = get("allreduce_rabenseifner_min", cfg.allreduce_rabenseifner_min);
    cfg.allreduce_ring_min = get("allreduce_ring_min", cfg.allreduce_ring_min);
    cfg.allgather_bruck_max = get("allgather_bruck_max", cfg.allgather_bruck_max);
    cfg.alltoall_pairwise_min = get("alltoall_pairwise_min", cfg.alltoall_pairwise_min);
  }
  return std::unique_ptr<lz::Module>(new lz::coll::TunedModule(cfg));
}

}  // namespace

LZ_COMPONENT(coll, tuned) = {
    LZ_COMPONENT_HEADER(coll, tuned, lz::coll::kInterfaceVersion),
    "1.0.0", "Tree, recursive-doubling, Rabenseifner, Bruck/ring and pairwise algorithms with size switch points",
    /*default_priority=*/30, kParams, std::size(kParams), &query, nullptr};
