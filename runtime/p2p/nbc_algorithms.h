// The schedules of the non-blocking collectives (MPI_Ibarrier ... MPI_Ialltoall):
// each function builds the whole schedule of one call, from arguments the
// binding has checked (mpi/coll_args.h), for NbcSchedule to run. MPI_IN_PLACE
// is accepted where MPI allows it, as in the blocking calls.
//
// Algorithms: barrier by dissemination (log2 n rounds), bcast down a
// binomial tree, reduce linear at the root in rank order (right for
// non-commutative ops), allreduce as reduce then bcast, gather / scatter /
// allgather / alltoall and their v-variants in one round of direct
// transfers, reduce_scatter as reduce then scatterv, scans along the chain. These favour being
// right and never blocking over speed: the blocking calls keep the tuned
// algorithms.
#pragma once

#include <memory>

#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"
#include "p2p/nbc_schedule.h"

struct lz_mpi_comm_s;

namespace lz::rt {

// The tag of the next non-blocking collective on `comm` (advances its count).
// While a persistent collective starts (NbcFixedTag), its own tag instead.
int nbc_tag(lz_mpi_comm_s& comm);

// A persistent collective (MPI-4.0) matches by the order of its
// initialization, not of its starts: its schedule takes, at every start, the
// tag its initialization drew. Within the scope, nbc_tag() answers `tag`
// (0: draws one as usual) and drawn() says which tag it answered last.
class NbcFixedTag {
 public:
  explicit NbcFixedTag(int tag);
  ~NbcFixedTag();
  NbcFixedTag(const NbcFixedTag&) = delete;
  NbcFixedTag& operator=(const NbcFixedTag&) = delete;
  static int drawn();
};

using NbcPtr = std::unique_ptr<NbcSchedule>;
using dt::Datatype;
using dt::Op;

// Adds an allreduce to `s` (recursive doubling on a power-of-two number of
// ranks; otherwise a reduce to rank 0 in rank order, then a binomial bcast),
// in rounds of its own: what is added next runs after it.
void add_allreduce(NbcSchedule& s, int n, int me, const void* sbuf, void* rbuf, int count, const Datatype& dt,
                   const Op& op);

NbcPtr nbc_barrier(lz_mpi_comm_s& c);
NbcPtr nbc_bcast(lz_mpi_comm_s& c, void* buf, int count, const Datatype& dt, int root);
NbcPtr nbc_reduce(lz_mpi_comm_s& c, const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op,
                  int root);
NbcPtr nbc_allreduce(lz_mpi_comm_s& c, const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op);
NbcPtr nbc_gather(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                  const Datatype& rdt, int root);
NbcPtr nbc_scatter(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                   const Datatype& rdt, int root);
NbcPtr nbc_allgather(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                     const Datatype& rdt);
NbcPtr nbc_alltoall(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                    const Datatype& rdt);
NbcPtr nbc_gatherv(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf, const int* rcounts,
                   const int* displs, const Datatype& rdt, int root);
NbcPtr nbc_scatterv(lz_mpi_comm_s& c, const void* sbuf, const int* scounts, const int* displs, const Datatype& sdt,
                    void* rbuf, int rcount, const Datatype& rdt, int root);
NbcPtr nbc_allgatherv(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf,
                      const int* rcounts, const int* displs, const Datatype& rdt);
NbcPtr nbc_alltoallv(lz_mpi_comm_s& c, const void* sbuf, const int* scounts, const int* sdispls, const Datatype& sdt,
                     void* rbuf, const int* rcounts, const int* rdispls, const Datatype& rdt);
// Alltoallw: a datatype per peer, displacements in bytes.
NbcPtr nbc_alltoallw(lz_mpi_comm_s& c, const void* sbuf, const int* scounts, const int* sdispls,
                     const Datatype* const* sdts, void* rbuf, const int* rcounts, const int* rdispls,
                     const Datatype* const* rdts);
// Reduce to rank 0, then scatter the blocks rcounts[r] long.
NbcPtr nbc_reduce_scatter(lz_mpi_comm_s& c, const void* sbuf, void* rbuf, const int* rcounts, const Datatype& dt,
                          const Op& op);
// Along the chain of ranks, each adding its own (inclusive) or passing the
// prefix before it (exclusive: rank 0's rbuf is left as it was).
NbcPtr nbc_scan(lz_mpi_comm_s& c, const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op,
                bool exclusive);

}  // namespace lz::rt
