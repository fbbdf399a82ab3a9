// Reduce-scatter. Commutative ops: pairwise exchange (MPICH's long-message
// algorithm): in step i rank me sends the block of rank me+i and reduces the
// block it receives from me-i into its own; n-1 steps, each rank sends and
// receives every block once. Non-commutative ops: the order-preserving
// binomial reduce of the whole vector to rank 0, then a linear scatter.
#include <vector>

#include "coll_tuned.h"
#include "coll_base/elem.h"
#include "coll_base/reduce_scatter_via_reduce.h"
#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"
#include "lazarus/datatype/typed_buffer.h"

namespace lz::coll::tuned {

using dt::TypedBuffer;

Status reduce_scatter_pairwise(const void* sbuf, void* rbuf, const int* rcounts, const Datatype& dt, const Op& op,
                               Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  std::vector<int> displs(n);
  for (int r = 1; r < n; ++r) displs[r] = displs[r - 1] + rcounts[r - 1];
  const void* in = is_in_place(sbuf) ? rbuf : sbuf;  // in place: rbuf holds the whole input
  const int mine = rcounts[me];
  TypedBuffer acc(mine, dt), tmp(mine, dt);
  dt::copy(base::elem(in, displs[me], dt), mine, dt, acc.data(), mine, dt);
  for (int i = 1; i < n; ++i) {
    const int dst = (me + i) % n, src = (me - i + n) % n;
    LZ_RETURN_IF_ERROR(comm.sendrecv(base::elem(in, displs[dst], dt), rcounts[dst], dt, dst, kReduceScatter,
                                          tmp.data(), mine, dt, src, kReduceScatter));
    op.apply(tmp.data(), acc.data(), mine, dt);
  }
  // Only now may rbuf be written: in place, it was the send buffer.
  dt::copy(acc.data(), mine, dt, rbuf, mine, dt);
  return Status::Ok();
}

Status reduce_scatter_reduce_scatterv(const void* sbuf, void* rbuf, const int* rcounts, const Datatype& dt,
                                      const Op& op, Comm& comm) {
  return base::reduce_scatter_via_reduce(sbuf, rbuf, rcounts, dt, comm, kReduceScatter,
                                         [&](const void* in, void* out, int total) {
                                           return reduce_binomial(in, out, total, dt, op, 0, comm);
                                         });
}

}  // namespace lz::coll::tuned
