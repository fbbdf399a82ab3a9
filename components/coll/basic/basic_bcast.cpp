// coll/basic bcast: the root sends to every other rank.
#include "coll_basic.h"
#include "mpi/coll_util.h"

namespace lz::coll {

Status BasicModule::bcast(void* buf, int count, const Datatype& dt, int root, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (n == 1 || count == 0) return Status::Ok();
  if (me != root) return comm.coll_recv(buf, count, dt, root, basic_tag::kBcast);
  Requests reqs(comm);
  for (int r = 0; r < n; ++r) {
    if (r != root) reqs.add(comm.coll_isend(buf, count, dt, r, basic_tag::kBcast));
  }
  return reqs.wait();
}

}  // namespace lz::coll
