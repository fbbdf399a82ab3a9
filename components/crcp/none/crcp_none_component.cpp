// crcp/none: no coordination. Chosen when no other protocol can run; a
// checkpoint of a multi-rank job cannot be consistent without one, so
// quiesce() refuses for more than one rank.
#include <memory>

#include "lazarus/frameworks/crcp.h"

namespace lz::crcp {
namespace {

class NoneModule final : public Module {
 public:
  Status quiesce(Coordinator& c) override {
    if (c.size() <= 1) return Status::Ok();
    return Unavailable("no checkpoint coordination protocol is selected (crcp=none) for a " +
                       std::to_string(c.size()) + "-rank job; select one with `--mca crcp bkmrk`");
  }
  Status resume(Coordinator&, bool) override { return Status::Ok(); }
};

StatusOr<std::unique_ptr<lz::Module>> query(const QueryContext&) {
  return std::unique_ptr<lz::Module>(new NoneModule());
}

}  // namespace
}  // namespace lz::crcp

LZ_COMPONENT(crcp, none) = {
    LZ_COMPONENT_HEADER(crcp, none, lz::crcp::kInterfaceVersion),
    "1.0.0", "No coordination (single-rank checkpoints only)", /*default_priority=*/0,
    nullptr, 0, &lz::crcp::query, nullptr};
