// MPI binding: collectives. Checks the arguments MPI says are the caller's
// to get right (reported through the communicator's error handler, naming
// the call and the bad value), then runs the module coll_enable() chose for
// this communicator and function.
#include <string>

#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"
#include "lazarus/frameworks/coll.h"
#include "mpi.h"
#include "mpi/coll_args.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "mpi/nbc_start.h"
#include "p2p/comm.h"
#include "p2p/nbc_inter.h"

namespace {

using lz::coll::Function;
using lz::rt::mpi_error;
using namespace lz::rt::coll_args;
using lz::rt::nbc_start::run_and_wait;

lz::coll::Module* module_for(MPI_Comm comm, Function f) { return comm->coll_table[f]; }

int finish(const char* fn, MPI_Comm comm, const lz::Status& s) {
  return s.ok() ? MPI_SUCCESS : mpi_error(comm, fn, s);
}

}  // namespace

#define LZ_MODULE(f)                                                                                       \
  lz::coll::Module* m = module_for(comm, f);                                                               \
  if (m == nullptr)                                                                                        \
    return mpi_error(comm, kFn, MPI_ERR_INTERN,                                                            \
                     std::string("no collective module provides ") + lz::coll::function_name(f) + " on this communicator")

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Barrier";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_comm(kFn, comm));
  if (comm->is_inter()) return run_and_wait(kFn, comm, lz::rt::inter_barrier(*comm));
  LZ_MODULE(lz::coll::kBarrier);
  return finish(kFn, comm, m->barrier(*comm));
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Bcast";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_bcast(kFn, buffer, count, datatype, root, comm));
  if (comm->is_inter()) return run_and_wait(kFn, comm, lz::rt::inter_bcast(*comm, buffer, count, *datatype, root));
  LZ_MODULE(lz::coll::kBcast);
  return finish(kFn, comm, m->bcast(buffer, count, *datatype, root, *comm));
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Reduce";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_reduce(kFn, sendbuf, recvbuf, count, datatype, op, root, comm));
  if (comm->is_inter())
    return run_and_wait(kFn, comm, lz::rt::inter_reduce(*comm, sendbuf, recvbuf, count, *datatype, *op, root));
  LZ_MODULE(lz::coll::kReduce);
  return finish(kFn, comm, m->reduce(sendbuf, recvbuf, count, *datatype, *op, root, *comm));
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Allreduce";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_allreduce(kFn, sendbuf, recvbuf, count, datatype, op, comm));
  if (comm->is_inter())
    return run_and_wait(kFn, comm, lz::rt::inter_allreduce(*comm, sendbuf, recvbuf, count, *datatype, *op));
  LZ_MODULE(lz::coll::kAllreduce);
  return finish(kFn, comm, m->allreduce(sendbuf, recvbuf, count, *datatype, *op, *comm));
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Gather";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_gather(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
  if (comm->is_inter())
    return run_and_wait(kFn, comm,
                        lz::rt::inter_gather(*comm, sendbuf, sendcount, type_or_byte(sendtype), recvbuf, recvcount,
                                             type_or_byte(recvtype), root));
  const bool is_root = comm->rank() == root;
  LZ_MODULE(lz::coll::kGather);
  return finish(kFn, comm, m->gather(sendbuf, sendcount, in_place(sendbuf) ? *recvtype : *sendtype, recvbuf,
                                     recvcount, is_root ? *recvtype : lz::dt::byte_type(), root, *comm));
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Gatherv";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_gatherv(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm));
  if (comm->is_inter())
    return run_and_wait(kFn, comm,
                        lz::rt::inter_gatherv(*comm, sendbuf, sendcount, type_or_byte(sendtype), recvbuf, recvcounts,
                                              displs, type_or_byte(recvtype), root));
  const bool is_root = comm->rank() == root;
  LZ_MODULE(lz::coll::kGatherv);
  return finish(kFn, comm, m->gatherv(sendbuf, sendcount, in_place(sendbuf) ? *recvtype : *sendtype, recvbuf,
                                      recvcounts, displs, is_root ? *recvtype : lz::dt::byte_type(), root, *comm));
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Scatter";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_scatter(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
  if (comm->is_inter())
    return run_and_wait(kFn, comm,
                        lz::rt::inter_scatter(*comm, sendbuf, sendcount, type_or_byte(sendtype), recvbuf, recvcount,
                                              type_or_byte(recvtype), root));
  const bool is_root = comm->rank() == root;
  LZ_MODULE(lz::coll::kScatter);
  return finish(kFn, comm, m->scatter(sendbuf, sendcount, is_root ? *sendtype : lz::dt::byte_type(), recvbuf,
                                      recvcount, in_place(recvbuf) ? *sendtype : *recvtype, root, *comm));
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Scatterv";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_scatterv(kFn, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm));
  if (comm->is_inter())
    return run_and_wait(kFn, comm,
                        lz::rt::inter_scatterv(*comm, sendbuf, sendcounts, displs, type_or_byte(sendtype), recvbuf,
                                               recvcount, type_or_byte(recvtype), root));
  const bool is_root = comm->rank() == root;
  LZ_MODULE(lz::coll::kScatterv);
  return finish(kFn, comm, m->scatterv(sendbuf, sendcounts, displs, is_root ? *sendtype : lz::dt::byte_type(),
                                       recvbuf, recvcount, in_place(recvbuf) ? *sendtype : *recvtype, root, *comm));
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Allgather";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_all_to_all(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, false));
  if (comm->is_inter())
    return run_and_wait(kFn, comm,
                        lz::rt::inter_allgather(*comm, sendbuf, sendcount, type_or_byte(sendtype), recvbuf, recvcount,
                                                type_or_byte(recvtype)));
  LZ_MODULE(lz::coll::kAllgather);
  return finish(kFn, comm, m->allgather(sendbuf, sendcount, in_place(sendbuf) ? *recvtype : *sendtype, recvbuf,
                                        recvcount, *recvtype, *comm));
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Allgatherv";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_allgatherv(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm));
  if (comm->is_inter())
    return run_and_wait(kFn, comm,
                        lz::rt::inter_allgatherv(*comm, sendbuf, sendcount, type_or_byte(sendtype), recvbuf, recvcounts,
                                                 displs, type_or_byte(recvtype)));
  LZ_MODULE(lz::coll::kAllgatherv);
  return finish(kFn, comm, m->allgatherv(sendbuf, sendcount, in_place(sendbuf) ? *recvtype : *sendtype, recvbuf,
                                         recvcounts, displs, *recvtype, *comm));
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Alltoall";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_all_to_all(kFn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, recvcount > 0));
  if (comm->is_inter())
    return run_and_wait(kFn, comm,
                        lz::rt::inter_alltoall(*comm, sendbuf, sendcount, type_or_byte(sendtype), recvbuf, recvcount,
                                               type_or_byte(recvtype)));
  LZ_MODULE(lz::coll::kAlltoall);
  return finish(kFn, comm, m->alltoall(sendbuf, sendcount, in_place(sendbuf) ? *recvtype : *sendtype, recvbuf,
                                       recvcount, *recvtype, *comm));
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Alltoallv";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(
      check_alltoallv(kFn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm));
  if (comm->is_inter())
    return run_and_wait(kFn, comm,
                        lz::rt::inter_alltoallv(*comm, sendbuf, sendcounts, sdispls, type_or_byte(sendtype), recvbuf,
                                                recvcounts, rdispls, type_or_byte(recvtype)));
  LZ_MODULE(lz::coll::kAlltoallv);
  return finish(kFn, comm, m->alltoallv(sendbuf, sendcounts, sdispls, in_place(sendbuf) ? *recvtype : *sendtype,
                                        recvbuf, recvcounts, rdispls, *recvtype, *comm));
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Reduce_scatter";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_reduce_scatter(kFn, sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, false));
  if (comm->is_inter())
    return run_and_wait(kFn, comm, lz::rt::inter_reduce_scatter(*comm, sendbuf, recvbuf, recvcounts, *datatype, *op));
  LZ_MODULE(lz::coll::kReduceScatter);
  return finish(kFn, comm, m->reduce_scatter(sendbuf, recvbuf, recvcounts, *datatype, *op, *comm));
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Reduce_scatter_block";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_reduce_scatter(kFn, sendbuf, recvbuf, nullptr, recvcount, datatype, op, comm, true));
  if (comm->is_inter())
    return run_and_wait(kFn, comm,
                        lz::rt::inter_reduce_scatter_block(*comm, sendbuf, recvbuf, recvcount, *datatype, *op));
  LZ_MODULE(lz::coll::kReduceScatterBlock);
  return finish(kFn, comm, m->reduce_scatter_block(sendbuf, recvbuf, recvcount, *datatype, *op, *comm));
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Scan";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_intra(kFn, comm));
  LZ_COLL_CHECK(check_allreduce(kFn, sendbuf, recvbuf, count, datatype, op, comm));
  LZ_MODULE(lz::coll::kScan);
  return finish(kFn, comm, m->scan(sendbuf, recvbuf, count, *datatype, *op, *comm));
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Exscan";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(check_intra(kFn, comm));
  LZ_COLL_CHECK(check_allreduce(kFn, sendbuf, recvbuf, count, datatype, op, comm));
  LZ_MODULE(lz::coll::kExscan);
  return finish(kFn, comm, m->exscan(sendbuf, recvbuf, count, *datatype, *op, *comm));
}

}  // extern "C"
