// MPI binding: MPI-4.0's persistent collectives (section 6.13), each its
// non-blocking call with the arguments bound (mpi/persistent_coll.h).
// No hint of `info` is acted on, as the standard allows.
#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/persistent_coll.h"

using lz::rt::persistent_coll::make;

extern "C" {

int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Barrier_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {}, {}, [=](MPI_Request* r) { return MPI_Ibarrier(comm, r); });
}

int MPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                   MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Bcast_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {datatype}, {},
              [=](MPI_Request* r) { return MPI_Ibcast(buffer, count, datatype, root, comm, r); });
}

int MPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Gather_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {sendtype, recvtype}, {}, [=](MPI_Request* r) {
    return MPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r);
  });
}

int MPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                     const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Gatherv_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {sendtype, recvtype}, {}, [=](MPI_Request* r) {
    return MPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, r);
  });
}

int MPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Scatter_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {sendtype, recvtype}, {}, [=](MPI_Request* r) {
    return MPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r);
  });
}

int MPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                      void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Scatterv_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {sendtype, recvtype}, {}, [=](MPI_Request* r) {
    return MPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, r);
  });
}

int MPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Allgather_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {sendtype, recvtype}, {}, [=](MPI_Request* r) {
    return MPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

int MPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Allgatherv_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {sendtype, recvtype}, {}, [=](MPI_Request* r) {
    return MPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, r);
  });
}

int MPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Alltoall_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {sendtype, recvtype}, {}, [=](MPI_Request* r) {
    return MPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

int MPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                       void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Alltoallv_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {sendtype, recvtype}, {}, [=](MPI_Request* r) {
    return MPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, r);
  });
}

int MPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                       void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                       MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Alltoallw_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {}, {}, [=](MPI_Request* r) {
    return MPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, r);
  });
}

int MPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Reduce_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {datatype}, {op},
              [=](MPI_Request* r) { return MPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, r); });
}

int MPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                       MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Allreduce_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {datatype}, {op},
              [=](MPI_Request* r) { return MPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, r); });
}

int MPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Reduce_scatter_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {datatype}, {op},
              [=](MPI_Request* r) { return MPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, r); });
}

int MPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Reduce_scatter_block_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {datatype}, {op}, [=](MPI_Request* r) {
    return MPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, r);
  });
}

int MPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                  MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Scan_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {datatype}, {op},
              [=](MPI_Request* r) { return MPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, r); });
}

int MPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Exscan_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {datatype}, {op},
              [=](MPI_Request* r) { return MPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, r); });
}

int MPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Neighbor_allgather_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {sendtype, recvtype}, {}, [=](MPI_Request* r) {
    return MPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

int MPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Neighbor_allgatherv_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {sendtype, recvtype}, {}, [=](MPI_Request* r) {
    return MPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, r);
  });
}

int MPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Neighbor_alltoall_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {sendtype, recvtype}, {}, [=](MPI_Request* r) {
    return MPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

int MPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                                void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Neighbor_alltoallv_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {sendtype, recvtype}, {}, [=](MPI_Request* r) {
    return MPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                                   r);
  });
}

int MPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Neighbor_alltoallw_init";
  LZ_MPI_ENTRY(kFn);
  (void)info;
  return make(kFn, comm, request, {}, {}, [=](MPI_Request* r) {
    return MPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                   comm, r);
  });
}

}  // extern "C"
