// coll/tuned: which functions it provides, and the switch points between its
// algorithms.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "coll_base/pow2_fold.h"
#include "coll_tuned.h"
#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"

namespace lz::coll {

uint32_t TunedModule::enable(Comm&) {
  return bit(kBarrier) | bit(kBcast) | bit(kReduce) | bit(kAllreduce) | bit(kAllgather) | bit(kAllgatherv) |
         bit(kAlltoall) | bit(kAlltoallv) | bit(kReduceScatter) | bit(kReduceScatterBlock) | bit(kScan) |
         bit(kExscan);
}

Status TunedModule::barrier(Comm& comm) { return tuned::barrier_dissemination(comm); }

Status TunedModule::bcast(void* buf, int count, const Datatype& dt, int root, Comm& comm) {
  const int64_t bytes = static_cast<int64_t>(count) * static_cast<int64_t>(dt.size());
  const bool scatter_allgather = cfg_.bcast == BcastAlg::kAuto
                                     ? comm.size() > 2 && bytes >= cfg_.bcast_scatter_allgather_min
                                     : cfg_.bcast == BcastAlg::kScatterAllgather;
  if (scatter_allgather) return tuned::bcast_scatter_allgather(buf, count, dt, root, comm);
  return tuned::bcast_binomial(buf, count, dt, root, comm);
}

Status TunedModule::reduce(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, int root,
                           Comm& comm) {
  return tuned::reduce_binomial(sbuf, rbuf, count, dt, op, root, comm);
}

Status TunedModule::allreduce(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op,
                              Comm& comm) {
  const int64_t bytes = static_cast<int64_t>(count) * static_cast<int64_t>(dt.size());
  const bool ring_can = op.commutative() && count >= comm.size() && comm.size() > 1;
  const bool rabenseifner_can = op.commutative() && count >= base::pow2_floor(comm.size()) && comm.size() > 1;
  AllreduceAlg alg = cfg_.allreduce;
  if ((alg == AllreduceAlg::kRing && !ring_can) || (alg == AllreduceAlg::kRabenseifner && !rabenseifner_can))
    alg = AllreduceAlg::kAuto;
  if (alg == AllreduceAlg::kAuto) {
    alg = ring_can && bytes >= cfg_.allreduce_ring_min                   ? AllreduceAlg::kRing
          : rabenseifner_can && bytes >= cfg_.allreduce_rabenseifner_min ? AllreduceAlg::kRabenseifner
                                                                         : AllreduceAlg::kRecursiveDoubling;
  }
  if (alg == AllreduceAlg::kRing) return tuned::allreduce_ring(sbuf, rbuf, count, dt, op, comm);
  if (alg == AllreduceAlg::kRabenseifner) return tuned::allreduce_rabenseifner(sbuf, rbuf, count, dt, op, comm);
  return tuned::allreduce_recursive_doubling(sbuf, rbuf, count, dt, op, comm);
}

Status TunedModule::allgather(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                              const Datatype& rdt, Comm& comm) {
  const int64_t total = static_cast<int64_t>(rcount) * static_cast<int64_t>(rdt.size()) * comm.size();
  const bool bruck = cfg_.allgather == AllgatherAlg::kAuto ? total <= cfg_.allgather_bruck_max
                                                           : cfg_.allgather == AllgatherAlg::kBruck;
  if (bruck && total <= INT32_MAX) return tuned::allgather_bruck(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
  std::vector<int> counts(comm.size(), rcount), displs(comm.size());
  for (int r = 0; r < comm.size(); ++r) displs[r] = r * rcount;
  return tuned::allgatherv_ring(sbuf, scount, sdt, rbuf, counts.data(), displs.data(), rdt, comm);
}

Status TunedModule::allgatherv(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, const int* rcounts,
                               const int* displs, const Datatype& rdt, Comm& comm) {
  return tuned::allgatherv_ring(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm);
}

Status TunedModule::alltoall(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                             const Datatype& rdt, Comm& comm) {
  const int n = comm.size();
  const int64_t block = static_cast<int64_t>(rcount) * static_cast<int64_t>(rdt.size());
  const bool bruck = cfg_.alltoall == AlltoallAlg::kAuto
                         ? n >= cfg_.alltoall_bruck_min_ranks && block <= cfg_.alltoall_bruck_max
                         : cfg_.alltoall == AlltoallAlg::kBruck;
  if (bruck && n > 1 && block * n <= INT32_MAX)
    return tuned::alltoall_bruck(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
  std::vector<int> rcounts(n, rcount), rdispls(n), scounts(n, scount), sdispls(n);
  for (int r = 0; r < n; ++r) {
    rdispls[r] = r * rcount;
    sdispls[r] = r * scount;
  }
  return alltoallv(sbuf, scounts.data(), sdispls.data(), sdt, rbuf, rcounts.data(), rdispls.data(), rdt, comm);
}

Status TunedModule::alltoallv(const void* sbuf, const int* scounts, const int* sdispls, const Datatype& sdt,
                              void* rbuf, const int* rcounts, const int* rdispls, const Datatype& rdt, Comm& comm) {
  // Every rank must choose the same algorithm: decide on the receive side's
  // block size, which for alltoall is the same on every rank, and for
  // alltoallv both algorithms interoperate anyway (same tags, same pairs).
  int64_t largest = 0;
  for (int r = 0; r < comm.size(); ++r) {
    largest = std::max<int64_t>(largest, static_cast<int64_t>(rcounts[r]) * static_cast<int64_t>(rdt.size()));
  }
  const bool pairwise = cfg_.alltoall == AlltoallAlg::kPairwise ||
                        (cfg_.alltoall != AlltoallAlg::kLinear && largest >= cfg_.alltoall_pairwise_min);
  if (pairwise) {
    return tuned::alltoallv_pairwise(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm);
  }
  return tuned::alltoallv_linear(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm);
}

Status TunedModule::reduce_scatter(const void* sbuf, void* rbuf, const int* rcounts, const Datatype& dt,
                                   const Op& op, Comm& comm) {
  if (op.commutative() && cfg_.reduce_scatter != ReduceScatterAlg::kReduceScatterv)
    return tuned::reduce_scatter_pairwise(sbuf, rbuf, rcounts, dt, op, comm);
  return tuned::reduce_scatter_reduce_scatterv(sbuf, rbuf, rcounts, dt, op, comm);
}

Status TunedModule::reduce_scatter_block(const void* sbuf, void* rbuf, int rcount, const Datatype& dt,
                                         const Op& op, Comm& comm) {
  std::vector<int> counts(comm.size(), rcount);
  return reduce_scatter(sbuf, rbuf, counts.data(), dt, op, comm);
}

bool TunedModule::scan_is_linear(const Comm& comm) const {
  return cfg_.scan == ScanAlg::kAuto ? comm.size() <= cfg_.scan_linear_max_ranks : cfg_.scan == ScanAlg::kLinear;
}

Status TunedModule::scan(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, Comm& comm) {
  if (scan_is_linear(comm)) return tuned::scan_linear(sbuf, rbuf, count, dt, op, comm);
  return tuned::scan_recursive_doubling(sbuf, rbuf, count, dt, op, comm);
}

Status TunedModule::exscan(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op,
                           Comm& comm) {
  if (scan_is_linear(comm)) return tuned::exscan_linear(sbuf, rbuf, count, dt, op, comm);
  return tuned::exscan_recursive_doubling(sbuf, rbuf, count, dt, op, comm);
}

}  // namespace lz::coll
