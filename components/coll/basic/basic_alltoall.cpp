// coll/basic alltoall(v): post every receive and every send at once.
#include <algorithm>
#include <vector>

#include "coll_basic.h"
#include "coll_base/elem.h"
#include "coll_base/requests.h"
#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/typed_buffer.h"

namespace lz::coll {

using dt::TypedBuffer;

Status BasicModule::alltoall(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                             const Datatype& rdt, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  const Datatype* st = &sdt;
  TypedBuffer saved;
  if (is_in_place(sbuf)) {  // the data to send is rbuf itself: send from a copy
    saved.reset(n * rcount, rdt);
    dt::copy(rbuf, n * rcount, rdt, saved.data(), n * rcount, rdt);
    sbuf = saved.data();
    scount = rcount;
    st = &rdt;
  }
  dt::copy(base::elem(sbuf, ptrdiff_t{me} * scount, *st), scount, *st, base::elem(rbuf, ptrdiff_t{me} * rcount, rdt), rcount, rdt);
  base::Requests reqs(comm);
  for (int i = 1; i < n; ++i) {
    int r = (me + i) % n;
    reqs.add(comm.irecv(base::elem(rbuf, ptrdiff_t{r} * rcount, rdt), rcount, rdt, r, basic_tag::kAlltoall));
  }
  for (int i = 1; i < n; ++i) {
    int r = (me + i) % n;
    reqs.add(comm.isend(base::elem(sbuf, ptrdiff_t{r} * scount, *st), scount, *st, r, basic_tag::kAlltoall));
  }
  return reqs.wait();
}

Status BasicModule::alltoallv(const void* sbuf, const int* scounts, const int* sdispls, const Datatype& sdt,
                              void* rbuf, const int* rcounts, const int* rdispls, const Datatype& rdt, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  const Datatype* st = &sdt;
  TypedBuffer saved;
  if (is_in_place(sbuf)) {
    int span = 0;
    for (int r = 0; r < n; ++r) span = std::max(span, rdispls[r] + rcounts[r]);
    saved.reset(span, rdt);
    dt::copy(rbuf, span, rdt, saved.data(), span, rdt);
    sbuf = saved.data();
    scounts = rcounts;
    sdispls = rdispls;
    st = &rdt;
  }
  dt::copy(base::elem(sbuf, sdispls[me], *st), scounts[me], *st, base::elem(rbuf, rdispls[me], rdt), rcounts[me], rdt);
  base::Requests reqs(comm);
  for (int i = 1; i < n; ++i) {
    int r = (me + i) % n;
    reqs.add(comm.irecv(base::elem(rbuf, rdispls[r], rdt), rcounts[r], rdt, r, basic_tag::kAlltoall));
  }
  for (int i = 1; i < n; ++i) {
    int r = (me + i) % n;
    reqs.add(comm.isend(base::elem(sbuf, sdispls[r], *st), scounts[r], *st, r, basic_tag::kAlltoall));
  }
  return reqs.wait();
}

}  // namespace lz::coll
