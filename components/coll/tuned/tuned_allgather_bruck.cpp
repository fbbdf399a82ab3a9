// Bruck's allgather: ceil(log2 n) rounds for any n. In round k (k = 1, 2,
// 4, ...) each rank sends the blocks it has (those of ranks me .. me+k-1) to
// rank me-k and receives those of me+k .. from rank me+k; a final rotation
// puts block i at rank (me + i) mod n. Works on packed bytes, so any receive
// datatype costs one pack and one unpack per block. The small-message
// algorithm: log rounds, but it moves more data than the ring.
#include <algorithm>
#include <vector>

#include "coll_tuned.h"
#include "coll_base/elem.h"
#include "lazarus/datatype/datatype.h"

namespace lz::coll::tuned {

Status allgather_bruck(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                       const Datatype& rdt, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  const size_t bs = static_cast<size_t>(rcount) * rdt.size();
  std::vector<char> tmp(std::max<size_t>(bs * n, 1));
  if (is_in_place(sbuf)) {
    rdt.pack(base::elem(rbuf, ptrdiff_t{me} * rcount, rdt), rcount, tmp.data());
  } else {
    sdt.pack_range(sbuf, scount, 0, bs, tmp.data());
  }
  const Datatype& byte = dt::byte_type();
  for (int k = 1; k < n; k <<= 1) {
    const int cnt = std::min(k, n - k);
    LZ_RETURN_IF_ERROR(comm.sendrecv(tmp.data(), static_cast<int>(cnt * bs), byte, (me - k + n) % n,
                                          kAllgather, tmp.data() + k * bs, static_cast<int>(cnt * bs), byte,
                                          (me + k) % n, kAllgather));
  }
  for (int i = 0; i < n; ++i) {
    const int owner = (me + i) % n;
    if (owner == me && is_in_place(sbuf)) continue;
    rdt.unpack(tmp.data() + i * bs, bs, rcount, base::elem(rbuf, ptrdiff_t{owner} * rcount, rdt));
  }
  return Status::Ok();
}

}  // namespace lz::coll::tuned
