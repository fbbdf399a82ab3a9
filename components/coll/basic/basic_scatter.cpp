// coll/basic scatter family: the root sends each rank its block.
#include "coll_basic.h"
#include "coll_base/elem.h"
#include "coll_base/requests.h"
#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/datatype.h"

namespace lz::coll {

Status BasicModule::scatter(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                            const Datatype& rdt, int root, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (me != root) return comm.recv(rbuf, rcount, rdt, root, basic_tag::kScatter);
  base::Requests reqs(comm);
  for (int r = 0; r < n; ++r) {
    if (r != root) reqs.add(comm.isend(base::elem(sbuf, ptrdiff_t{r} * scount, sdt), scount, sdt, r, basic_tag::kScatter));
  }
  // The root's own block while the transfers go.
  if (!is_in_place(rbuf)) dt::copy(base::elem(sbuf, ptrdiff_t{root} * scount, sdt), scount, sdt, rbuf, rcount, rdt);
  return reqs.wait();
}

Status BasicModule::scatterv(const void* sbuf, const int* scounts, const int* displs, const Datatype& sdt,
                             void* rbuf, int rcount, const Datatype& rdt, int root, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (me != root) return comm.recv(rbuf, rcount, rdt, root, basic_tag::kScatter);
  base::Requests reqs(comm);
  for (int r = 0; r < n; ++r) {
    if (r != root) reqs.add(comm.isend(base::elem(sbuf, displs[r], sdt), scounts[r], sdt, r, basic_tag::kScatter));
  }
  // The root's own block while the transfers go.
  if (!is_in_place(rbuf)) dt::copy(base::elem(sbuf, displs[root], sdt), scounts[root], sdt, rbuf, rcount, rdt);
  return reqs.wait();
}

}  // namespace lz::coll
