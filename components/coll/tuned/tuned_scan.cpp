// Recursive-doubling scan and exscan (MPICH): log2 rounds; in round k rank
// me exchanges its partial reduction (of ranks me-2^k+1 .. me, clipped) with
// me ^ 2^k. Data from a lower rank is always the left operand, so
// non-commutative ops are correct. The temporaries are not zeroed (each is
// written before it is read).
#include "coll_base/scratch.h"
#include "coll_tuned.h"
#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"

namespace lz::coll::tuned {

Status scan_recursive_doubling(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op,
                               Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (count == 0) return Status::Ok();
  if (!is_in_place(sbuf)) dt::copy(sbuf, count, dt, rbuf, count, dt);
  if (n == 1) return Status::Ok();
  base::Scratch partial(count, dt), tmp(count, dt);
  dt::copy(rbuf, count, dt, partial.data(), count, dt);
  for (int mask = 1; mask < n; mask <<= 1) {
    const int dst = me ^ mask;
    if (dst >= n) continue;
    LZ_RETURN_IF_ERROR(
        comm.sendrecv(partial.data(), count, dt, dst, kScan, tmp.data(), count, dt, dst, kScan));
    if (me > dst) {
      op.apply(tmp.data(), partial.data(), count, dt);
      op.apply(tmp.data(), rbuf, count, dt);
    } else if (op.commutative()) {
      op.apply(tmp.data(), partial.data(), count, dt);
    } else {
      op.apply(partial.data(), tmp.data(), count, dt);  // tmp = partial op higher
      dt::copy(tmp.data(), count, dt, partial.data(), count, dt);
    }
  }
  return Status::Ok();
}

Status exscan_recursive_doubling(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op,
                                 Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (count == 0 || n == 1) return Status::Ok();
  base::Scratch partial(count, dt), tmp(count, dt);
  dt::copy(is_in_place(sbuf) ? rbuf : sbuf, count, dt, partial.data(), count, dt);
  bool have_prefix = false;
  for (int mask = 1; mask < n; mask <<= 1) {
    const int dst = me ^ mask;
    if (dst >= n) continue;
    LZ_RETURN_IF_ERROR(
        comm.sendrecv(partial.data(), count, dt, dst, kExscan, tmp.data(), count, dt, dst, kExscan));
    if (me > dst) {
      op.apply(tmp.data(), partial.data(), count, dt);
      if (!have_prefix) {
        dt::copy(tmp.data(), count, dt, rbuf, count, dt);
        have_prefix = true;
      } else {
        op.apply(tmp.data(), rbuf, count, dt);
      }
    } else if (op.commutative()) {
      op.apply(tmp.data(), partial.data(), count, dt);
    } else {
      op.apply(partial.data(), tmp.data(), count, dt);
      dt::copy(tmp.data(), count, dt, partial.data(), count, dt);
    }
  }
  return Status::Ok();
}

}  // namespace lz::coll::tuned
