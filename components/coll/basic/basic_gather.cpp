// coll/basic gather family: linear gather(v) to the root; allgather(v) as a
// linear exchange (every rank sends its block to every other rank).
#include "coll_basic.h"
#include "coll_base/elem.h"
#include "coll_base/requests.h"
#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/datatype.h"

namespace lz::coll {

Status BasicModule::gather(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                           const Datatype& rdt, int root, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (me != root) return comm.send(sbuf, scount, sdt, root, basic_tag::kGather);
  base::Requests reqs(comm);
  for (int r = 0; r < n; ++r) {
    if (r != root) reqs.add(comm.irecv(base::elem(rbuf, ptrdiff_t{r} * rcount, rdt), rcount, rdt, r, basic_tag::kGather));
  }
  // The root's own block while the transfers go.
  if (!is_in_place(sbuf)) dt::copy(sbuf, scount, sdt, base::elem(rbuf, ptrdiff_t{root} * rcount, rdt), rcount, rdt);
  return reqs.wait();
}

Status BasicModule::gatherv(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, const int* rcounts,
                            const int* displs, const Datatype& rdt, int root, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (me != root) return comm.send(sbuf, scount, sdt, root, basic_tag::kGather);
  base::Requests reqs(comm);
  for (int r = 0; r < n; ++r) {
    if (r != root) reqs.add(comm.irecv(base::elem(rbuf, displs[r], rdt), rcounts[r], rdt, r, basic_tag::kGather));
  }
  // The root's own block while the transfers go.
  if (!is_in_place(sbuf)) dt::copy(sbuf, scount, sdt, base::elem(rbuf, displs[root], rdt), rcounts[root], rdt);
  return reqs.wait();
}

Status BasicModule::allgather(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                              const Datatype& rdt, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  // What this rank sends: its own slot of rbuf (copied there first unless in place).
  void* mine = base::elem(rbuf, ptrdiff_t{me} * rcount, rdt);
  if (!is_in_place(sbuf)) dt::copy(sbuf, scount, sdt, mine, rcount, rdt);
  base::Requests reqs(comm);
  for (int r = 0; r < n; ++r) {
    if (r == me) continue;
    reqs.add(comm.irecv(base::elem(rbuf, ptrdiff_t{r} * rcount, rdt), rcount, rdt, r, basic_tag::kAllgather));
    reqs.add(comm.isend(mine, rcount, rdt, r, basic_tag::kAllgather));
  }
  return reqs.wait();
}

Status BasicModule::allgatherv(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, const int* rcounts,
                               const int* displs, const Datatype& rdt, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  void* mine = base::elem(rbuf, displs[me], rdt);
  if (!is_in_place(sbuf)) dt::copy(sbuf, scount, sdt, mine, rcounts[me], rdt);
  base::Requests reqs(comm);
  for (int r = 0; r < n; ++r) {
    if (r == me) continue;
    reqs.add(comm.irecv(base::elem(rbuf, displs[r], rdt), rcounts[r], rdt, r, basic_tag::kAllgather));
    reqs.add(comm.isend(mine, rcounts[me], rdt, r, basic_tag::kAllgather));
  }
  return reqs.wait();
}

}  // namespace lz::coll
