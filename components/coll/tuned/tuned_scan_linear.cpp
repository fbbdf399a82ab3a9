// Linear (chain) scan and exscan: rank r waits for the prefix of ranks
// 0 .. r-1 from r - 1, combines its own vector and passes the new prefix to
// r + 1. n - 1 hops, but each rank receives, combines and sends once and
// the ranks before it are free as soon as they have sent: on a few ranks it
// beats recursive doubling, whose every round is an exchange and two
// combinations (np 2, 8 B: 0.36 us against Open MPI's chain at 0.07).
// Order: the prefix is always the left operand, so non-commutative ops hold.
#include "coll_base/scratch.h"
#include "coll_tuned.h"
#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"

namespace lz::coll::tuned {

Status scan_linear(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (count == 0) return Status::Ok();
  const bool in_place = is_in_place(sbuf);
  const void* own = in_place ? rbuf : sbuf;
  if (me == 0) {
    if (!in_place) dt::copy(sbuf, count, dt, rbuf, count, dt);
    return n > 1 ? comm.send(own, count, dt, 1, kScan) : Status::Ok();
  }
  if (op.commutative() && !in_place) {
    // The prefix straight into rbuf, then rbuf = own op prefix.
    LZ_RETURN_IF_ERROR(comm.recv(rbuf, count, dt, me - 1, kScan));
    op.apply(sbuf, rbuf, count, dt);
  } else {
    base::Scratch prefix(count, dt);
    LZ_RETURN_IF_ERROR(comm.recv(prefix.data(), count, dt, me - 1, kScan));
    if (!in_place) dt::copy(sbuf, count, dt, rbuf, count, dt);
    op.apply(prefix.data(), rbuf, count, dt);  // rbuf = prefix op own
  }
  return me + 1 < n ? comm.send(rbuf, count, dt, me + 1, kScan) : Status::Ok();
}

Status exscan_linear(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (count == 0 || n == 1) return Status::Ok();
  const bool in_place = is_in_place(sbuf);
  if (me == 0) return comm.send(in_place ? rbuf : sbuf, count, dt, 1, kExscan);
  if (me == n - 1) return comm.recv(rbuf, count, dt, me - 1, kExscan);
  // The prefix of 0 .. me-1 is this rank's result; prefix op own goes on.
  base::Scratch next(count, dt);
  dt::copy(in_place ? rbuf : sbuf, count, dt, next.data(), count, dt);
  LZ_RETURN_IF_ERROR(comm.recv(rbuf, count, dt, me - 1, kExscan));
  op.apply(rbuf, next.data(), count, dt);  // next = prefix op own
  return comm.send(next.data(), count, dt, me + 1, kExscan);
}

}  // namespace lz::coll::tuned
