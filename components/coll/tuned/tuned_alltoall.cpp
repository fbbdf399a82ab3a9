// Alltoall(v): pairwise exchange (step i: send to me+i, receive from me-i;
// one message in flight per direction, no incast: the large-message
// algorithm) and linear (everything posted at once: lowest latency for small
// blocks). With MPI_IN_PLACE the send data is rbuf itself, sent from a copy.
#include <algorithm>

#include "coll_base/elem.h"
#include "coll_base/requests.h"
#include "coll_tuned.h"
#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/typed_buffer.h"

namespace lz::coll::tuned {

using dt::TypedBuffer;

namespace {
// Redirects an in-place call to a saved copy of the receive buffer.
struct SendSide {
  const void* buf;
  const int* counts;
  const int* displs;
  const Datatype* dt;
  TypedBuffer saved;
};

void resolve_in_place(SendSide& s, void* rbuf, const int* rcounts, const int* rdispls, const Datatype& rdt, int n) {
  if (!is_in_place(s.buf)) return;
  int span = 0;
  for (int r = 0; r < n; ++r) span = std::max(span, rdispls[r] + rcounts[r]);
  s.saved.reset(span, rdt);
  dt::copy(rbuf, span, rdt, s.saved.data(), span, rdt);
  s.buf = s.saved.data();
  s.counts = rcounts;
  s.displs = rdispls;
  s.dt = &rdt;
}
// This rank's block to itself.
void copy_own(const SendSide& s, void* rbuf, const int* rcounts, const int* rdispls, const Datatype& rdt, int me) {
  dt::copy(base::elem(s.buf, s.displs[me], *s.dt), s.counts[me], *s.dt, base::elem(rbuf, rdispls[me], rdt), rcounts[me],
           rdt);
}
}  // namespace

Status alltoallv_pairwise(const void* sbuf, const int* scounts, const int* sdispls, const Datatype& sdt, void* rbuf,
                          const int* rcounts, const int* rdispls, const Datatype& rdt, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  SendSide s{sbuf, scounts, sdispls, &sdt, {}};
  resolve_in_place(s, rbuf, rcounts, rdispls, rdt, n);
  if (n > 1) {  // the first exchange goes while this rank copies its own block
    const int dst = (me + 1) % n, src = (me - 1 + n) % n;
    base::Requests first(comm);
    first.add(comm.irecv(base::elem(rbuf, rdispls[src], rdt), rcounts[src], rdt, src, kAlltoall));
    first.add(comm.isend(base::elem(s.buf, s.displs[dst], *s.dt), s.counts[dst], *s.dt, dst, kAlltoall));
    copy_own(s, rbuf, rcounts, rdispls, rdt, me);
    LZ_RETURN_IF_ERROR(first.wait());
  } else {
    copy_own(s, rbuf, rcounts, rdispls, rdt, me);
  }
  for (int i = 2; i < n; ++i) {
    const int dst = (me + i) % n, src = (me - i + n) % n;
    LZ_RETURN_IF_ERROR(comm.sendrecv(base::elem(s.buf, s.displs[dst], *s.dt), s.counts[dst], *s.dt, dst, kAlltoall,
                                     base::elem(rbuf, rdispls[src], rdt), rcounts[src], rdt, src, kAlltoall));
  }
  return Status::Ok();
}

Status alltoallv_linear(const void* sbuf, const int* scounts, const int* sdispls, const Datatype& sdt, void* rbuf,
                        const int* rcounts, const int* rdispls, const Datatype& rdt, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  SendSide s{sbuf, scounts, sdispls, &sdt, {}};
  resolve_in_place(s, rbuf, rcounts, rdispls, rdt, n);
  base::Requests reqs(comm);
  for (int i = 1; i < n; ++i) {
    const int src = (me - i + n) % n;
    reqs.add(comm.irecv(base::elem(rbuf, rdispls[src], rdt), rcounts[src], rdt, src, kAlltoall));
  }
  for (int i = 1; i < n; ++i) {
    const int dst = (me + i) % n;
    reqs.add(comm.isend(base::elem(s.buf, s.displs[dst], *s.dt), s.counts[dst], *s.dt, dst, kAlltoall));
  }
  copy_own(s, rbuf, rcounts, rdispls, rdt, me);  // while the transfers go
  return reqs.wait();
}

}  // namespace lz::coll::tuned
