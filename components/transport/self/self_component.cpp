// Descriptor of transport/self.
#include <memory>

#include "self_transport.h"

namespace {
lz::StatusOr<std::unique_ptr<lz::Module>> query(const lz::QueryContext&) {
  return std::unique_ptr<lz::Module>(new lz::transport::SelfTransport());
}
}  // namespace

LZ_COMPONENT(transport, self) = {
    LZ_COMPONENT_HEADER(transport, self, lz::transport::kInterfaceVersion),
    "1.0.0", "Loopback to the calling process", /*default_priority=*/100,
    nullptr, 0, &query, nullptr};
