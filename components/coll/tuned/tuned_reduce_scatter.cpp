// Reduce-scatter. Commutative ops: pairwise exchange (MPICH's long-message
// algorithm): in step i rank me sends the block of rank me+i and reduces the
// block it receives from me-i into its own; n-1 steps, each rank sends and
// receives every block once. Non-commutative ops: the order-preserving
// binomial reduce of the whole vector to rank 0, then a linear scatter.
#include <vector>

#include "coll_base/elem.h"
#include "coll_base/reduce_scatter_via_reduce.h"
#include "coll_base/scratch.h"
#include "coll_tuned.h"
#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"

namespace lz::coll::tuned {

Status reduce_scatter_pairwise(const void* sbuf, void* rbuf, const int* rcounts, const Datatype& dt, const Op& op,
                               Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  std::vector<int> displs(n);
  for (int r = 1; r < n; ++r) displs[r] = displs[r - 1] + rcounts[r - 1];
  const bool in_place = is_in_place(sbuf);
  const void* in = in_place ? rbuf : sbuf;  // in place: rbuf holds the whole input
  const int mine = rcounts[me];
  // Not in place, rbuf is free: the first block received lands there and
  // takes this rank's own (rbuf = own op theirs, commutative), the later ones
  // are combined into it. In place, rbuf is the send buffer until the last
  // step: the sum grows in a scratch vector, copied at the end. Neither is
  // zeroed (np 2, 2 MiB blocks: two zeroed vectors and two copies were a
  // third of the call).
  base::Scratch tmp(mine, dt), sum(in_place ? mine : 0, dt);
  void* acc = in_place ? sum.data() : rbuf;
  if (in_place) dt::copy(base::elem(in, displs[me], dt), mine, dt, acc, mine, dt);
  for (int i = 1; i < n; ++i) {
    const int dst = (me + i) % n, src = (me - i + n) % n;
    void* into = !in_place && i == 1 ? rbuf : tmp.data();
    LZ_RETURN_IF_ERROR(comm.sendrecv(base::elem(in, displs[dst], dt), rcounts[dst], dt, dst, kReduceScatter, into, mine,
                                     dt, src, kReduceScatter));
    if (into == rbuf)
      op.apply(base::elem(in, displs[me], dt), rbuf, mine, dt);
    else
      op.apply(tmp.data(), acc, mine, dt);
  }
  if (n == 1 && !in_place) dt::copy(base::elem(in, displs[me], dt), mine, dt, rbuf, mine, dt);
  if (in_place) dt::copy(acc, mine, dt, rbuf, mine, dt);  // rbuf was the send buffer until now
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
