// A batch of collective-context requests (see requests.h).
#include "coll_base/requests.h"

namespace lz::coll::base {

Requests::~Requests() {
  if (n_ > 0) wait().ignore();
}

void Requests::add(StatusOr<Request*> r) {
  if (!r.ok()) {
    if (first_error_.ok()) first_error_ = r.status();
    return;
  }
  if (n_ < kInline) {
    inline_[n_++] = *r;
    return;
  }
  if (more_.empty()) more_.assign(inline_, inline_ + kInline);
  more_.push_back(*r);
  ++n_;
}

Status Requests::wait() {
  Status s = n_ == 0 ? Status::Ok() : comm_.waitall(n_, data());
  n_ = 0;
  more_.clear();
  if (!first_error_.ok()) return first_error_;
  return s;
}

}  // namespace lz::coll::base
