// MPI binding: the MPI-4.0 large-count calls of point-to-point and the
// collectives (MPI_Send_c ... MPI_Neighbor_alltoallw_init_c), each its int
// twin reached through mpi/large_count.h.
#include <string>

#include "mpi.h"
#include "mpi/large_count.h"
#include "mpi/persistent_coll.h"
#include "p2p/comm.h"

namespace lz::rt::large {

Count::Count(MPI_Count count, MPI_Datatype type) : requested_(count), type_(type) {
  if (count <= INT_MAX) {
    count_ = count < INT_MIN ? INT_MIN : static_cast<int>(count);
    return;
  }
  count_ = 1;  // an invalid type is the int call's to report
  if (type == MPI_DATATYPE_NULL || !type->is_committed()) return;
  if (!type->is_contiguous()) {
    unsupported_ = true;
    return;
  }
  auto made = lz_datatype_s::contiguous_c(count, *type);
  if (!made.ok()) {
    unsupported_ = true;
    return;
  }
  made_ = *made;
  made_->commit();
  type_ = made_;
}

int Count::check(const char* fn, MPI_Comm comm, const char* what) const {
  if (requested_ < INT_MIN)  // the int call would name INT_MIN
    return mpi_error(comm, fn, MPI_ERR_COUNT, std::string("invalid ") + what + " " + std::to_string(requested_));
  if (!unsupported_) return MPI_SUCCESS;
  return mpi_error(comm, fn, MPI_ERR_COUNT,
                   std::string(what) + " " + std::to_string(requested_) + " of " + type_->name() +
                       ": beyond INT_MAX (2147483647) elements only datatypes whose elements abut (contiguous "
                       "types) are supported");
}

int Ints::too_large(const char* fn, MPI_Comm comm, const char* what, int i, long long value) {
  return mpi_error(comm, fn, MPI_ERR_COUNT,
                   std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(value) +
                       " is beyond INT_MAX (2147483647), the limit of " + fn + "'s counts and displacements");
}

int beyond_int(const char* fn, MPI_Comm comm, const char* what, MPI_Count value) {
  return mpi_error(
      comm, fn, MPI_ERR_COUNT,
      std::string(what) + " " + std::to_string(value) + " is beyond INT_MAX (2147483647), the limit of " + fn);
}

}  // namespace lz::rt::large

namespace {

using lz::rt::large::beyond_int;
using lz::rt::large::Count;
using lz::rt::large::in_pieces;
using lz::rt::large::Ints;
using lz::rt::persistent_coll::make;

bool comm_ok(MPI_Comm c) { return c != nullptr && c->valid(); }
// The entries of a per-peer array (the remote group's on an intercommunicator).
int peers(MPI_Comm c) { return comm_ok(c) ? c->peer_size() : 0; }
// Whether the root's arrays are significant here.
bool at_root(MPI_Comm c, int root) {
  if (!comm_ok(c)) return false;
  return c->is_inter() ? root == MPI_ROOT : c->rank() == root;
}
// A neighbourhood collective's in- and out-degree (0 when comm has none).
void degrees(MPI_Comm c, int* in, int* out) {
  *in = *out = 0;
  if (!comm_ok(c)) return;
  int kind = MPI_UNDEFINED;
  if (MPI_Topo_test(c, &kind) != MPI_SUCCESS) return;
  if (kind == MPI_CART) {
    int nd = 0;
    MPI_Cartdim_get(c, &nd);
    *in = *out = 2 * nd;
  } else if (kind == MPI_GRAPH) {
    int rank = 0;
    MPI_Comm_rank(c, &rank);
    MPI_Graph_neighbors_count(c, rank, in);
    *out = *in;
  } else if (kind == MPI_DIST_GRAPH) {
    int weighted = 0;
    MPI_Dist_graph_neighbors_count(c, in, out, &weighted);
  }
}

// A reduction's count beyond INT_MAX where it cannot go in pieces.
int whole(const char* fn, MPI_Comm comm, MPI_Count count) {
  return count > INT_MAX ? beyond_int(fn, comm, "count", count) : MPI_SUCCESS;
}
int narrow(MPI_Count count) { return count < INT_MIN ? INT_MIN : static_cast<int>(count); }

}  // namespace

