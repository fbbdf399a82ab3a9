// MPI binding: non-blocking collectives (MPI-3.1 section 5.12). The same
// argument checks as the blocking calls (mpi/coll_args.h); the call builds
// the collective's schedule (p2p/nbc_algorithms.h) and returns a request the
// engine completes once the schedule has run (MPI_Wait, MPI_Test... as for
// point-to-point). A checkpoint taken meanwhile drains their messages like
// any other: they are point-to-point messages on the collective context.
#include <vector>

#include "mpi.h"
#include "mpi/coll_args.h"
#include "mpi/entry.h"
#include "mpi/nbc_start.h"
#include "p2p/nbc_algorithms.h"
#include "p2p/nbc_inter.h"

using namespace lz::rt;
using namespace lz::rt::coll_args;
using namespace lz::rt::nbc_start;

namespace {

NbcPtr alltoallw_schedule(MPI_Comm comm, const void* sbuf, const int* scounts, const int* sdispls,
                          const MPI_Datatype* sdts, void* rbuf, const int* rcounts, const int* rdispls,
                          const MPI_Datatype* rdts) {
  // MPI_Datatype is the engine's Datatype*; with MPI_IN_PLACE the send
  // arrays are not read.
  return nbc_alltoallw(*comm, sbuf, scounts, sdispls, in_place(sbuf) ? nullptr : sdts, rbuf, rcounts, rdispls,
                       rdts);
}

}  // namespace

extern "C" {

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Ibarrier";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  LZ_COLL_CHECK(check_comm(kFn, comm));
  return start(comm, comm->is_inter() ? inter_barrier(*comm) : nbc_barrier(*comm), request);
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Ibcast";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  LZ_COLL_CHECK(check_bcast(kFn, buffer, count, datatype, root, comm));
  return start(comm,
               comm->is_inter() ? inter_bcast(*comm, buffer, count, *datatype, root)
                                : nbc_bcast(*comm, buffer, count, *datatype, root),
               request);
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Ireduce";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  LZ_COLL_CHECK(check_reduce(kFn, sendbuf, recvbuf, count, datatype, op, root, comm));
  return start(comm,
               comm->is_inter() ? inter_reduce(*comm, sendbuf, recvbuf, count, *datatype, *op, root)
                                : nbc_reduce(*comm, sendbuf, recvbuf, count, *datatype, *op, root),
               request);
}

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Iallreduce";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  LZ_COLL_CHECK(check_allreduce(kFn, sendbuf, recvbuf, count, datatype, op, comm));
  return start(comm,
               comm->is_inter() ? inter_allreduce(*comm, sendbuf, recvbuf, count, *datatype, *op)
                                : nbc_allreduce(*comm, sendbuf, recvbuf, count, *datatype, *op),
               request);
}

int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Igather";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  LZ_COLL_CHECK(check_gather(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
  if (comm->is_inter())
    return start(comm,
                 inter_gather(*comm, sendbuf, sendcount, type_or_byte(sendtype), recvbuf, recvcount,
                              type_or_byte(recvtype), root),
                 request);
  const bool is_root = comm->rank() == root;
  return start(comm,
               nbc_gather(*comm, sendbuf, sendcount, in_place(sendbuf) ? *recvtype : *sendtype, recvbuf, recvcount,
                          is_root ? *recvtype : lz::dt::byte_type(), root),
               request);
}

int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Iscatter";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  LZ_COLL_CHECK(check_scatter(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
  if (comm->is_inter())
    return start(comm,
                 inter_scatter(*comm, sendbuf, sendcount, type_or_byte(sendtype), recvbuf, recvcount,
                               type_or_byte(recvtype), root),
                 request);
  const bool is_root = comm->rank() == root;
  return start(comm,
               nbc_scatter(*comm, sendbuf, sendcount, is_root ? *sendtype : lz::dt::byte_type(), recvbuf, recvcount,
                           in_place(recvbuf) ? *sendtype : *recvtype, root),
               request);
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Iallgather";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  LZ_COLL_CHECK(check_all_to_all(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, false));
  if (comm->is_inter())
    return start(comm, inter_allgather(*comm, sendbuf, sendcount, *sendtype, recvbuf, recvcount, *recvtype), request);
  return start(comm,
               nbc_allgather(*comm, sendbuf, sendcount, in_place(sendbuf) ? *recvtype : *sendtype, recvbuf,
                             recvcount, *recvtype),
               request);
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Ialltoall";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  LZ_COLL_CHECK(
      check_all_to_all(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, recvcount > 0));
  if (comm->is_inter())
    return start(comm, inter_alltoall(*comm, sendbuf, sendcount, *sendtype, recvbuf, recvcount, *recvtype), request);
  return start(comm,
               nbc_alltoall(*comm, sendbuf, sendcount, in_place(sendbuf) ? *recvtype : *sendtype, recvbuf, recvcount,
                            *recvtype),
               request);
}

