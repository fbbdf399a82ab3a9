// Descriptor of transport/udsock (examples/components/transport_udsock).
#include <iterator>
#include <memory>

#include "udsock_config.h"

namespace {

lz::StatusOr<std::unique_ptr<lz::Module>> query(const lz::QueryContext& ctx) {
  if (ctx.params == nullptr) return lz::Internal("udsock: query without parameters");
  // An example: it never replaces shm or tcp unless the user names it.
  if (!ctx.named && !ctx.listing_only)
    return lz::Unavailable("not requested: use --mca transport udsock,self");
  return std::unique_ptr<lz::Module>(new udsock::UdsockTransport(udsock::load_config(ctx)));
}

}  // namespace

LZ_COMPONENT(transport, udsock) = {
    LZ_COMPONENT_HEADER(transport, udsock, lz::transport::kInterfaceVersion),
    "1.0.0", "Example (SDK): Unix-domain stream sockets between ranks of a host", /*default_priority=*/20,
    udsock::kParams, std::size(udsock::kParams), &query, nullptr};