#define LZ_COUNT(var, count, type, what) \
  Count var(count, type);                \
  if (int e = var.check(kFn, comm, what)) return e

extern "C" {

// ---- point-to-point ------------------------------------------------------------

#define LZ_SEND_C(name, twin)                                                                           \
  int name(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) { \
    static constexpr const char* kFn = #name;                                                           \
    LZ_LARGE_ENTRY(kFn);                                                                                \
    LZ_COUNT(c, count, datatype, "count");                                                              \
    return twin(buf, c.count(), c.type(), dest, tag, comm);                                             \
  }
LZ_SEND_C(MPI_Send_c, MPI_Send)
LZ_SEND_C(MPI_Bsend_c, MPI_Bsend)
LZ_SEND_C(MPI_Ssend_c, MPI_Ssend)
LZ_SEND_C(MPI_Rsend_c, MPI_Rsend)

#define LZ_ISEND_C(name, twin)                                                                        \
  int name(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, \
           MPI_Request* request) {                                                                    \
    static constexpr const char* kFn = #name;                                                         \
    LZ_LARGE_ENTRY(kFn);                                                                              \
    LZ_COUNT(c, count, datatype, "count");                                                            \
    return twin(buf, c.count(), c.type(), dest, tag, comm, request);                                  \
  }
LZ_ISEND_C(MPI_Isend_c, MPI_Isend)
LZ_ISEND_C(MPI_Ibsend_c, MPI_Ibsend)
LZ_ISEND_C(MPI_Issend_c, MPI_Issend)
LZ_ISEND_C(MPI_Irsend_c, MPI_Irsend)
LZ_ISEND_C(MPI_Send_init_c, MPI_Send_init)
LZ_ISEND_C(MPI_Bsend_init_c, MPI_Bsend_init)
LZ_ISEND_C(MPI_Ssend_init_c, MPI_Ssend_init)
LZ_ISEND_C(MPI_Rsend_init_c, MPI_Rsend_init)

int MPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Status* status) {
  static constexpr const char* kFn = "MPI_Recv_c";
  LZ_LARGE_ENTRY(kFn);
  LZ_COUNT(c, count, datatype, "count");
  return MPI_Recv(buf, c.count(), c.type(), source, tag, comm, status);
}

int MPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Irecv_c";
  LZ_LARGE_ENTRY(kFn);
  LZ_COUNT(c, count, datatype, "count");
  return MPI_Irecv(buf, c.count(), c.type(), source, tag, comm, request);
}

int MPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                    MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Recv_init_c";
  LZ_LARGE_ENTRY(kFn);
  LZ_COUNT(c, count, datatype, "count");
  return MPI_Recv_init(buf, c.count(), c.type(), source, tag, comm, request);
}

int MPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                   MPI_Status* status) {
  static constexpr const char* kFn = "MPI_Sendrecv_c";
  LZ_LARGE_ENTRY(kFn);
  LZ_COUNT(s, sendcount, sendtype, "sendcount");
  LZ_COUNT(r, recvcount, recvtype, "recvcount");
  return MPI_Sendrecv(sendbuf, s.count(), s.type(), dest, sendtag, recvbuf, r.count(), r.type(), source, recvtag, comm,
                      status);
}

int MPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                           int recvtag, MPI_Comm comm, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_Sendrecv_replace_c";
  LZ_LARGE_ENTRY(kFn);
  LZ_COUNT(c, count, datatype, "count");
  return MPI_Sendrecv_replace(buf, c.count(), c.type(), dest, sendtag, source, recvtag, comm, status);
}

int MPI_Isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                    MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Isendrecv_c";
  LZ_LARGE_ENTRY(kFn);
  LZ_COUNT(s, sendcount, sendtype, "sendcount");
  LZ_COUNT(r, recvcount, recvtype, "recvcount");
  return MPI_Isendrecv(sendbuf, s.count(), s.type(), dest, sendtag, recvbuf, r.count(), r.type(), source, recvtag, comm,
                       request);
}

int MPI_Isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                            int recvtag, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Isendrecv_replace_c";
  LZ_LARGE_ENTRY(kFn);
  LZ_COUNT(c, count, datatype, "count");
  return MPI_Isendrecv_replace(buf, c.count(), c.type(), dest, sendtag, source, recvtag, comm, request);
}

int MPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_Mrecv_c";
  LZ_LARGE_ENTRY(kFn);
  const MPI_Comm comm = MPI_COMM_WORLD;
  LZ_COUNT(c, count, datatype, "count");
  return MPI_Mrecv(buf, c.count(), c.type(), message, status);
}

int MPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Imrecv_c";
  LZ_LARGE_ENTRY(kFn);
  const MPI_Comm comm = MPI_COMM_WORLD;
  LZ_COUNT(c, count, datatype, "count");
  return MPI_Imrecv(buf, c.count(), c.type(), message, request);
}

// ---- collectives ---------------------------------------------------------------

int MPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Bcast_c";
  LZ_LARGE_ENTRY(kFn);
  LZ_COUNT(c, count, datatype, "count");
  return MPI_Bcast(buffer, c.count(), c.type(), root, comm);
}

int MPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Ibcast_c";
  LZ_LARGE_ENTRY(kFn);
  LZ_COUNT(c, count, datatype, "count");
  return MPI_Ibcast(buffer, c.count(), c.type(), root, comm, request);
}

int MPI_Bcast_init_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Bcast_init_c";
  LZ_LARGE_ENTRY(kFn);
  LZ_COUNT(c, count, datatype, "count");
  return MPI_Bcast_init(buffer, c.count(), c.type(), root, comm, info, request);
}

// Gather, scatter, allgather, alltoall and their neighbourhood forms: a send
// part and a receive part, each its own count and type.
#define LZ_PAIR_C(name, twin, ...)                                                                              \
  int name(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, \
           MPI_Datatype recvtype LZ_PAIR_PARAMS(__VA_ARGS__)) {                                                 \
    static constexpr const char* kFn = #name;                                                                   \
    LZ_LARGE_ENTRY(kFn);                                                                                        \
    LZ_COUNT(s, sendcount, sendtype, "sendcount");                                                              \
    LZ_COUNT(r, recvcount, recvtype, "recvcount");                                                              \
    return twin(sendbuf, s.count(), s.type(), recvbuf, r.count(), r.type() LZ_PAIR_ARGS(__VA_ARGS__));          \
  }
// The trailing parameters of each shape.
#define LZ_PAIR_PARAMS(shape) LZ_PARAMS_##shape
#define LZ_PAIR_ARGS(shape) LZ_ARGS_##shape
#define LZ_PARAMS_rooted , int root, MPI_Comm comm
#define LZ_ARGS_rooted , root, comm
#define LZ_PARAMS_all , MPI_Comm comm
#define LZ_ARGS_all , comm
#define LZ_PARAMS_irooted , int root, MPI_Comm comm, MPI_Request *request
#define LZ_ARGS_irooted , root, comm, request
#define LZ_PARAMS_iall , MPI_Comm comm, MPI_Request *request
#define LZ_ARGS_iall , comm, request
#define LZ_PARAMS_rooted_init , int root, MPI_Comm comm, MPI_Info info, MPI_Request *request
#define LZ_ARGS_rooted_init , root, comm, info, request
#define LZ_PARAMS_all_init , MPI_Comm comm, MPI_Info info, MPI_Request *request
#define LZ_ARGS_all_init , comm, info, request

