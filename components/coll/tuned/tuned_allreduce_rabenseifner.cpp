// Rabenseifner's allreduce (MPICH's reduce_scatter_allgather): a
// reduce-scatter by recursive halving (each round exchanges half of the
// remaining vector with partner newrank ^ mask and reduces the half it keeps)
// then an allgather by recursive doubling. Moves 2*(pof2-1)/pof2 of the
// vector per rank instead of log2(pof2) whole vectors: the large-message
// algorithm. Non-power-of-two sizes fold as in recursive doubling.
// Commutative ops only (halves are combined in exchange order).
#include <vector>

#include "coll_tuned.h"
#include "coll_base/elem.h"
#include "coll_base/pow2_fold.h"
#include "coll_base/scratch.h"
#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"

namespace lz::coll::tuned {

Status allreduce_rabenseifner(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op,
                              Comm& comm) {
  const int n = comm.size();
  if (count == 0) return Status::Ok();
  if (!is_in_place(sbuf)) dt::copy(sbuf, count, dt, rbuf, count, dt);
  if (n == 1) return Status::Ok();
  const base::Pow2Fold fold(n);
  const int pof2 = fold.pof2();
  if (count < pof2 || !op.commutative()) {
    return Internal("allreduce_rabenseifner needs a commutative op and count >= " + std::to_string(pof2));
  }
  base::Scratch tmp(count, dt);
  LZ_ASSIGN_OR_RETURN(const int newrank, fold.fold_in(rbuf, tmp.data(), count, dt, op, comm, kAllreduce));

  if (newrank != base::Pow2Fold::kSitsOut) {
    // The vector is cut into pof2 pieces; each new rank ends the
    // reduce-scatter owning one of them, fully reduced.
    std::vector<int> cnts(pof2), disps(pof2);
    for (int i = 0; i < pof2; ++i) cnts[i] = count / pof2 + (i < count % pof2 ? 1 : 0);
    for (int i = 1; i < pof2; ++i) disps[i] = disps[i - 1] + cnts[i - 1];
    auto sum = [&](int from, int to) {
      int s = 0;
      for (int i = from; i < to; ++i) s += cnts[i];
      return s;
    };

    int mask = 1, send_idx = 0, recv_idx = 0, last_idx = pof2;
    while (mask < pof2) {
      const int newdst = newrank ^ mask;
      const int dst = fold.old_rank(newdst);
      int send_cnt, recv_cnt;
      if (newrank < newdst) {
        send_idx = recv_idx + pof2 / (mask * 2);
        send_cnt = sum(send_idx, last_idx);
        recv_cnt = sum(recv_idx, send_idx);
      } else {
        recv_idx = send_idx + pof2 / (mask * 2);
        send_cnt = sum(send_idx, recv_idx);
        recv_cnt = sum(recv_idx, last_idx);
      }
      LZ_RETURN_IF_ERROR(comm.sendrecv(base::elem(rbuf, disps[send_idx], dt), send_cnt, dt, dst, kAllreduce,
                                            base::elem(tmp.data(), disps[recv_idx], dt), recv_cnt, dt, dst, kAllreduce));
      op.apply(base::elem(tmp.data(), disps[recv_idx], dt), base::elem(rbuf, disps[recv_idx], dt), recv_cnt, dt);
      send_idx = recv_idx;
      mask <<= 1;
      if (mask < pof2) last_idx = recv_idx + pof2 / mask;
    }

    mask >>= 1;
    while (mask > 0) {
      const int newdst = newrank ^ mask;
      const int dst = fold.old_rank(newdst);
      int send_cnt, recv_cnt;
      if (newrank < newdst) {
        if (mask != pof2 / 2) last_idx = last_idx + pof2 / (mask * 2);
        recv_idx = send_idx + pof2 / (mask * 2);
        send_cnt = sum(send_idx, recv_idx);
        recv_cnt = sum(recv_idx, last_idx);
      } else {
        recv_idx = send_idx - pof2 / (mask * 2);
        send_cnt = sum(send_idx, last_idx);
        recv_cnt = sum(recv_idx, send_idx);
      }
      LZ_RETURN_IF_ERROR(comm.sendrecv(base::elem(rbuf, disps[send_idx], dt), send_cnt, dt, dst, kAllreduce,
                                            base::elem(rbuf, disps[recv_idx], dt), recv_cnt, dt, dst, kAllreduce));
      if (newrank > newdst) send_idx = recv_idx;
      mask >>= 1;
    }
  }

  return fold.unfold(rbuf, count, dt, comm, kAllreduce);
}

}  // namespace lz::coll::tuned
