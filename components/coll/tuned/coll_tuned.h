// coll/tuned: logarithmic and bandwidth-optimal collective algorithms with
// size-based switch points.
//
//   function              algorithm(s)                                   switch point (TunedConfig / parameter)
//   barrier               dissemination                                  -
//   bcast                 binomial tree | scatter + ring allgather       bcast_scatter_allgather_min (bytes)
//   reduce                binomial tree (rank-ordered tree rooted at 0   -
//                         plus a send to the root for non-commutative ops)
//   allreduce             recursive doubling (any op, any size) |        allreduce_rabenseifner_min (bytes)
//                         Rabenseifner reduce-scatter + allgather        allreduce_ring_min (bytes)
//                         (commutative, count >= pof2) |
//                         ring reduce-scatter + allgather
//                         (commutative, count >= size)
//   allgather             Bruck | ring                                   allgather_bruck_max (total bytes)
//   allgatherv            ring                                           -
//   alltoall(v)           linear (all posted at once) | pairwise |       alltoall_pairwise_min (bytes per block)
//                         Bruck (alltoall only)                          alltoall_bruck_max, alltoall_bruck_min_ranks
//   reduce_scatter(_block) pairwise exchange (commutative) | binomial     -
//                         reduce + linear scatter (non-commutative)
//   scan, exscan          linear chain | recursive doubling              scan_linear_max_ranks
//                         (both order-preserving)
// Non-power-of-two sizes fold the first 2*(n - pof2) ranks pairwise (MPICH's
// scheme, coll_base/pow2_fold.h), which keeps rank order, so non-commutative
// ops stay correct; the non-commutative reduce-scatter is
// coll_base/reduce_scatter_via_reduce.h over the binomial reduce.
// gather(v) and scatter(v) are left to coll/basic (not in enable()).
//
// coll_tuned_<op>_algorithm (Open MPI's names) forces one algorithm instead
// of the switch points; a call the forced algorithm cannot serve (Rabenseifner
// on a non-commutative op, Bruck for alltoallv, a vector shorter than the
// ranks) takes the one the switch points give.
#pragma once

#include <cstdint>

#include "lazarus/frameworks/coll.h"

namespace lz::coll {

// Forced algorithms (coll_tuned_<op>_algorithm); kAuto: the switch points.
enum class BcastAlg { kAuto, kBinomial, kScatterAllgather };
enum class AllreduceAlg { kAuto, kRecursiveDoubling, kRabenseifner, kRing };
enum class AllgatherAlg { kAuto, kBruck, kRing };
enum class AlltoallAlg { kAuto, kLinear, kPairwise, kBruck };
enum class ReduceScatterAlg { kAuto, kPairwise, kReduceScatterv };
enum class ScanAlg { kAuto, kLinear, kRecursiveDoubling };  // scan and exscan

struct TunedConfig {
  int64_t allreduce_rabenseifner_min = 64 * 1024;
  int64_t allreduce_ring_min = 4 << 20;
  int64_t allgather_bruck_max = 16 * 1024;
  int64_t alltoall_pairwise_min = 1024;
  int64_t alltoall_bruck_max = 256;
  int alltoall_bruck_min_ranks = 8;
  int64_t bcast_scatter_allgather_min = 512 * 1024;
  int scan_linear_max_ranks = 16;
  BcastAlg bcast = BcastAlg::kAuto;
  AllreduceAlg allreduce = AllreduceAlg::kAuto;
  AllgatherAlg allgather = AllgatherAlg::kAuto;
  AlltoallAlg alltoall = AlltoallAlg::kAuto;
  ReduceScatterAlg reduce_scatter = ReduceScatterAlg::kAuto;
  ScanAlg scan = ScanAlg::kAuto;
};

class TunedModule final : public Module {
 public:
  explicit TunedModule(TunedConfig cfg = {}) : cfg_(cfg) {}
  const TunedConfig& config() const { return cfg_; }

  uint32_t enable(Comm& comm) override;

  Status barrier(Comm& comm) override;
  Status bcast(void* buf, int count, const Datatype& dt, int root, Comm& comm) override;
  Status reduce(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, int root,
                Comm& comm) override;
  Status allreduce(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, Comm& comm) override;
  Status allgather(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount, const Datatype& rdt,
                   Comm& comm) override;
  Status allgatherv(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, const int* rcounts,
                    const int* displs, const Datatype& rdt, Comm& comm) override;
  Status alltoall(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount, const Datatype& rdt,
                  Comm& comm) override;
  Status alltoallv(const void* sbuf, const int* scounts, const int* sdispls, const Datatype& sdt, void* rbuf,
                   const int* rcounts, const int* rdispls, const Datatype& rdt, Comm& comm) override;
  Status reduce_scatter(const void* sbuf, void* rbuf, const int* rcounts, const Datatype& dt, const Op& op,
                        Comm& comm) override;
  Status reduce_scatter_block(const void* sbuf, void* rbuf, int rcount, const Datatype& dt, const Op& op,
                              Comm& comm) override;
  Status scan(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, Comm& comm) override;
  Status exscan(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, Comm& comm) override;

 private:
  bool scan_is_linear(const Comm& comm) const;  // scan and exscan

  TunedConfig cfg_;
};

// The algorithms, callable directly (the tests force each one).
namespace tuned {
enum Tag : int {
  kBarrier = 2001, kBcast, kReduce, kAllreduce, kAllgather, kAlltoall, kReduceScatter, kScan, kExscan
};
Status barrier_dissemination(Comm& comm);
Status bcast_binomial(void* buf, int count, const Datatype& dt, int root, Comm& comm);
// Contiguous datatypes (others: the binomial tree).
Status bcast_scatter_allgather(void* buf, int count, const Datatype& dt, int root, Comm& comm);
Status reduce_binomial(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, int root,
                       Comm& comm);
Status allreduce_recursive_doubling(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op,
                                    Comm& comm);
// Requires op.commutative() and count >= the largest power of two <= size.
Status allreduce_rabenseifner(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op,
                              Comm& comm);
// Requires op.commutative() and count >= size.
Status allreduce_ring(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, Comm& comm);
Status allgather_bruck(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                       const Datatype& rdt, Comm& comm);
Status allgatherv_ring(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, const int* rcounts,
                       const int* displs, const Datatype& rdt, Comm& comm);
Status alltoallv_pairwise(const void* sbuf, const int* scounts, const int* sdispls, const Datatype& sdt, void* rbuf,
                          const int* rcounts, const int* rdispls, const Datatype& rdt, Comm& comm);
Status alltoall_bruck(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount, const Datatype& rdt,
                      Comm& comm);
Status alltoallv_linear(const void* sbuf, const int* scounts, const int* sdispls, const Datatype& sdt, void* rbuf,
                        const int* rcounts, const int* rdispls, const Datatype& rdt, Comm& comm);
// Requires op.commutative().
Status reduce_scatter_pairwise(const void* sbuf, void* rbuf, const int* rcounts, const Datatype& dt, const Op& op,
                               Comm& comm);
Status reduce_scatter_reduce_scatterv(const void* sbuf, void* rbuf, const int* rcounts, const Datatype& dt,
                                      const Op& op, Comm& comm);
Status scan_recursive_doubling(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op,
                               Comm& comm);
Status scan_linear(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, Comm& comm);
Status exscan_linear(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, Comm& comm);
Status exscan_recursive_doubling(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op,
                                 Comm& comm);
}  // namespace tuned

}  // namespace lz::coll
