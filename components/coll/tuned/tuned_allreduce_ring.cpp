// Ring allreduce: a ring reduce-scatter (n-1 steps: each rank passes the
// block it reduced last to its right neighbour and reduces the one coming
// from its left into its own vector), after which rank r owns block r
// fully reduced, then the ring allgather of those blocks in place
// (allgatherv_ring, tuned_allgather_ring.cpp). It moves the same 2*(n-1)/n of
// the vector per rank as Rabenseifner's, for any n (no power-of-two fold),
// and every step moves one block of 1/n of the vector instead of halves of
// it, in 2*(n-1) steps instead of 2*log2(n). Measured here (8 ranks on 2
// cores, shm, MPI_SUM of doubles, six back-to-back pairs): 8 MiB took
// 16.2-23.1 ms (116 ms in all) against Rabenseifner's 17.1-29.5 ms (149);
// at 2 ranks, and over tcp, both were equal within the noise; at 256 KiB-
// 2 MiB the ring was slower (more steps, each a rendezvous handshake).
// Hence allreduce_ring_min, 4 MiB by default.
// Commutative ops only (blocks are combined in ring order).
#include <vector>

#include "coll_tuned.h"
#include "coll_base/elem.h"
#include "coll_base/scratch.h"
#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"

namespace lz::coll::tuned {

Status allreduce_ring(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  if (count == 0) return Status::Ok();
  if (!is_in_place(sbuf)) dt::copy(sbuf, count, dt, rbuf, count, dt);
  if (n == 1) return Status::Ok();
  if (count < n || !op.commutative())
    return Internal("allreduce_ring needs a commutative op and count >= " + std::to_string(n));
  std::vector<int> cnts(n), disps(n);
  for (int i = 0; i < n; ++i) cnts[i] = count / n + (i < count % n ? 1 : 0);
  for (int i = 1; i < n; ++i) disps[i] = disps[i - 1] + cnts[i - 1];
  base::Scratch tmp(cnts[0], dt);  // the largest block
  const int right = (me + 1) % n, left = (me - 1 + n) % n;
  // Step i: send block me-i-1 (reduced in step i-1, or this rank's own at
  // first), receive block me-i-2 and reduce it. After n-1 steps block me
  // holds every rank's contribution.
  for (int i = 0; i < n - 1; ++i) {
    const int sb = (me - i - 1 + 2 * n) % n, rb = (me - i - 2 + 2 * n) % n;
    LZ_RETURN_IF_ERROR(comm.sendrecv(base::elem(rbuf, disps[sb], dt), cnts[sb], dt, right, kAllreduce, tmp.data(),
                                     cnts[rb], dt, left, kAllreduce));
    op.apply(tmp.data(), base::elem(rbuf, disps[rb], dt), cnts[rb], dt);
  }
  return allgatherv_ring(in_place_buffer(), 0, dt, rbuf, cnts.data(), disps.data(), dt, comm);
}

}  // namespace lz::coll::tuned
