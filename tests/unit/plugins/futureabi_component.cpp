// coll/futureabi: a descriptor whose layout (component ABI) version is newer
// than this Lazarus's. Only the stable prefix may be read; query() aborts to
// prove the loader never gets that far.
#include <cstdlib>
#include <memory>

#include "lazarus/component.h"
#include "lazarus/frameworks/coll.h"

namespace {
lz::StatusOr<std::unique_ptr<lz::Module>> query(const lz::QueryContext&) { std::abort(); }
}  // namespace

LZ_COMPONENT(coll, futureabi) = {
    lz::kComponentMagic, lz::kComponentAbiVersion + 41, "coll", "futureabi", lz::coll::kInterfaceVersion,
    "0.0.1", "Test plugin with a future descriptor ABI", 10,
    nullptr, 0, &query, nullptr};
