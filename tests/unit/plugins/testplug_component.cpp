// coll/testplug: a minimal, well-formed plugin component for the plugin tests.
// It has one parameter (fanout) and always offers a module, whose capability
// bits carry the fanout it was configured with so a test can see that the
// parameter reached query().
#include <iterator>
#include <memory>

#include "lazarus/frameworks/coll.h"
#include "lazarus/param_store.h"

namespace {

constexpr lz::ParamSpec kParams[] = {
    {"fanout", lz::ParamType::kInt, "4", "Children per tree node (test plugin)", 5},
};

class TestplugModule final : public lz::coll::Module {
 public:
  explicit TestplugModule(int64_t fanout) : fanout_(fanout) {}
  uint32_t enable(lz::coll::Comm&) override { return 0; }
  uint64_t capabilities() const override { return static_cast<uint64_t>(fanout_); }

 private:
  int64_t fanout_;
};

lz::StatusOr<std::unique_ptr<lz::Module>> query(const lz::QueryContext& ctx) {
  return std::unique_ptr<lz::Module>(new TestplugModule(ctx.params->get_int(ctx.param_prefix + "fanout")));
}

}  // namespace

LZ_COMPONENT(coll, testplug) = {
    LZ_COMPONENT_HEADER(coll, testplug, lz::coll::kInterfaceVersion),
    "0.0.1", "Test plugin (tests/unit/plugins)", /*default_priority=*/5,
    kParams, std::size(kParams), &query, nullptr};
