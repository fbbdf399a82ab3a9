// crcp/bkmrk: bookmark exchange and drain (bkmrk_module.h). Preferred over
// crcp/none whenever checkpointing is on.
#include <chrono>
#include <memory>

#include "bkmrk_module.h"
#include "lazarus/param_store.h"

namespace lz::crcp::bkmrk {
namespace {

StatusOr<std::unique_ptr<lz::Module>> query(const QueryContext& ctx) {
  // The drain bound is the runtime's cr_drain_timeout (seconds); outside a
  // rank (lazarus info) it may not be registered.
  double seconds = 60.0;
  if (ctx.params != nullptr && ctx.params->is_registered("cr_drain_timeout"))
    seconds = ctx.params->get_double("cr_drain_timeout");
  if (!(seconds > 0)) return InvalidArgument("cr_drain_timeout must be positive");
  auto ms = std::chrono::milliseconds(static_cast<long long>(seconds * 1000.0));
  return std::unique_ptr<lz::Module>(new BkmrkModule(ms));
}

}  // namespace
}  // namespace lz::crcp::bkmrk

LZ_COMPONENT(crcp, bkmrk) = {
    LZ_COMPONENT_HEADER(crcp, bkmrk, lz::crcp::kInterfaceVersion),
    "1.0.0", "Bookmark exchange and drain of in-flight data (LAM/MPI)", /*default_priority=*/20,
    nullptr, 0, &lz::crcp::bkmrk::query, nullptr};
