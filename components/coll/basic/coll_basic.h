// coll/basic: linear reference algorithms for all sixteen collectives.
//
// Every algorithm here is the obvious one (the root talks to every rank in
// turn), chosen to be easy to check rather than fast: it is the fallback for
// any function a better module does not provide, and the reference that the
// conformance suite compares coll/tuned against. Reductions combine in rank
// order (x0 op x1 op ... op xn-1), so non-commutative user ops are correct.
//
//   lz::coll::BasicModule basic;
//   uint32_t fns = basic.enable(comm);  // kAllFunctions
//   LZ_RETURN_IF_ERROR(basic.allreduce(sbuf, rbuf, n, dt, op, comm));
#pragma once

#include "lazarus/frameworks/coll.h"

namespace lz::coll {

class BasicModule final : public Module {
 public:
  uint32_t enable(Comm& comm) override;

  Status barrier(Comm& comm) override;
  Status bcast(void* buf, int count, const Datatype& dt, int root, Comm& comm) override;
  Status reduce(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, int root,
                Comm& comm) override;
  Status allreduce(const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op, Comm& comm) override;
  Status gather(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount, const Datatype& rdt,
                int root, Comm& comm) override;
  Status gatherv(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, const int* rcounts,
                 const int* displs, const Datatype& rdt, int root, Comm& comm) override;
  Status scatter(const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount, const Datatype& rdt,
                 int root, Comm& comm) override;
  Status scatterv(const void* sbuf, const int* scounts, const int* displs, const Datatype& sdt, void* rbuf,
                  int rcount, const Datatype& rdt, int root, Comm& comm) override;
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
};

// Tags of coll/basic on the collective context (one per function, so a
// mismatched call sequence is caught by the truncation/ordering checks
// rather than silently mixing data).
namespace basic_tag {
enum : int {
  kBarrier = 1001, kBcast, kReduce, kGather, kScatter, kAllgather, kAlltoall, kScan, kExscan
};
}  // namespace basic_tag

}  // namespace lz::coll
