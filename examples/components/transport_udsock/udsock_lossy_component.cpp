// Descriptor of transport/udsock_lossy: the udsock transport, deliberately
// broken. It drops every 10th frame it is given (send() says Ok), so
// `lazarus conformance` must report it failing and name the case (the
// ordering and stream cases see a gap in the sequence numbers). Never use it.
#include <iterator>
#include <memory>

#include "udsock_config.h"

namespace {

lz::StatusOr<std::unique_ptr<lz::Module>> query(const lz::QueryContext& ctx) {
  if (ctx.params == nullptr) return lz::Internal("udsock_lossy: query without parameters");
  if (!ctx.named && !ctx.listing_only)
    return lz::Unavailable("not requested: use --mca transport udsock_lossy,self");
  udsock::Config c = udsock::load_config(ctx);
  c.drop_every = 10;
  return std::unique_ptr<lz::Module>(new udsock::UdsockTransport(c));
}

}  // namespace

LZ_COMPONENT(transport, udsock_lossy) = {
    LZ_COMPONENT_HEADER(transport, udsock_lossy, lz::transport::kInterfaceVersion),
    "0.0.1", "Example (SDK), broken on purpose: udsock that drops every 10th frame", /*default_priority=*/1,
    udsock::kParams, std::size(udsock::kParams), &query, nullptr};