LZ_PAIR_C(MPI_Gather_c, MPI_Gather, rooted)
LZ_PAIR_C(MPI_Scatter_c, MPI_Scatter, rooted)
LZ_PAIR_C(MPI_Allgather_c, MPI_Allgather, all)
LZ_PAIR_C(MPI_Alltoall_c, MPI_Alltoall, all)
LZ_PAIR_C(MPI_Neighbor_allgather_c, MPI_Neighbor_allgather, all)
LZ_PAIR_C(MPI_Neighbor_alltoall_c, MPI_Neighbor_alltoall, all)
LZ_PAIR_C(MPI_Igather_c, MPI_Igather, irooted)
LZ_PAIR_C(MPI_Iscatter_c, MPI_Iscatter, irooted)
LZ_PAIR_C(MPI_Iallgather_c, MPI_Iallgather, iall)
LZ_PAIR_C(MPI_Ialltoall_c, MPI_Ialltoall, iall)
LZ_PAIR_C(MPI_Ineighbor_allgather_c, MPI_Ineighbor_allgather, iall)
LZ_PAIR_C(MPI_Ineighbor_alltoall_c, MPI_Ineighbor_alltoall, iall)
LZ_PAIR_C(MPI_Gather_init_c, MPI_Gather_init, rooted_init)
LZ_PAIR_C(MPI_Scatter_init_c, MPI_Scatter_init, rooted_init)
LZ_PAIR_C(MPI_Allgather_init_c, MPI_Allgather_init, all_init)
LZ_PAIR_C(MPI_Alltoall_init_c, MPI_Alltoall_init, all_init)
LZ_PAIR_C(MPI_Neighbor_allgather_init_c, MPI_Neighbor_allgather_init, all_init)
LZ_PAIR_C(MPI_Neighbor_alltoall_init_c, MPI_Neighbor_alltoall_init, all_init)

// Reductions: blocking ones go in pieces; a non-blocking or persistent one
// is one schedule, so its count must fit in an int.
int MPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Reduce_c";
  LZ_LARGE_ENTRY(kFn);
  return in_pieces(count, datatype, sendbuf, recvbuf,
                   [&](const void* s, void* r, int n) { return MPI_Reduce(s, r, n, datatype, op, root, comm); });
}

#define LZ_REDUCE_ALL_C(name, twin)                                                                                \
  int name(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) { \
    static constexpr const char* kFn = #name;                                                                      \
    LZ_LARGE_ENTRY(kFn);                                                                                           \
    return in_pieces(count, datatype, sendbuf, recvbuf,                                                            \
                     [&](const void* s, void* r, int n) { return twin(s, r, n, datatype, op, comm); });            \
  }
LZ_REDUCE_ALL_C(MPI_Allreduce_c, MPI_Allreduce)
LZ_REDUCE_ALL_C(MPI_Scan_c, MPI_Scan)
LZ_REDUCE_ALL_C(MPI_Exscan_c, MPI_Exscan)

int MPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op) {
  static constexpr const char* kFn = "MPI_Reduce_local_c";
  LZ_LARGE_ENTRY(kFn);
  return in_pieces(count, datatype, inbuf, inoutbuf,
                   [&](const void* s, void* r, int n) { return MPI_Reduce_local(s, r, n, datatype, op); });
}

int MPI_Ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                  MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Ireduce_c";
  LZ_LARGE_ENTRY(kFn);
  if (int e = whole(kFn, comm, count)) return e;
  return MPI_Ireduce(sendbuf, recvbuf, narrow(count), datatype, op, root, comm, request);
}

int MPI_Reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Reduce_init_c";
  LZ_LARGE_ENTRY(kFn);
  if (int e = whole(kFn, comm, count)) return e;
  return MPI_Reduce_init(sendbuf, recvbuf, narrow(count), datatype, op, root, comm, info, request);
}

#define LZ_IREDUCE_ALL_C(name, twin, ...)                                                         \
  int name(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, \
           MPI_Comm comm LZ_PAIR_PARAMS(__VA_ARGS__)) {                                           \
    static constexpr const char* kFn = #name;                                                     \
    LZ_LARGE_ENTRY(kFn);                                                                          \
    if (int e = whole(kFn, comm, count)) return e;                                                \
    return twin(sendbuf, recvbuf, narrow(count), datatype, op, comm LZ_PAIR_ARGS(__VA_ARGS__));   \
  }
#define LZ_PARAMS_req , MPI_Request* request
#define LZ_ARGS_req , request
#define LZ_PARAMS_init , MPI_Info info, MPI_Request *request
#define LZ_ARGS_init , info, request
LZ_IREDUCE_ALL_C(MPI_Iallreduce_c, MPI_Iallreduce, req)
LZ_IREDUCE_ALL_C(MPI_Iscan_c, MPI_Iscan, req)
LZ_IREDUCE_ALL_C(MPI_Iexscan_c, MPI_Iexscan, req)
LZ_IREDUCE_ALL_C(MPI_Allreduce_init_c, MPI_Allreduce_init, init)
LZ_IREDUCE_ALL_C(MPI_Scan_init_c, MPI_Scan_init, init)
LZ_IREDUCE_ALL_C(MPI_Exscan_init_c, MPI_Exscan_init, init)

