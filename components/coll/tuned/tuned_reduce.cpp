// Binomial-tree reduce. Each node's accumulator covers the contiguous range of
// (relative) ranks [v, v + 2^j) and a child's covers the next range, so
// combining as acc = acc op child keeps rank order. For commutative ops the
// tree is rooted at the root; for non-commutative ones at rank 0 (relative
// order = rank order) and rank 0 then sends the result to the root.
//
// No copy of a rank's own contribution: a leaf sends it from the caller's
// buffer, and a node receives each child's vector into the buffer the
// accumulator is not in and combines into it (apply(acc, child) leaves
// acc op child in the child's buffer), so the accumulator alternates between
// two buffers. The root's are its receive buffer and one scratch vector,
// ordered so that the last combination lands in the receive buffer: an
// np 2 reduce is one transfer into rbuf and one pass of the op (it was two
// zeroed temporaries, three copies and the op: 2 MiB of doubles took 3x Open
// MPI's time).
#include <utility>

#include "coll_tuned.h"
#include "coll_base/scratch.h"
#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"

namespace lz::coll::tuned {

Status reduce_binomial(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, int root,
                       Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (count == 0) return Status::Ok();
  const bool in_place = is_in_place(sbuf);
  const void* own = in_place ? rbuf : sbuf;
  const int tree_root = op.commutative() ? root : 0;
  const int v = (me - tree_root + n) % n;
  // Children (relative ranks v + mask for the masks below v's lowest set bit)
  // and the parent (v minus that bit; none at the tree's root).
  int children = 0, parent_mask = 0;
  for (int mask = 1; mask < n; mask <<= 1) {
    if (v & mask) {
      parent_mask = mask;
      break;
    }
    if (v + mask < n) ++children;
  }
  const bool result_here = me == root && me == tree_root;
  if (children == 0) {
    if (parent_mask != 0) LZ_RETURN_IF_ERROR(comm.send(own, count, dt, (v - parent_mask + tree_root) % n, kReduce));
    else if (result_here && !in_place) dt::copy(own, count, dt, rbuf, count, dt);  // n == 1
    return me == root && !result_here ? comm.recv(rbuf, count, dt, tree_root, kReduce) : Status::Ok();
  }
  // buf[k % 2] receives the k-th child (k from 0). At the root the last one
  // lands in rbuf when rbuf is free from the start; in place, rbuf holds the
  // root's own vector until the first combination, so it takes the second.
  base::Scratch s0(count, dt), s1(result_here ? 0 : count, dt);
  void* buf[2] = {s0.data(), s1.data()};
  if (result_here) {
    const int last = in_place ? 1 : (children - 1) % 2;
    buf[last] = rbuf;
    buf[1 - last] = s0.data();
  }
  const void* acc = own;
  int k = 0;
  for (int mask = 1; mask < n && !(v & mask); mask <<= 1) {
    if (v + mask >= n) continue;
    void* child = buf[k++ % 2];
    LZ_RETURN_IF_ERROR(comm.recv(child, count, dt, (v + mask + tree_root) % n, kReduce));
    op.apply(acc, child, count, dt);  // child = acc op child
    acc = child;
  }
  if (parent_mask != 0) {
    LZ_RETURN_IF_ERROR(comm.send(acc, count, dt, (v - parent_mask + tree_root) % n, kReduce));
    return me == root ? comm.recv(rbuf, count, dt, tree_root, kReduce) : Status::Ok();
  }
  if (me == root) {  // the tree's root
    if (acc != rbuf) dt::copy(acc, count, dt, rbuf, count, dt);
    return Status::Ok();
  }
  return comm.send(acc, count, dt, root, kReduce);  // non-commutative, tree at 0
}

}  // namespace lz::coll::tuned
