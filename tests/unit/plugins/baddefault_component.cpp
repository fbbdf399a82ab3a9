// coll/baddefault: a plugin whose parameter table has a default that does not
// parse ("four" for an int). The registry must refuse the whole component: if
// it stayed in its framework, selection would call query(), which reads the
// parameter that was never registered.
#include <iterator>
#include <memory>

#include "lazarus/frameworks/coll.h"
#include "lazarus/param_store.h"

namespace {

constexpr lz::ParamSpec kParams[] = {
    {"fanout", lz::ParamType::kInt, "four", "Children per tree node (bad default)", 5},
};

class Module final : public lz::coll::Module {
 public:
  uint32_t enable(lz::coll::Comm&) override { return 0; }
};

lz::StatusOr<std::unique_ptr<lz::Module>> query(const lz::QueryContext& ctx) {
  (void)ctx.params->get_int(ctx.param_prefix + "fanout");  // aborts if never registered
  return std::unique_ptr<lz::Module>(new Module());
}

}  // namespace

LZ_COMPONENT(coll, baddefault) = {
    LZ_COMPONENT_HEADER(coll, baddefault, lz::coll::kInterfaceVersion),
    "0.0.1", "Test plugin with an unparsable parameter default", /*default_priority=*/50,
    kParams, std::size(kParams), &query, nullptr};
