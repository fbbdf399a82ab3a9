// coll/basic reductions: linear reduce in rank order (the root combines
// x0 op (x1 op (... op xn-1)), correct for non-commutative ops), and the
// functions built on it: allreduce, reduce_scatter, reduce_scatter_block.
#include <vector>

#include "coll_base/reduce_scatter_via_reduce.h"
#include "coll_basic.h"
#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"
#include "lazarus/datatype/typed_buffer.h"

namespace lz::coll {

using dt::TypedBuffer;

Status BasicModule::reduce(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, int root,
                           Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (count == 0) return Status::Ok();
  const bool in_place = is_in_place(sbuf);
  if (me != root) return comm.send(in_place ? rbuf : sbuf, count, dt, root, basic_tag::kReduce);

  // The accumulator is rbuf; with MPI_IN_PLACE it holds the root's own
  // contribution, which is needed later in the chain: keep a copy.
  const void* own = sbuf;
  TypedBuffer own_copy;
  if (in_place) {
    own_copy.reset(count, dt);
    dt::copy(rbuf, count, dt, own_copy.data(), count, dt);
    own = own_copy.data();
  }
  if (root == n - 1) {
    if (!in_place) dt::copy(sbuf, count, dt, rbuf, count, dt);
  } else {
    LZ_RETURN_IF_ERROR(comm.recv(rbuf, count, dt, n - 1, basic_tag::kReduce));
  }
  TypedBuffer tmp;
  if (n > 1) tmp.reset(count, dt);
  for (int r = n - 2; r >= 0; --r) {
    const void* in = own;
    if (r != root) {
      LZ_RETURN_IF_ERROR(comm.recv(tmp.data(), count, dt, r, basic_tag::kReduce));
      in = tmp.data();
    }
    op.apply(in, rbuf, count, dt);  // rbuf = x_r op (x_r+1 op ...)
  }
  return Status::Ok();
}

Status BasicModule::allreduce(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op,
                              Comm& comm) {
  if (count == 0) return Status::Ok();
  const void* mine = comm.rank() == 0 ? sbuf : (is_in_place(sbuf) ? rbuf : sbuf);
  LZ_RETURN_IF_ERROR(reduce(mine, rbuf, count, dt, op, 0, comm));
  return bcast(rbuf, count, dt, 0, comm);
}

Status BasicModule::reduce_scatter(const void* sbuf, void* rbuf, const int* rcounts, const Datatype& dt,
                                   const Op& op, Comm& comm) {
  return base::reduce_scatter_via_reduce(sbuf, rbuf, rcounts, dt, comm, basic_tag::kScatter,
                                         [&](const void* in, void* out, int total) {
                                           return reduce(in, out, total, dt, op, 0, comm);
                                         });
}

Status BasicModule::reduce_scatter_block(const void* sbuf, void* rbuf, int rcount, const Datatype& dt,
                                         const Op& op, Comm& comm) {
  std::vector<int> counts(comm.size(), rcount);
  return reduce_scatter(sbuf, rbuf, counts.data(), dt, op, comm);
}

}  // namespace lz::coll
