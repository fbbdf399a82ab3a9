// The power-of-two fold (MPICH's scheme for recursive doubling and
// Rabenseifner on any communicator size): with pof2 the largest power of two
// <= n and rem = n - pof2, the first 2*rem ranks pair up; the even one of each
// pair sends its vector to the odd one, which combines them (even op odd,
// rank order kept) and stands for both. The algorithm then runs on pof2 "new
// ranks"; at the end each odd rank sends the result back to its even partner.
// Every new rank covers a contiguous range of old ranks in order, so
// non-commutative ops stay correct when the algorithm keeps lower ranges on
// the left.
//
//   const Pow2Fold fold(comm.size());
//   dt::TypedBuffer tmp(count, dt);
//   LZ_ASSIGN_OR_RETURN(int newrank, fold.fold_in(rbuf, tmp.data(), count, dt, op, comm, kTag));
//   if (newrank != Pow2Fold::kSitsOut) {
//     for (int mask = 1; mask < fold.pof2(); mask <<= 1) {
//       const int partner = fold.old_rank(newrank ^ mask);
//       ...
//     }
//   }
//   return fold.unfold(rbuf, count, dt, comm, kTag);
#pragma once

#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"
#include "lazarus/frameworks/coll.h"
#include "lazarus/status.h"

namespace lz::coll::base {

// Largest power of two <= n (n >= 1).
inline int pow2_floor(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

class Pow2Fold {
 public:
  // fold_in()'s answer for the even ranks of the folded pairs.
  static constexpr int kSitsOut = -1;

  explicit Pow2Fold(int size) : pof2_(pow2_floor(size)), rem_(size - pof2_) {}

  int pof2() const { return pof2_; }
  int rem() const { return rem_; }

  // Step 1 on this rank: `rbuf` holds its `count` elements of `dt`; `tmp` is
  // scratch for as many. Returns this rank's new rank in [0, pof2), with
  // rbuf = (even partner's vector) op (own) on odd folded ranks, or kSitsOut
  // for the even ones (which sent rbuf and wait in unfold()). Errors: those of
  // the Comm calls.
  StatusOr<int> fold_in(void* rbuf, void* tmp, int count, const dt::Datatype& dt, const dt::Op& op, Comm& comm,
                        int tag) const;
  // The communicator rank that plays new rank `newrank`.
  int old_rank(int newrank) const { return newrank < rem_ ? newrank * 2 + 1 : newrank + rem_; }
  // Last step: odd folded ranks send rbuf to their even partner, which
  // receives it into rbuf; other ranks do nothing.
  Status unfold(void* rbuf, int count, const dt::Datatype& dt, Comm& comm, int tag) const;

 private:
  int pof2_;
  int rem_;
};

}  // namespace lz::coll::base
