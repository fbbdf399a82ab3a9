// The power-of-two fold (see pow2_fold.h).
#include "coll_base/pow2_fold.h"

namespace lz::coll::base {

StatusOr<int> Pow2Fold::fold_in(void* rbuf, void* tmp, int count, const dt::Datatype& dt, const dt::Op& op,
                                Comm& comm, int tag) const {
  const int me = comm.rank();
  if (me >= 2 * rem_) return me - rem_;
  if (me % 2 == 0) {
    LZ_RETURN_IF_ERROR(comm.send(rbuf, count, dt, me + 1, tag));
    return kSitsOut;
  }
  LZ_RETURN_IF_ERROR(comm.recv(tmp, count, dt, me - 1, tag));
  op.apply(tmp, rbuf, count, dt);  // rbuf = x(me-1) op x(me)
  return me / 2;
}

Status Pow2Fold::unfold(void* rbuf, int count, const dt::Datatype& dt, Comm& comm, int tag) const {
  const int me = comm.rank();
  if (me >= 2 * rem_) return Status::Ok();
  if (me % 2 == 1) return comm.send(rbuf, count, dt, me - 1, tag);
  return comm.recv(rbuf, count, dt, me + 1, tag);
}

}  // namespace lz::coll::base
