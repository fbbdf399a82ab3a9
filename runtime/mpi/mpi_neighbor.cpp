// MPI binding: neighbourhood collectives (MPI-3.1 sections 7.6 and 7.7),
// blocking and non-blocking, over Cartesian, graph and distributed graph
// communicators. Each call checks its arguments (mpi/coll_args.h, a count,
// type and displacement per neighbour), builds one round of transfers with
// its neighbours (p2p/nbc_neighbor.h, which says how repeated neighbours
// pair up) and either returns it as a request or, blocking, runs it and
// waits (mpi/nbc_start.h). Its messages travel on the collective context
// with a tag of their own, so they never match user point-to-point traffic
// nor another collective in flight.
#include "mpi.h"
#include "mpi/coll_args.h"
#include "mpi/entry.h"
#include "mpi/nbc_start.h"
#include "mpi/topo_args.h"
#include "p2p/nbc_neighbor.h"
#include "p2p/topology.h"

using namespace lz::rt;
using namespace lz::rt::coll_args;
using namespace lz::rt::nbc_start;

namespace {

// The communicator's neighbours; an error (MPI_ERR_TOPOLOGY) without a topology.
int neighbours(const char* fn, MPI_Comm comm, NeighbourLists* nb) {
  int err = MPI_SUCCESS;
  const Topology* t = topo_args::any_topology_of(fn, comm, &err);
  if (t == nullptr) return err;
  t->neighbours_of(comm->rank(), &nb->in, &nb->out);
  nb->cartesian = t->kind == Topology::Kind::kCart;
  return MPI_SUCCESS;
}

int indegree(const NeighbourLists& nb) { return static_cast<int>(nb.in.size()); }
int outdegree(const NeighbourLists& nb) { return static_cast<int>(nb.out.size()); }

// Each collective's checks and schedule, shared by the blocking call and
// its non-blocking twin: the schedule, or null with the error in *err.
NbcPtr allgather(const char* fn, const void* sbuf, int scount, MPI_Datatype sdt, void* rbuf, int rcount,
                 MPI_Datatype rdt, MPI_Comm comm, int* err) {
  NeighbourLists nb;
  if ((*err = neighbours(fn, comm, &nb)) != MPI_SUCCESS) return nullptr;
  if ((*err = check_neighbor_uniform(fn, sbuf, scount, sdt, rbuf, rcount, rdt, comm)) != MPI_SUCCESS) return nullptr;
  return nbc_neighbor_allgather(*comm, nb, sbuf, scount, *sdt, rbuf, rcount, *rdt);
}

NbcPtr allgatherv(const char* fn, const void* sbuf, int scount, MPI_Datatype sdt, void* rbuf, const int* rcounts,
                  const int* displs, MPI_Datatype rdt, MPI_Comm comm, int* err) {
  NeighbourLists nb;
  if ((*err = neighbours(fn, comm, &nb)) != MPI_SUCCESS) return nullptr;
  if ((*err = check_neighbor_allgatherv(fn, sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm, indegree(nb))) !=
      MPI_SUCCESS)
    return nullptr;
  return nbc_neighbor_allgatherv(*comm, nb, sbuf, scount, *sdt, rbuf, rcounts, displs, *rdt);
}

NbcPtr alltoall(const char* fn, const void* sbuf, int scount, MPI_Datatype sdt, void* rbuf, int rcount,
                MPI_Datatype rdt, MPI_Comm comm, int* err) {
  NeighbourLists nb;
  if ((*err = neighbours(fn, comm, &nb)) != MPI_SUCCESS) return nullptr;
  if ((*err = check_neighbor_uniform(fn, sbuf, scount, sdt, rbuf, rcount, rdt, comm)) != MPI_SUCCESS) return nullptr;
  return nbc_neighbor_alltoall(*comm, nb, sbuf, scount, *sdt, rbuf, rcount, *rdt);
}

NbcPtr alltoallv(const char* fn, const void* sbuf, const int* scounts, const int* sdispls, MPI_Datatype sdt, void* rbuf,
                 const int* rcounts, const int* rdispls, MPI_Datatype rdt, MPI_Comm comm, int* err) {
  NeighbourLists nb;
  if ((*err = neighbours(fn, comm, &nb)) != MPI_SUCCESS) return nullptr;
  if ((*err = check_neighbor_alltoallv(fn, sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm, indegree(nb),
                                       outdegree(nb))) != MPI_SUCCESS)
    return nullptr;
  return nbc_neighbor_alltoallv(*comm, nb, sbuf, scounts, sdispls, *sdt, rbuf, rcounts, rdispls, *rdt);
}

NbcPtr alltoallw(const char* fn, const void* sbuf, const int* scounts, const MPI_Aint* sdispls,
                 const MPI_Datatype* sdts, void* rbuf, const int* rcounts, const MPI_Aint* rdispls,
                 const MPI_Datatype* rdts, MPI_Comm comm, int* err) {
  NeighbourLists nb;
  if ((*err = neighbours(fn, comm, &nb)) != MPI_SUCCESS) return nullptr;
  if ((*err = check_neighbor_alltoallw(fn, sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts, comm,
                                       indegree(nb), outdegree(nb))) != MPI_SUCCESS)
    return nullptr;
  // MPI_Datatype is the engine's Datatype*.
  return nbc_neighbor_alltoallw(*comm, nb, sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts);
}

int wait_for(const char* fn, MPI_Comm comm, NbcPtr s, int err) {
  return s ? run_and_wait(fn, comm, std::move(s)) : err;
}

int start_or(MPI_Comm comm, NbcPtr s, MPI_Request* request, int err) {
  return s ? start(comm, std::move(s), request) : err;
}

}  // namespace