#define LZ_RSB_C(name, twin, ...)                                                                     \
  int name(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, \
           MPI_Comm comm LZ_PAIR_PARAMS(__VA_ARGS__)) {                                               \
    static constexpr const char* kFn = #name;                                                         \
    LZ_LARGE_ENTRY(kFn);                                                                              \
    if (recvcount > INT_MAX) return beyond_int(kFn, comm, "recvcount", recvcount);                    \
    return twin(sendbuf, recvbuf, narrow(recvcount), datatype, op, comm LZ_PAIR_ARGS(__VA_ARGS__));   \
  }
#define LZ_PARAMS_none
#define LZ_ARGS_none
LZ_RSB_C(MPI_Reduce_scatter_block_c, MPI_Reduce_scatter_block, none)
LZ_RSB_C(MPI_Ireduce_scatter_block_c, MPI_Ireduce_scatter_block, req)
LZ_RSB_C(MPI_Reduce_scatter_block_init_c, MPI_Reduce_scatter_block_init, init)

// ---- the v and w collectives: counts and displacements as ints -------------------

int MPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Reduce_scatter_c";
  LZ_LARGE_ENTRY(kFn);
  Ints rc;
  if (int e = rc.set(kFn, comm, recvcounts, comm_ok(comm) ? comm->size() : 0, "recvcounts")) return e;
  return MPI_Reduce_scatter(sendbuf, recvbuf, rc.get(), datatype, op, comm);
}

int MPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Ireduce_scatter_c";
  LZ_LARGE_ENTRY(kFn);
  Ints rc;
  if (int e = rc.set(kFn, comm, recvcounts, comm_ok(comm) ? comm->size() : 0, "recvcounts")) return e;
  return MPI_Ireduce_scatter(sendbuf, recvbuf, rc.get(), datatype, op, comm, request);
}

int MPI_Reduce_scatter_init_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Reduce_scatter_init_c";
  LZ_LARGE_ENTRY(kFn);
  (void)info;
  Ints rc;
  if (int e = rc.set(kFn, comm, recvcounts, comm_ok(comm) ? comm->size() : 0, "recvcounts")) return e;
  auto keep = rc.share();
  const int* c = rc.get();
  return make(kFn, comm, request, {datatype}, {op}, [=](MPI_Request* r) {
    (void)keep;
    return MPI_Ireduce_scatter(sendbuf, recvbuf, c, datatype, op, comm, r);
  });
}

// Gatherv: the root's receive arrays; allgatherv: everyone's.
#define LZ_GATHERV_BODY(twin, root_args, n, ...)                        \
  LZ_COUNT(s, sendcount, sendtype, "sendcount");                        \
  Ints rc, dp;                                                          \
  if (int e = rc.set(kFn, comm, recvcounts, n, "recvcounts")) return e; \
  if (int e = dp.set(kFn, comm, displs, n, "displs")) return e;

int MPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Gatherv_c";
  LZ_LARGE_ENTRY(kFn);
  LZ_GATHERV_BODY(, , at_root(comm, root) ? peers(comm) : -1)
  return MPI_Gatherv(sendbuf, s.count(), s.type(), recvbuf, rc.get(), dp.get(), recvtype, root, comm);
}

int MPI_Igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Igatherv_c";
  LZ_LARGE_ENTRY(kFn);
  LZ_GATHERV_BODY(, , at_root(comm, root) ? peers(comm) : -1)
  return MPI_Igatherv(sendbuf, s.count(), s.type(), recvbuf, rc.get(), dp.get(), recvtype, root, comm, request);
}

int MPI_Gatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                       const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Gatherv_init_c";
  LZ_LARGE_ENTRY(kFn);
  (void)info;
  LZ_GATHERV_BODY(, , at_root(comm, root) ? peers(comm) : -1)
  auto k1 = rc.share(), k2 = dp.share();
  const int *c = rc.get(), *d = dp.get();
  const int sc = s.count();
  const MPI_Datatype st = s.type();
  return make(kFn, comm, request, {st, recvtype}, {}, [=](MPI_Request* r) {
    (void)k1, (void)k2;
    return MPI_Igatherv(sendbuf, sc, st, recvbuf, c, d, recvtype, root, comm, r);
  });
}

