// The schedules of the neighbourhood collectives (MPI-3.1 sections 7.6 and
// 7.7: MPI_(I)neighbor_allgather(v) and _alltoall(v,w)): one round in which
// a process receives block i of its receive buffer from in[i] and sends
// block j of its send buffer (allgather: the whole send buffer) to out[j],
// for NbcSchedule to run. Arguments checked by the binding
// (mpi/mpi_neighbor.cpp); the blocking calls run the same schedule and wait.
//
//   NeighbourLists nb;
//   comm.topology->neighbours_of(comm.rank(), &nb.in, &nb.out);
//   nb.cartesian = comm.topology->kind == Topology::Kind::kCart;
//   engine.start_nbc(request, nbc_neighbor_alltoall(comm, nb, sbuf, 2, int_type, rbuf, 2, int_type));
//
// Matching. All transfers of one call share a tag (nbc_tag) on the
// collective context, so messages between one pair of processes match in
// the order they are posted (the engine matches each sender's messages in
// order). A neighbour listed more than once therefore pairs up by
// position: for graphs and distributed graphs the k-th block sent to a
// process fills the k-th block that process receives from this one (the
// order of the lists). For Cartesian grids MPI-3.1 as corrected by MPI-4.0
// (errata of section 7.6, MPI Forum issue 153) wants block 2d of a sender
// (to its -1 neighbour) in block 2d+1 of that neighbour and block 2d+1 in
// block 2d, also when both neighbours are one process (a periodic
// dimension of 1 or 2): receives are posted +1 first in each dimension.
// MPI_PROC_NULL neighbours (off a non-periodic edge) keep their block,
// untouched, and have no transfer.
#pragma once

#include <vector>

#include "mpi.h"
#include "p2p/nbc_algorithms.h"

namespace lz::rt {

struct NeighbourLists {
  std::vector<int> in, out;  // ranks, MPI_PROC_NULL allowed (Topology::neighbours_of)
  bool cartesian = false;    // in and out are (-1, +1) pairs per dimension
};

NbcPtr nbc_neighbor_allgather(lz_mpi_comm_s& c, const NeighbourLists& nb, const void* sbuf, int scount,
                              const Datatype& sdt, void* rbuf, int rcount, const Datatype& rdt);
// Block i at displs[i] elements of rdt into rbuf, rcounts[i] long.
NbcPtr nbc_neighbor_allgatherv(lz_mpi_comm_s& c, const NeighbourLists& nb, const void* sbuf, int scount,
                               const Datatype& sdt, void* rbuf, const int* rcounts, const int* displs,
                               const Datatype& rdt);
NbcPtr nbc_neighbor_alltoall(lz_mpi_comm_s& c, const NeighbourLists& nb, const void* sbuf, int scount,
                             const Datatype& sdt, void* rbuf, int rcount, const Datatype& rdt);
NbcPtr nbc_neighbor_alltoallv(lz_mpi_comm_s& c, const NeighbourLists& nb, const void* sbuf, const int* scounts,
                              const int* sdispls, const Datatype& sdt, void* rbuf, const int* rcounts,
                              const int* rdispls, const Datatype& rdt);
// A datatype per block, displacements in bytes.
NbcPtr nbc_neighbor_alltoallw(lz_mpi_comm_s& c, const NeighbourLists& nb, const void* sbuf, const int* scounts,
                              const MPI_Aint* sdispls, const Datatype* const* sdts, void* rbuf, const int* rcounts,
                              const MPI_Aint* rdispls, const Datatype* const* rdts);

}  // namespace lz::rt
