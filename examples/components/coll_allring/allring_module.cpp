#include "allring_module.h"

#include <cstdio>

#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"
#include "lazarus/datatype/typed_buffer.h"

namespace allring {

namespace {
constexpr int kTag = 7301;  // this module's only tag: a mismatch shows as truncation
}

uint32_t AllringModule::enable(lz::coll::Comm& comm) {
  if (comm.size() < min_size_) return 0;
  if (verbose_ && comm.rank() == 0)
    std::fprintf(stderr, "coll/allring: allreduce provided on a communicator of %d ranks\n", comm.size());
  return lz::coll::bit(lz::coll::kAllreduce);
}

lz::Status AllringModule::allreduce(const void* sbuf, void* rbuf, int count, const lz::coll::Datatype& dt,
                                    const lz::coll::Op& op, lz::coll::Comm& comm) {
  if (count == 0) return lz::Status::Ok();
  const int n = comm.size(), me = comm.rank();
  const void* mine = lz::coll::is_in_place(sbuf) ? rbuf : sbuf;
  lz::dt::TypedBuffer all(n * count, dt);
  lz::dt::copy(mine, count, dt, all.at(me * count), count, dt);
  const int right = (me + 1) % n, left = (me - 1 + n) % n;
  // Step s passes on the block received at step s-1 (own block first).
  for (int s = 0; s < n - 1; ++s) {
    const int out = (me - s + n) % n, in = (me - s - 1 + n) % n;
    LZ_RETURN_IF_ERROR(comm.sendrecv(all.at(out * count), count, dt, right, kTag, all.at(in * count), count, dt,
                                     left, kTag));
  }
  lz::dt::copy(all.at((n - 1) * count), count, dt, rbuf, count, dt);
  for (int r = n - 2; r >= 0; --r) op.apply(all.at(r * count), rbuf, count, dt);  // rbuf = x_r op rbuf
  return lz::Status::Ok();
}

}  // namespace allring
