// Descriptor of coll/allring (examples/components/coll_allring).
#include <iterator>
#include <memory>

#include "allring_module.h"
#include "lazarus/param_store.h"

namespace {

constexpr lz::ParamSpec kParams[] = {
    {"min_size", lz::ParamType::kInt, "2", "Smallest communicator allring provides allreduce on", 5},
    {"verbose", lz::ParamType::kBool, "false", "Say on stderr (rank 0) where allreduce is provided", 7},
};

lz::StatusOr<std::unique_ptr<lz::Module>> query(const lz::QueryContext& ctx) {
  if (ctx.params == nullptr) return lz::Internal("allring: query without parameters");
  const int64_t min_size = ctx.params->get_int(ctx.param_prefix + "min_size");
  if (min_size < 1) return lz::InvalidArgument("coll_allring_min_size must be >= 1");
  return std::unique_ptr<lz::Module>(new allring::AllringModule(static_cast<int>(min_size), ctx.params->get_bool(ctx.param_prefix + "verbose")));
}

}  // namespace

// Priority 60: above basic (10) and tuned, so where it is selected its
// allreduce wins and the rest comes from the modules below it.
LZ_COMPONENT(coll, allring) = {
    LZ_COMPONENT_HEADER(coll, allring, lz::coll::kInterfaceVersion),
    "1.0.0", "Example (SDK): allreduce only, by ring allgather and a rank-ordered local reduction",
    /*default_priority=*/60, kParams, std::size(kParams), &query, nullptr};
