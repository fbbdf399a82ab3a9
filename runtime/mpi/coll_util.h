// Small helpers shared by the collective components (components/coll/*):
// addressing elements of a typed buffer and waiting for a batch of
// non-blocking collective-context requests. Header-only: the components are
// separate folders and must not depend on each other's objects.
//
//   lz::coll::Requests reqs(comm);
//   for (int r = 0; r < n; ++r) reqs.add(comm.coll_irecv(lz::coll::elem(buf, r * count, dt), count, dt, r, kTag));
//   LZ_RETURN_IF_ERROR(reqs.wait());
#pragma once

#include <vector>

#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"
#include "lazarus/datatype/typed_buffer.h"
#include "lazarus/frameworks/coll.h"
#include "p2p/comm.h"

namespace lz::coll {

// Address of element `i` of a buffer of `dt` elements.
inline void* elem(void* buf, ptrdiff_t i, const Datatype& dt) { return static_cast<char*>(buf) + i * dt.extent(); }
inline const void* elem(const void* buf, ptrdiff_t i, const Datatype& dt) {
  return static_cast<const char*>(buf) + i * dt.extent();
}

// Largest power of two <= n (n >= 1).
inline int pow2_floor(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// A batch of requests completed together. A failure to post is remembered and
// returned by wait(), after the requests already posted have completed (a
// request must never be left behind pointing at a caller's buffer).
class Requests {
 public:
  explicit Requests(Comm& comm) : comm_(comm) {}
  Requests(const Requests&) = delete;
  Requests& operator=(const Requests&) = delete;
  ~Requests() {
    if (!reqs_.empty()) wait().ignore();
  }
  void add(StatusOr<lz_mpi_request_s*> r) {
    if (r.ok()) {
      reqs_.push_back(*r);
    } else if (first_error_.ok()) {
      first_error_ = r.status();
    }
  }
  bool failed() const { return !first_error_.ok(); }
  Status wait() {
    Status s = reqs_.empty() ? Status::Ok() : comm_.coll_waitall(static_cast<int>(reqs_.size()), reqs_.data());
    reqs_.clear();
    if (!first_error_.ok()) return first_error_;
    return s;
  }

 private:
  Comm& comm_;
  std::vector<lz_mpi_request_s*> reqs_;
  Status first_error_;
};

}  // namespace lz::coll