extern "C" {

int MPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Neighbor_allgather";
  LZ_MPI_ENTRY(kFn);
  int err = MPI_SUCCESS;
  NbcPtr s = allgather(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &err);
  return wait_for(kFn, comm, std::move(s), err);
}

int MPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Ineighbor_allgather";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  int err = MPI_SUCCESS;
  NbcPtr s = allgather(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &err);
  return start_or(comm, std::move(s), request, err);
}

int MPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Neighbor_allgatherv";
  LZ_MPI_ENTRY(kFn);
  int err = MPI_SUCCESS;
  NbcPtr s = allgatherv(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, &err);
  return wait_for(kFn, comm, std::move(s), err);
}

int MPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Ineighbor_allgatherv";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  int err = MPI_SUCCESS;
  NbcPtr s = allgatherv(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, &err);
  return start_or(comm, std::move(s), request, err);
}

int MPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Neighbor_alltoall";
  LZ_MPI_ENTRY(kFn);
  int err = MPI_SUCCESS;
  NbcPtr s = alltoall(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &err);
  return wait_for(kFn, comm, std::move(s), err);
}

int MPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Ineighbor_alltoall";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  int err = MPI_SUCCESS;
  NbcPtr s = alltoall(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &err);
  return start_or(comm, std::move(s), request, err);
}

int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                           void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                           MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Neighbor_alltoallv";
  LZ_MPI_ENTRY(kFn);
  int err = MPI_SUCCESS;
  NbcPtr s = alltoallv(kFn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, &err);
  return wait_for(kFn, comm, std::move(s), err);
}

int MPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Ineighbor_alltoallv";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  int err = MPI_SUCCESS;
  NbcPtr s = alltoallv(kFn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, &err);
  return start_or(comm, std::move(s), request, err);
}

int MPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Neighbor_alltoallw";
  LZ_MPI_ENTRY(kFn);
  int err = MPI_SUCCESS;
  NbcPtr s =
      alltoallw(kFn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, &err);
  return wait_for(kFn, comm, std::move(s), err);
}

int MPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Ineighbor_alltoallw";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  int err = MPI_SUCCESS;
  NbcPtr s =
      alltoallw(kFn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, &err);
  return start_or(comm, std::move(s), request, err);
}

}  // extern "C"