int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Igatherv";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  LZ_COLL_CHECK(check_gatherv(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm));
  if (comm->is_inter())
    return start(comm,
                 inter_gatherv(*comm, sendbuf, sendcount, type_or_byte(sendtype), recvbuf, recvcounts, displs,
                               type_or_byte(recvtype), root),
                 request);
  const bool is_root = comm->rank() == root;
  return start(comm,
               nbc_gatherv(*comm, sendbuf, sendcount, in_place(sendbuf) ? *recvtype : *sendtype, recvbuf, recvcounts,
                           displs, is_root ? *recvtype : lz::dt::byte_type(), root),
               request);
}

int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Iscatterv";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  LZ_COLL_CHECK(check_scatterv(kFn, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm));
  if (comm->is_inter())
    return start(comm,
                 inter_scatterv(*comm, sendbuf, sendcounts, displs, type_or_byte(sendtype), recvbuf, recvcount,
                                type_or_byte(recvtype), root),
                 request);
  const bool is_root = comm->rank() == root;
  return start(comm,
               nbc_scatterv(*comm, sendbuf, sendcounts, displs, is_root ? *sendtype : lz::dt::byte_type(), recvbuf,
                            recvcount, in_place(recvbuf) ? *sendtype : *recvtype, root),
               request);
}

int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Iallgatherv";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  LZ_COLL_CHECK(check_allgatherv(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm));
  if (comm->is_inter())
    return start(comm, inter_allgatherv(*comm, sendbuf, sendcount, *sendtype, recvbuf, recvcounts, displs, *recvtype),
                 request);
  return start(comm,
               nbc_allgatherv(*comm, sendbuf, sendcount, in_place(sendbuf) ? *recvtype : *sendtype, recvbuf,
                              recvcounts, displs, *recvtype),
               request);
}

int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Ialltoallv";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  LZ_COLL_CHECK(
      check_alltoallv(kFn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm));
  if (comm->is_inter())
    return start(
        comm, inter_alltoallv(*comm, sendbuf, sendcounts, sdispls, *sendtype, recvbuf, recvcounts, rdispls, *recvtype),
        request);
  return start(comm,
               nbc_alltoallv(*comm, sendbuf, sendcounts, sdispls, in_place(sendbuf) ? *recvtype : *sendtype, recvbuf,
                             recvcounts, rdispls, *recvtype),
               request);
}

int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Ireduce_scatter";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  LZ_COLL_CHECK(check_reduce_scatter(kFn, sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, false));
  if (comm->is_inter())
    return start(comm, inter_reduce_scatter(*comm, sendbuf, recvbuf, recvcounts, *datatype, *op), request);
  return start(comm, nbc_reduce_scatter(*comm, sendbuf, recvbuf, recvcounts, *datatype, *op), request);
}

int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Ireduce_scatter_block";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  LZ_COLL_CHECK(check_reduce_scatter(kFn, sendbuf, recvbuf, nullptr, recvcount, datatype, op, comm, true));
  if (comm->is_inter())
    return start(comm, inter_reduce_scatter_block(*comm, sendbuf, recvbuf, recvcount, *datatype, *op), request);
  std::vector<int> counts(static_cast<size_t>(comm->size()), recvcount);
  return start(comm, nbc_reduce_scatter(*comm, sendbuf, recvbuf, counts.data(), *datatype, *op), request);
}

int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
              MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Iscan";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_intra(kFn, comm));
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  LZ_COLL_CHECK(check_allreduce(kFn, sendbuf, recvbuf, count, datatype, op, comm));
  return start(comm, nbc_scan(*comm, sendbuf, recvbuf, count, *datatype, *op, false), request);
}

int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Iexscan";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_intra(kFn, comm));
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  LZ_COLL_CHECK(check_allreduce(kFn, sendbuf, recvbuf, count, datatype, op, comm));
  return start(comm, nbc_scan(*comm, sendbuf, recvbuf, count, *datatype, *op, true), request);
}

int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                   void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                   MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Ialltoallw";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_request(kFn, comm, request));
  LZ_COLL_CHECK(check_alltoallw(kFn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                comm));
  if (comm->is_inter())
    return start(
        comm, inter_alltoallw(*comm, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes),
        request);
  return start(comm,
               alltoallw_schedule(comm, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                                  recvtypes),
               request);
}

// The blocking call runs the same schedule and waits for it.
int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                  void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                  MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Alltoallw";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_alltoallw(kFn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                comm));
  if (comm->is_inter())
    return run_and_wait(
        kFn, comm,
        inter_alltoallw(*comm, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes));
  return run_and_wait(
      kFn, comm,
      alltoallw_schedule(comm, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes));
}

}  // extern "C"
