// The collectives of intercommunicators (MPI-3.1 section 5.2.2), as
// schedules (nbc_schedule.h): the blocking calls run one and wait for it,
// the non-blocking calls hand it to the engine. Every transfer goes between
// the two groups (an intercommunicator's point-to-point ranks name the
// remote group), in direct rounds:
//   - rooted (bcast, gather(v), scatter(v), reduce): `root` is MPI_ROOT at
//     the root, MPI_PROC_NULL at the other processes of its group (which do
//     nothing), and the root's rank in the remote group at every process of
//     the other group; the root talks to each of them;
//   - barrier, allgather(v), alltoall(v,w), allreduce, reduce_scatter(_block):
//     each process exchanges with every process of the other group; a
//     reduction is applied in the remote group's rank order (right for
//     non-commutative ops). The reduce_scatters receive the whole vector
//     from every remote process and keep their block.
// O(local x remote) messages: these favour being right and never blocking
// over speed. MPI_IN_PLACE is not valid on an intercommunicator (the binding
// refuses it). Counts and displacements arrays are per remote rank, except
// reduce_scatter's rcounts (per local rank, as MPI says).
#pragma once

#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"
#include "p2p/nbc_algorithms.h"

struct lz_mpi_comm_s;

namespace lz::rt {

NbcPtr inter_barrier(lz_mpi_comm_s& c);
NbcPtr inter_bcast(lz_mpi_comm_s& c, void* buf, int count, const Datatype& dt, int root);
NbcPtr inter_reduce(lz_mpi_comm_s& c, const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op,
                    int root);
NbcPtr inter_allreduce(lz_mpi_comm_s& c, const void* sbuf, void* rbuf, int count, const Datatype& dt, const Op& op);
NbcPtr inter_gatherv(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf,
                     const int* rcounts, const int* displs, const Datatype& rdt, int root);
NbcPtr inter_scatterv(lz_mpi_comm_s& c, const void* sbuf, const int* scounts, const int* displs, const Datatype& sdt,
                      void* rbuf, int rcount, const Datatype& rdt, int root);
NbcPtr inter_gather(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                    const Datatype& rdt, int root);
NbcPtr inter_scatter(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                     const Datatype& rdt, int root);
NbcPtr inter_allgatherv(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf,
                        const int* rcounts, const int* displs, const Datatype& rdt);
NbcPtr inter_allgather(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                       const Datatype& rdt);
NbcPtr inter_alltoallw(lz_mpi_comm_s& c, const void* sbuf, const int* scounts, const int* sdispls,
                       const Datatype* const* sdts, void* rbuf, const int* rcounts, const int* rdispls,
                       const Datatype* const* rdts);
NbcPtr inter_alltoallv(lz_mpi_comm_s& c, const void* sbuf, const int* scounts, const int* sdispls, const Datatype& sdt,
                       void* rbuf, const int* rcounts, const int* rdispls, const Datatype& rdt);
NbcPtr inter_alltoall(lz_mpi_comm_s& c, const void* sbuf, int scount, const Datatype& sdt, void* rbuf, int rcount,
                      const Datatype& rdt);
// rcounts: one per local rank; every process contributes sum(rcounts)
// elements (the same sum in both groups).
NbcPtr inter_reduce_scatter(lz_mpi_comm_s& c, const void* sbuf, void* rbuf, const int* rcounts, const Datatype& dt,
                            const Op& op);
NbcPtr inter_reduce_scatter_block(lz_mpi_comm_s& c, const void* sbuf, void* rbuf, int rcount, const Datatype& dt,
                                  const Op& op);

}  // namespace lz::rt
