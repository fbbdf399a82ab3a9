// Descriptor of transport/tcp: parameters (tcp_config.cpp) and query().
#include <memory>

#include "lazarus/param_store.h"
#include "tcp_config.h"
#include "tcp_transport.h"

namespace lz::transport::tcp {
namespace {

StatusOr<std::unique_ptr<lz::Module>> query(const QueryContext& ctx) {
  if (ctx.params == nullptr) return Internal("tcp: query without parameters");
  // Only configuration is checked here: interfaces and sockets are opened by
  // init(), as `lazarus info` queries components without starting them.
  LZ_ASSIGN_OR_RETURN(TcpConfig config, load_config(*ctx.params, ctx.param_prefix));
  return std::unique_ptr<lz::Module>(new TcpTransport(std::move(config)));
}

}  // namespace
}  // namespace lz::transport::tcp

LZ_COMPONENT(transport, tcp) = {
    LZ_COMPONENT_HEADER(transport, tcp, lz::transport::kInterfaceVersion),
    "1.0.0", "TCP sockets between any hosts (authenticated, one connection per pair)", /*default_priority=*/20,
    lz::transport::tcp::kTcpParams, lz::transport::tcp::kNumTcpParams, &lz::transport::tcp::query, nullptr};
