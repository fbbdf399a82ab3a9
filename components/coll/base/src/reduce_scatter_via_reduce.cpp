// Reduce-scatter as reduce to rank 0 + linear scatter (see
// reduce_scatter_via_reduce.h).
#include "coll_base/reduce_scatter_via_reduce.h"

#include <vector>

#include "coll_base/elem.h"
#include "coll_base/requests.h"
#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/typed_buffer.h"

namespace lz::coll::base {

Status reduce_scatter_via_reduce(const void* sbuf, void* rbuf, const int* rcounts, const dt::Datatype& dt,
                                 Comm& comm, int tag, const ReduceToZero& reduce) {
  const int n = comm.size(), me = comm.rank();
  std::vector<int> displs(n);
  int total = 0;
  for (int r = 0; r < n; ++r) {
    displs[r] = total;
    total += rcounts[r];
  }
  if (total == 0) return Status::Ok();
  const void* in = is_in_place(sbuf) ? rbuf : sbuf;  // in place: rbuf holds the whole input
  dt::TypedBuffer full;
  if (me == 0) full.reset(total, dt);
  LZ_RETURN_IF_ERROR(reduce(in, full.data(), total));
  if (me != 0) return comm.recv(rbuf, rcounts[me], dt, 0, tag);
  dt::copy(full.data(), rcounts[0], dt, rbuf, rcounts[0], dt);
  Requests reqs(comm);
  for (int r = 1; r < n; ++r) reqs.add(comm.isend(elem(full.data(), displs[r], dt), rcounts[r], dt, r, tag));
  return reqs.wait();
}

}  // namespace lz::coll::base
