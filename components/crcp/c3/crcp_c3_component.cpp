// crcp/c3: C3's non-blocking coordination for application-level checkpoints
// (c3_module.h has the protocol and its argument). Selected with cr=app,
// which needs it for a job of more than one rank, or when named; it declines
// otherwise.
#include <memory>

#include "c3_module.h"
#include "lazarus/param_store.h"

namespace lz::crcp::c3 {
namespace {

StatusOr<std::unique_ptr<lz::Module>> query(const QueryContext& ctx) {
  bool app = false;
  if (ctx.params != nullptr && ctx.params->is_registered("cr"))
    for (const auto& name : ctx.params->get_list("cr"))
      if (name == "app") app = true;
  // Named (`--mca crcp c3`): another application-level back end asked for
  // it, such as a plugin wrapping cr/app (examples/components/cr_sealed).
  if (!app && !ctx.named)
    return Unavailable("the protocol of application-level checkpoints: used with --mca cr app (or named: --mca crcp c3)");
  return std::unique_ptr<lz::Module>(new C3Module());
}

}  // namespace
}  // namespace lz::crcp::c3

LZ_COMPONENT(crcp, c3) = {
    LZ_COMPONENT_HEADER(crcp, c3, lz::crcp::kInterfaceVersion),
    "0.1.0", "C3's non-blocking protocol for application-level checkpoints (late messages logged, early ones suppressed)",
    /*default_priority=*/30, nullptr, 0, &lz::crcp::c3::query, nullptr};
