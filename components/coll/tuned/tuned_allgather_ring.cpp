// Ring allgather(v): n-1 steps; in step i each rank passes the block it
// received in step i-1 (its own at first) to its right neighbour and receives
// the next one from its left. Each rank sends and receives (n-1)/n of the
// result once: the bandwidth-optimal large-message algorithm; handles
// per-rank counts directly (allgatherv).
#include "coll_tuned.h"
#include "coll_base/elem.h"
#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/datatype.h"

namespace lz::coll::tuned {

Status allgatherv_ring(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, const int* rcounts,
                       const int* displs, const Datatype& rdt, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (!is_in_place(sbuf)) dt::copy(sbuf, scount, sdt, base::elem(rbuf, displs[me], rdt), rcounts[me], rdt);
  const int right = (me + 1) % n, left = (me - 1 + n) % n;
  for (int i = 0; i < n - 1; ++i) {
    const int sb = (me - i + n) % n, rb = (me - i - 1 + n) % n;
    LZ_RETURN_IF_ERROR(comm.sendrecv(base::elem(rbuf, displs[sb], rdt), rcounts[sb], rdt, right, kAllgather,
                                          base::elem(rbuf, displs[rb], rdt), rcounts[rb], rdt, left, kAllgather));
  }
  return Status::Ok();
}

}  // namespace lz::coll::tuned
