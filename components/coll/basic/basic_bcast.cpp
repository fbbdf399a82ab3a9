// coll/basic bcast: the root sends to every other rank.
#include "coll_basic.h"
#include "coll_base/requests.h"
#include "lazarus/datatype/datatype.h"

namespace lz::coll {

Status BasicModule::bcast(void* buf, int count, const Datatype& dt, int root, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (n == 1 || count == 0) return Status::Ok();
  if (me != root) return comm.recv(buf, count, dt, root, basic_tag::kBcast);
  base::Requests reqs(comm);
  for (int r = 0; r < n; ++r) {
    if (r != root) reqs.add(comm.isend(buf, count, dt, r, basic_tag::kBcast));
  }
  return reqs.wait();
}

}  // namespace lz::coll