#define LZ_ALLGATHERV_C(name, twin, n)                                                                    \
  int name(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,                \
           const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm) { \
    static constexpr const char* kFn = #name;                                                             \
    LZ_LARGE_ENTRY(kFn);                                                                                  \
    LZ_GATHERV_BODY(, , n)                                                                                \
    return twin(sendbuf, s.count(), s.type(), recvbuf, rc.get(), dp.get(), recvtype, comm);               \
  }
#define LZ_IALLGATHERV_C(name, twin, n)                                                                 \
  int name(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,              \
           const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, \
           MPI_Request* request) {                                                                      \
    static constexpr const char* kFn = #name;                                                           \
    LZ_LARGE_ENTRY(kFn);                                                                                \
    LZ_GATHERV_BODY(, , n)                                                                              \
    return twin(sendbuf, s.count(), s.type(), recvbuf, rc.get(), dp.get(), recvtype, comm, request);    \
  }
#define LZ_ALLGATHERV_INIT_C(name, inb, n)                                                                             \
  int name(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,                             \
           const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, \
           MPI_Request* request) {                                                                                     \
    static constexpr const char* kFn = #name;                                                                          \
    LZ_LARGE_ENTRY(kFn);                                                                                               \
    (void)info;                                                                                                        \
    LZ_GATHERV_BODY(, , n)                                                                                             \
    auto k1 = rc.share(), k2 = dp.share();                                                                             \
    const int *c = rc.get(), *d = dp.get();                                                                            \
    const int sc = s.count();                                                                                          \
    const MPI_Datatype st = s.type();                                                                                  \
    return make(kFn, comm, request, {st, recvtype}, {}, [=](MPI_Request* r) {                                          \
      (void)k1, (void)k2;                                                                                              \
      return inb(sendbuf, sc, st, recvbuf, c, d, recvtype, comm, r);                                                   \
    });                                                                                                                \
  }
static int in_degree(MPI_Comm c) {
  int in, out;
  degrees(c, &in, &out);
  return in;
}
static int out_degree(MPI_Comm c) {
  int in, out;
  degrees(c, &in, &out);
  return out;
}
LZ_ALLGATHERV_C(MPI_Allgatherv_c, MPI_Allgatherv, peers(comm))
LZ_IALLGATHERV_C(MPI_Iallgatherv_c, MPI_Iallgatherv, peers(comm))
LZ_ALLGATHERV_INIT_C(MPI_Allgatherv_init_c, MPI_Iallgatherv, peers(comm))
LZ_ALLGATHERV_C(MPI_Neighbor_allgatherv_c, MPI_Neighbor_allgatherv, in_degree(comm))
LZ_IALLGATHERV_C(MPI_Ineighbor_allgatherv_c, MPI_Ineighbor_allgatherv, in_degree(comm))
LZ_ALLGATHERV_INIT_C(MPI_Neighbor_allgatherv_init_c, MPI_Ineighbor_allgatherv, in_degree(comm))

// Scatterv: the root's send arrays.
#define LZ_SCATTERV_BODY                                                \
  LZ_COUNT(r, recvcount, recvtype, "recvcount");                        \
  const int n = at_root(comm, root) ? peers(comm) : -1;                 \
  Ints sc, dp;                                                          \
  if (int e = sc.set(kFn, comm, sendcounts, n, "sendcounts")) return e; \
  if (int e = dp.set(kFn, comm, displs, n, "displs")) return e;

int MPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype,
                   void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  static constexpr const char* kFn = "MPI_Scatterv_c";
  LZ_LARGE_ENTRY(kFn);
  LZ_SCATTERV_BODY
  return MPI_Scatterv(sendbuf, sc.get(), dp.get(), sendtype, recvbuf, r.count(), r.type(), root, comm);
}

int MPI_Iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype,
                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Iscatterv_c";
  LZ_LARGE_ENTRY(kFn);
  LZ_SCATTERV_BODY
  return MPI_Iscatterv(sendbuf, sc.get(), dp.get(), sendtype, recvbuf, r.count(), r.type(), root, comm, request);
}

