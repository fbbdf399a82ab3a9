// Bruck's all-to-all: ceil(log2 n) rounds instead of n - 1 messages, for
// small blocks on many ranks (each round's message carries about half of the
// blocks, so it moves more bytes than the pairwise exchange). On packed bytes:
//   1. tmp[i] = my block for rank (me + i) mod n;
//   2. round k (1, 2, 4, ...): the blocks i with bit k set go to me + k and
//      the same slots are refilled from me - k (packed into one message);
//   3. the block from rank r sits in slot (me - r) mod n.
#include <cstring>
#include <vector>

#include "coll_base/elem.h"
#include "coll_tuned.h"
#include "lazarus/datatype/datatype.h"

namespace lz::coll::tuned {

Status alltoall_bruck(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount, const Datatype& rdt,
                      Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  const size_t bs = static_cast<size_t>(rcount) * rdt.size();
  std::vector<char> tmp(bs * n + 1), out(bs * ((n + 1) / 2) + 1), in(out.size());
  const bool in_place = is_in_place(sbuf);
  for (int i = 0; i < n; ++i) {
    const int r = (me + i) % n;
    if (in_place) {
      rdt.pack(base::elem(rbuf, ptrdiff_t{r} * rcount, rdt), rcount, tmp.data() + i * bs);
    } else {
      sdt.pack_range(base::elem(sbuf, ptrdiff_t{r} * scount, sdt), scount, 0, bs, tmp.data() + i * bs);
    }
  }
  const Datatype& byte = dt::byte_type();
  for (int k = 1; k < n; k <<= 1) {
    size_t len = 0;
    for (int i = k; i < n; ++i) {
      if (!(i & k)) continue;
      std::memcpy(out.data() + len, tmp.data() + i * bs, bs);
      len += bs;
    }
    LZ_RETURN_IF_ERROR(comm.sendrecv(out.data(), static_cast<int>(len), byte, (me + k) % n, kAlltoall, in.data(),
                                     static_cast<int>(len), byte, (me - k + n) % n, kAlltoall));
    size_t at = 0;
    for (int i = k; i < n; ++i) {
      if (!(i & k)) continue;
      std::memcpy(tmp.data() + i * bs, in.data() + at, bs);
      at += bs;
    }
  }
  for (int i = 0; i < n; ++i) {
    const int r = (me - i + n) % n;
    rdt.unpack(tmp.data() + i * bs, bs, rcount, base::elem(rbuf, ptrdiff_t{r} * rcount, rdt));
  }
  return Status::Ok();
}

}  // namespace lz::coll::tuned
