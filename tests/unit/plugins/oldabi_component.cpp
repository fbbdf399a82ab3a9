// transport/oldabi: a plugin built against a transport interface version this
// Lazarus does not provide (999). The loader must refuse it before calling
// anything in it; query() aborts to prove that.
#include <cstdlib>
#include <memory>

#include "lazarus/component.h"

namespace {
lz::StatusOr<std::unique_ptr<lz::Module>> query(const lz::QueryContext&) { std::abort(); }
}  // namespace

LZ_COMPONENT(transport, oldabi) = {
    LZ_COMPONENT_HEADER(transport, oldabi, /*interface_version=*/999),
    "0.0.1", "Test plugin with a mismatched interface version", 10,
    nullptr, 0, &query, nullptr};