int MPI_Scatterv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                        MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Scatterv_init_c";
  LZ_LARGE_ENTRY(kFn);
  (void)info;
  LZ_SCATTERV_BODY
  auto k1 = sc.share(), k2 = dp.share();
  const int *c = sc.get(), *d = dp.get();
  const int rn = r.count();
  const MPI_Datatype rt = r.type();
  return make(kFn, comm, request, {sendtype, rt}, {}, [=](MPI_Request* q) {
    (void)k1, (void)k2;
    return MPI_Iscatterv(sendbuf, c, d, sendtype, recvbuf, rn, rt, root, comm, q);
  });
}

// Alltoallv and its neighbourhood form: counts and displacements (in extents).
#define LZ_ALLTOALLV_BODY(nsend, nrecv)                                       \
  Ints sc, sd, rc, rd;                                                        \
  const int ns = sendbuf == MPI_IN_PLACE ? -1 : (nsend);                      \
  if (int e = sc.set(kFn, comm, sendcounts, ns, "sendcounts")) return e;      \
  if (int e = sd.set(kFn, comm, sdispls, ns, "sdispls")) return e;            \
  if (int e = rc.set(kFn, comm, recvcounts, (nrecv), "recvcounts")) return e; \
  if (int e = rd.set(kFn, comm, rdispls, (nrecv), "rdispls")) return e;

#define LZ_ALLTOALLV_C(name, twin, nsend, nrecv)                                                               \
  int name(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, \
           void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,       \
           MPI_Comm comm) {                                                                                    \
    static constexpr const char* kFn = #name;                                                                  \
    LZ_LARGE_ENTRY(kFn);                                                                                       \
    LZ_ALLTOALLV_BODY(nsend, nrecv)                                                                            \
    return twin(sendbuf, sc.get(), sd.get(), sendtype, recvbuf, rc.get(), rd.get(), recvtype, comm);           \
  }
#define LZ_IALLTOALLV_C(name, twin, nsend, nrecv)                                                              \
  int name(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, \
           void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,       \
           MPI_Comm comm, MPI_Request* request) {                                                              \
    static constexpr const char* kFn = #name;                                                                  \
    LZ_LARGE_ENTRY(kFn);                                                                                       \
    LZ_ALLTOALLV_BODY(nsend, nrecv)                                                                            \
    return twin(sendbuf, sc.get(), sd.get(), sendtype, recvbuf, rc.get(), rd.get(), recvtype, comm, request);  \
  }
#define LZ_ALLTOALLV_INIT_C(name, inb, nsend, nrecv)                                                           \
  int name(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, \
           void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,       \
           MPI_Comm comm, MPI_Info info, MPI_Request* request) {                                               \
    static constexpr const char* kFn = #name;                                                                  \
    LZ_LARGE_ENTRY(kFn);                                                                                       \
    (void)info;                                                                                                \
    LZ_ALLTOALLV_BODY(nsend, nrecv)                                                                            \
    auto k1 = sc.share(), k2 = sd.share(), k3 = rc.share(), k4 = rd.share();                                   \
    const int *a = sc.get(), *b = sd.get(), *c = rc.get(), *d = rd.get();                                      \
    return make(kFn, comm, request, {sendtype, recvtype}, {}, [=](MPI_Request* r) {                            \
      (void)k1, (void)k2, (void)k3, (void)k4;                                                                  \
      return inb(sendbuf, a, b, sendtype, recvbuf, c, d, recvtype, comm, r);                                   \
    });                                                                                                        \
  }
LZ_ALLTOALLV_C(MPI_Alltoallv_c, MPI_Alltoallv, peers(comm), peers(comm))
LZ_IALLTOALLV_C(MPI_Ialltoallv_c, MPI_Ialltoallv, peers(comm), peers(comm))
LZ_ALLTOALLV_INIT_C(MPI_Alltoallv_init_c, MPI_Ialltoallv, peers(comm), peers(comm))
LZ_ALLTOALLV_C(MPI_Neighbor_alltoallv_c, MPI_Neighbor_alltoallv, out_degree(comm), in_degree(comm))
LZ_IALLTOALLV_C(MPI_Ineighbor_alltoallv_c, MPI_Ineighbor_alltoallv, out_degree(comm), in_degree(comm))
LZ_ALLTOALLV_INIT_C(MPI_Neighbor_alltoallv_init_c, MPI_Ineighbor_alltoallv, out_degree(comm), in_degree(comm))

