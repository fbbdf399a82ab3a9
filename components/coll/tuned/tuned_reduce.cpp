// Binomial-tree reduce. Each node's accumulator covers the contiguous range of
// (relative) ranks [v, v + 2^j) and a child's covers the next range, so
// combining as acc = acc op child keeps rank order. For commutative ops the
// tree is rooted at the root; for non-commutative ones at rank 0 (relative
// order = rank order) and rank 0 then sends the result to the root.
#include <utility>

#include "coll_tuned.h"
#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"
#include "lazarus/datatype/typed_buffer.h"

namespace lz::coll::tuned {

using dt::TypedBuffer;

Status reduce_binomial(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, int root,
                       Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (count == 0) return Status::Ok();
  const bool in_place = is_in_place(sbuf);
  const int tree_root = op.commutative() ? root : 0;
  const int v = (me - tree_root + n) % n;
  TypedBuffer a(count, dt), b(count, dt);
  void* acc = a.data();
  void* tmp = b.data();
  dt::copy(in_place ? rbuf : sbuf, count, dt, acc, count, dt);
  for (int mask = 1; mask < n; mask <<= 1) {
    if (v & mask) {
      LZ_RETURN_IF_ERROR(comm.send(acc, count, dt, (v - mask + tree_root) % n, kReduce));
      break;
    }
    if (v + mask < n) {
      LZ_RETURN_IF_ERROR(comm.recv(tmp, count, dt, (v + mask + tree_root) % n, kReduce));
      op.apply(acc, tmp, count, dt);  // tmp = acc op child
      std::swap(acc, tmp);
    }
  }
  if (me == tree_root) {
    if (me == root) {
      dt::copy(acc, count, dt, rbuf, count, dt);
      return Status::Ok();
    }
    return comm.send(acc, count, dt, root, kReduce);
  }
  if (me == root) return comm.recv(rbuf, count, dt, tree_root, kReduce);
  return Status::Ok();
}

}  // namespace lz::coll::tuned
