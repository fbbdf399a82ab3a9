// Recursive-doubling allreduce (MPICH): log2(pof2) exchange rounds of the
// whole vector, pof2 the largest power of two <= n. The first 2*rem ranks
// (rem = n - pof2) fold in pairs first (odd rank r absorbs r-1, which sits
// out) and get the result back at the end. Every new rank covers a
// contiguous range of old ranks in order, and the lower range is always the
// left operand, so non-commutative ops are correct.
#include "coll_tuned.h"
#include "coll_base/pow2_fold.h"
#include "coll_base/scratch.h"
#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"

namespace lz::coll::tuned {

Status allreduce_recursive_doubling(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op,
                                    Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (count == 0) return Status::Ok();
  if (!is_in_place(sbuf)) dt::copy(sbuf, count, dt, rbuf, count, dt);
  if (n == 1) return Status::Ok();
  const base::Pow2Fold fold(n);
  base::Scratch tmp(count, dt);
  LZ_ASSIGN_OR_RETURN(const int newrank, fold.fold_in(rbuf, tmp.data(), count, dt, op, comm, kAllreduce));
  if (newrank != base::Pow2Fold::kSitsOut) {
    for (int mask = 1; mask < fold.pof2(); mask <<= 1) {
      const int dst = fold.old_rank(newrank ^ mask);
      LZ_RETURN_IF_ERROR(comm.sendrecv(rbuf, count, dt, dst, kAllreduce, tmp.data(), count, dt, dst, kAllreduce));
      if (op.commutative() || dst < me) {
        op.apply(tmp.data(), rbuf, count, dt);  // rbuf = theirs op mine
      } else {
        op.apply(rbuf, tmp.data(), count, dt);  // tmp = mine op theirs
        dt::copy(tmp.data(), count, dt, rbuf, count, dt);
      }
    }
  }
  return fold.unfold(rbuf, count, dt, comm, kAllreduce);
}

}  // namespace lz::coll::tuned