// Alltoallw: displacements in bytes, ints in MPI_Alltoallw.
#define LZ_ALLTOALLW_C(name, twin, ...)                                                                           \
  int name(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],                           \
           const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], \
           const MPI_Datatype recvtypes[], MPI_Comm comm LZ_PAIR_PARAMS(__VA_ARGS__)) {                           \
    static constexpr const char* kFn = #name;                                                                     \
    LZ_LARGE_ENTRY(kFn);                                                                                          \
    LZ_ALLTOALLV_BODY(peers(comm), peers(comm))                                                                   \
    return twin(sendbuf, sc.get(), sd.get(), sendtypes, recvbuf, rc.get(), rd.get(), recvtypes,                   \
                comm LZ_PAIR_ARGS(__VA_ARGS__));                                                                  \
  }
LZ_ALLTOALLW_C(MPI_Alltoallw_c, MPI_Alltoallw, none)
LZ_ALLTOALLW_C(MPI_Ialltoallw_c, MPI_Ialltoallw, req)

int MPI_Alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                         const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                         const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                         MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Alltoallw_init_c";
  LZ_LARGE_ENTRY(kFn);
  (void)info;
  LZ_ALLTOALLV_BODY(peers(comm), peers(comm))
  auto k1 = sc.share(), k2 = sd.share(), k3 = rc.share(), k4 = rd.share();
  const int *a = sc.get(), *b = sd.get(), *c = rc.get(), *d = rd.get();
  return make(kFn, comm, request, {}, {}, [=](MPI_Request* r) {
    (void)k1, (void)k2, (void)k3, (void)k4;
    return MPI_Ialltoallw(sendbuf, a, b, sendtypes, recvbuf, c, d, recvtypes, comm, r);
  });
}

// Neighbor_alltoallw: its displacements are MPI_Aint already.
#define LZ_NALLTOALLW_BODY                                                 \
  int nin, nout;                                                           \
  degrees(comm, &nin, &nout);                                              \
  Ints sc, rc;                                                             \
  if (int e = sc.set(kFn, comm, sendcounts, nout, "sendcounts")) return e; \
  if (int e = rc.set(kFn, comm, recvcounts, nin, "recvcounts")) return e;

#define LZ_NALLTOALLW_C(name, twin, ...)                                                                          \
  int name(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],                           \
           const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], \
           const MPI_Datatype recvtypes[], MPI_Comm comm LZ_PAIR_PARAMS(__VA_ARGS__)) {                           \
    static constexpr const char* kFn = #name;                                                                     \
    LZ_LARGE_ENTRY(kFn);                                                                                          \
    LZ_NALLTOALLW_BODY                                                                                            \
    return twin(sendbuf, sc.get(), sdispls, sendtypes, recvbuf, rc.get(), rdispls, recvtypes,                     \
                comm LZ_PAIR_ARGS(__VA_ARGS__));                                                                  \
  }
LZ_NALLTOALLW_C(MPI_Neighbor_alltoallw_c, MPI_Neighbor_alltoallw, none)
LZ_NALLTOALLW_C(MPI_Ineighbor_alltoallw_c, MPI_Ineighbor_alltoallw, req)

int MPI_Neighbor_alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                  const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                  MPI_Info info, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Neighbor_alltoallw_init_c";
  LZ_LARGE_ENTRY(kFn);
  (void)info;
  LZ_NALLTOALLW_BODY
  auto k1 = sc.share(), k2 = rc.share();
  const int *a = sc.get(), *c = rc.get();
  return make(kFn, comm, request, {}, {}, [=](MPI_Request* r) {
    (void)k1, (void)k2;
    return MPI_Ineighbor_alltoallw(sendbuf, a, sdispls, sendtypes, recvbuf, c, rdispls, recvtypes, comm, r);
  });
}

}  // extern "C"
