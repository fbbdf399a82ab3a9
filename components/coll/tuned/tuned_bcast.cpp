// Binomial-tree broadcast: ceil(log2 n) steps; ranks are renumbered relative
// to the root (v = rank - root mod n); v receives from v minus its lowest set
// bit, then sends to v + 2^j for every 2^j below that bit.
#include "coll_tuned.h"
#include "coll_base/requests.h"
#include "lazarus/datatype/datatype.h"

namespace lz::coll::tuned {

Status bcast_binomial(void* buf, int count, const Datatype& dt, int root, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (n == 1 || count == 0) return Status::Ok();
  const int v = (me - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if (v & mask) {
      LZ_RETURN_IF_ERROR(comm.recv(buf, count, dt, (v - mask + root) % n, kBcast));
      break;
    }
    mask <<= 1;
  }
  // Every child but the last (the nearest, v + 1) gets a non-blocking send;
  // the last a blocking one, while the others go: a leaf's parent (every
  // node at np 2) makes no request at all.
  base::Requests children(comm);
  for (mask >>= 1; mask > 1; mask >>= 1) {
    if (v + mask < n) children.add(comm.isend(buf, count, dt, (v + mask + root) % n, kBcast));
  }
  Status last = v + 1 < n && mask == 1 ? comm.send(buf, count, dt, (v + 1 + root) % n, kBcast) : Status::Ok();
  Status rest = children.wait();
  return last.ok() ? rest : last;
}

}  // namespace lz::coll::tuned
