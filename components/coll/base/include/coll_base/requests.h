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
  Comm& comm_;
  std::vector<Request*> reqs_;
  Status first_error_;
};

}  // namespace lz::coll::base
