// Descriptor of coll/basic.
#include <memory>

#include "coll_basic.h"

namespace {
lz::StatusOr<std::unique_ptr<lz::Module>> query(const lz::QueryContext&) {
  return std::unique_ptr<lz::Module>(new lz::coll::BasicModule());
}
}  // namespace

LZ_COMPONENT(coll, basic) = {
    LZ_COMPONENT_HEADER(coll, basic, lz::coll::kInterfaceVersion),
    "1.0.0", "Linear reference algorithms for every collective", /*default_priority=*/10,
    nullptr, 0, &query, nullptr};
