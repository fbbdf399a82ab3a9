// Recursive-doubling allreduce (MPICH): log2(pof2) exchange rounds of the
// whole vector, pof2 the largest power of two <= n. The first 2*rem ranks
// (rem = n - pof2) fold in pairs first (odd rank r absorbs r-1, which sits
// out) and get the result back at the end. Every new rank covers a
// contiguous range of old ranks in order, and the lower range is always the
// left operand, so non-commutative ops are correct.
#include "coll_tuned.h"
#include "mpi/coll_util.h"

namespace lz::coll::tuned {

using dt::TypedBuffer;

Status allreduce_recursive_doubling(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op,
                                    Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (count == 0) return Status::Ok();
  if (!is_in_place(sbuf)) dt::copy(sbuf, count, dt, rbuf, count, dt);
  if (n == 1) return Status::Ok();
  const int pof2 = pow2_floor(n);
  const int rem = n - pof2;
  TypedBuffer tmp(count, dt);
  int newrank;
  if (me < 2 * rem) {
    if (me % 2 == 0) {
      LZ_RETURN_IF_ERROR(comm.coll_send(rbuf, count, dt, me + 1, kAllreduce));
      newrank = -1;
    } else {
      LZ_RETURN_IF_ERROR(comm.coll_recv(tmp.data(), count, dt, me - 1, kAllreduce));
      op.apply(tmp.data(), rbuf, count, dt);  // rbuf = x(me-1) op x(me)
      newrank = me / 2;
    }
  } else {
    newrank = me - rem;
  }
  if (newrank != -1) {
    for (int mask = 1; mask < pof2; mask <<= 1) {
      const int newdst = newrank ^ mask;
      const int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
      LZ_RETURN_IF_ERROR(
          comm.coll_sendrecv(rbuf, count, dt, dst, kAllreduce, tmp.data(), count, dt, dst, kAllreduce));
      if (op.commutative() || dst < me) {
        op.apply(tmp.data(), rbuf, count, dt);  // rbuf = theirs op mine
      } else {
        op.apply(rbuf, tmp.data(), count, dt);  // tmp = mine op theirs
        dt::copy(tmp.data(), count, dt, rbuf, count, dt);
      }
    }
  }
  if (me < 2 * rem) {
    if (me % 2 == 1) return comm.coll_send(rbuf, count, dt, me - 1, kAllreduce);
    return comm.coll_recv(rbuf, count, dt, me + 1, kAllreduce);
  }
  return Status::Ok();
}

}  // namespace lz::coll::tuned
