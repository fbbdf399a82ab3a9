// Dissemination barrier (Hensgen, Finkel, Manber): ceil(log2 n) rounds; in
// round k each rank signals rank+2^k and waits for rank-2^k. Works for any n.
#include "coll_tuned.h"
#include "lazarus/datatype/datatype.h"

namespace lz::coll::tuned {

Status barrier_dissemination(Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  const Datatype& byte = dt::byte_type();
  for (int k = 1; k < n; k <<= 1) {
    LZ_RETURN_IF_ERROR(
        comm.sendrecv(nullptr, 0, byte, (me + k) % n, kBarrier, nullptr, 0, byte, (me - k + n) % n, kBarrier));
  }
  return Status::Ok();
}

}  // namespace lz::coll::tuned
