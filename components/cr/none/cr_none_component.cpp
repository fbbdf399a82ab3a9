// cr/none: checkpointing off. The lowest-priority cr component, so it is chosen
// when nothing else can run, and what `--mca cr none` asks for. With it the
// runtime starts no CR thread and takes no entry lock.
#include <memory>

#include "lazarus/frameworks/cr.h"

namespace lz::cr {
namespace {

class NoneModule final : public Module {
 public:
  uint64_t capabilities() const override { return 0; }
  Status init() override { return Status::Ok(); }
  StatusOr<Outcome> checkpoint(const LocalSnapshot&) override {
    return Unavailable("checkpointing is off (cr=none); run with `--mca cr criu` to enable it");
  }
  Status finalize() override { return Status::Ok(); }
};

StatusOr<std::unique_ptr<lz::Module>> query(const QueryContext&) {
  return std::unique_ptr<lz::Module>(new NoneModule());
}

}  // namespace
}  // namespace lz::cr

LZ_COMPONENT(cr, none) = {
    LZ_COMPONENT_HEADER(cr, none, lz::cr::kInterfaceVersion),
    "1.0.0", "No checkpointing (no CR thread, no entry lock)", /*default_priority=*/0,
    nullptr, 0, &lz::cr::query, nullptr};
