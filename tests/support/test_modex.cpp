#include "test_modex.h"

namespace lz::test {

Status TestModex::put(std::string_view key, std::string_view value) {
  if (put_) return put_(key, value);
  (*table_)[rank_][std::string(key)] = std::string(value);
  return Status::Ok();
}

Status TestModex::fence() { return fence_ ? fence_(table_) : Status::Ok(); }

StatusOr<std::string> TestModex::get(int rank, std::string_view key) const {
  auto r = table_->find(rank);
  if (r != table_->end()) {
    auto it = r->second.find(std::string(key));
    if (it != r->second.end()) return it->second;
  }
  return NotFound("modex: rank " + std::to_string(rank) + " published no '" + std::string(key) +
                  "' before the last fence");
}

}  // namespace lz::test
