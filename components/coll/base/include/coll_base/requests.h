// A batch of non-blocking point-to-point requests on a communicator's
// collective context, completed together: how the linear and tree algorithms
// post every transfer of a step at once and wait once.
//
//   lz::coll::base::Requests reqs(comm);
//   for (int r = 0; r < n; ++r) reqs.add(comm.irecv(elem(buf, r * count, dt), count, dt, r, kTag));
//   LZ_RETURN_IF_ERROR(reqs.wait());
#pragma once

#include <vector>

#include "lazarus/frameworks/coll.h"
#include "lazarus/status.h"

namespace lz::coll::base {

// A failure to post is remembered and returned by wait(), after the requests
// already posted have completed: a request must never be left behind pointing
// at a caller's buffer. The destructor waits for anything still pending.
// The first kInline requests are held in the object itself: a small-message
// collective posts a handful, and a heap allocation per call was a visible
// part of an 8-byte alltoall or bcast.
class Requests {
 public:
  explicit Requests(Comm& comm) : comm_(comm) {}
  Requests(const Requests&) = delete;
  Requests& operator=(const Requests&) = delete;
  ~Requests();

  // Takes the result of Comm::isend/irecv: keeps the request, or the first error.
  void add(StatusOr<Request*> r);
  bool failed() const { return !first_error_.ok(); }
  // Waits for every request added so far (Comm::waitall) and forgets them.
  // Returns the first posting error, else the first completion error.
  Status wait();

 private:
  static constexpr int kInline = 8;
  Request** data() { return more_.empty() ? inline_ : more_.data(); }

  Comm& comm_;
  int n_ = 0;
  Request* inline_[kInline];
  std::vector<Request*> more_;  // all of them, once there are more than kInline
  Status first_error_;
};

}  // namespace lz::coll::base
