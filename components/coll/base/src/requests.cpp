// A batch of collective-context requests (see requests.h).
#include "coll_base/requests.h"

namespace lz::coll::base {

Requests::~Requests() {
  if (!reqs_.empty()) wait().ignore();
}

void Requests::add(StatusOr<Request*> r) {
  if (r.ok()) {
    reqs_.push_back(*r);
  } else if (first_error_.ok()) {
    first_error_ = r.status();
  }
}

Status Requests::wait() {
  Status s = reqs_.empty() ? Status::Ok() : comm_.waitall(static_cast<int>(reqs_.size()), reqs_.data());
  reqs_.clear();
  if (!first_error_.ok()) return first_error_;
  return s;
}

}  // namespace lz::coll::base
