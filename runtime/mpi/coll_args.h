// The argument checks of the collectives: what MPI says is the caller's to
// get right, reported through the communicator's error handler naming the
// call and the bad value. Shared by the blocking calls (mpi_coll.cpp) and
// the non-blocking ones (mpi_nbc.cpp), which check exactly the same.
#pragma once

#include <string>

#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"
#include "mpi.h"
#include "mpi/errors.h"
#include "p2p/comm.h"

// Returns from the enclosing check with the first error.
#define LZ_COLL_CHECK(expr)               \
  do {                                    \
    if (int lz_e_ = (expr)) return lz_e_; \
  } while (0)

namespace lz::rt::coll_args {

using lz::rt::mpi_error;

inline bool comm_ok(MPI_Comm c) { return c != nullptr && c->valid(); }
inline bool in_place(const void* p) { return p == MPI_IN_PLACE; }

// Whether this process is the root of a rooted collective: MPI_ROOT on an
// intercommunicator.
inline bool is_root(MPI_Comm comm, int root) { return comm->is_inter() ? root == MPI_ROOT : comm->rank() == root; }

// A datatype argument that may not be significant here (and then may be
// MPI_DATATYPE_NULL): the rooted calls on an intercommunicator.
inline const lz::dt::Datatype& type_or_byte(MPI_Datatype t) {
  return t != MPI_DATATYPE_NULL ? *t : lz::dt::byte_type();
}

// Each check returns MPI_SUCCESS or the error handler's answer.
inline int check_comm(const char* fn, MPI_Comm comm) {
  if (!comm_ok(comm)) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM, "invalid communicator");
  return MPI_SUCCESS;
}

// MPI_Scan, MPI_Exscan and their non-blocking forms: intracommunicators only.
inline int check_intra(const char* fn, MPI_Comm comm) {
  if (comm_ok(comm) && comm->is_inter()) return mpi_error(comm, fn, MPI_ERR_COMM, "not valid on an intercommunicator");
  return MPI_SUCCESS;
}

inline int check_count(const char* fn, MPI_Comm comm, int count, const char* what = "count") {
  if (count < 0) return mpi_error(comm, fn, MPI_ERR_COUNT, std::string("invalid ") + what + " " + std::to_string(count));
  return MPI_SUCCESS;
}

inline int check_type(const char* fn, MPI_Comm comm, MPI_Datatype dt, const char* what = "datatype") {
  if (dt == MPI_DATATYPE_NULL) return mpi_error(comm, fn, MPI_ERR_TYPE, std::string("invalid ") + what + " (MPI_DATATYPE_NULL)");
  if (!dt->is_committed())
    return mpi_error(comm, fn, MPI_ERR_TYPE, std::string(what) + " " + dt->name() + " is not committed");
  return MPI_SUCCESS;
}

inline int check_op(const char* fn, MPI_Comm comm, MPI_Op op, MPI_Datatype dt) {
  if (op == MPI_OP_NULL) return mpi_error(comm, fn, MPI_ERR_OP, "invalid op (MPI_OP_NULL)");
  lz::Status s = op->check(*dt);
  if (!s.ok()) return mpi_error(comm, fn, MPI_ERR_OP, s.message());
  return MPI_SUCCESS;
}

// An intercommunicator's root argument is MPI_ROOT (the root),
// MPI_PROC_NULL (the rest of its group) or a rank of the remote group.
inline int check_root(const char* fn, MPI_Comm comm, int root) {
  if (comm->is_inter()) {
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < comm->remote_size())) return MPI_SUCCESS;
    return mpi_error(comm, fn, MPI_ERR_ROOT,
                     "invalid root " + std::to_string(root) +
                         " (MPI_ROOT, MPI_PROC_NULL or a rank of the remote group, of size " +
                         std::to_string(comm->remote_size()) + ")");
  }
  if (root < 0 || root >= comm->size())
    return mpi_error(comm, fn, MPI_ERR_ROOT,
                     "invalid root " + std::to_string(root) + " (communicator size " + std::to_string(comm->size()) +
                         ")");
  return MPI_SUCCESS;
}

inline int check_buffers(const char* fn, MPI_Comm comm, const void* sbuf, const void* rbuf, bool send_in_place_ok,
                  bool count_nonzero) {
  if (comm->is_inter() && (in_place(sbuf) || in_place(rbuf)))
    return mpi_error(comm, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not valid on an intercommunicator");
  if (in_place(rbuf)) return mpi_error(comm, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not a valid receive buffer here");
  if (in_place(sbuf) && !send_in_place_ok)
    return mpi_error(comm, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed as the send buffer here");
  if (count_nonzero && sbuf == rbuf && sbuf != nullptr)
    return mpi_error(comm, fn, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
  return MPI_SUCCESS;
}

// `n` counts (-1: one per rank of comm); NULL is accepted for none.
// (On an intercommunicator: one per rank of the remote group.)
inline int check_counts(const char* fn, MPI_Comm comm, const int* counts, const char* what, int n = -1) {
  if (n < 0) n = comm->peer_size();
  if (counts == nullptr && n > 0) return mpi_error(comm, fn, MPI_ERR_ARG, std::string(what) + " is NULL");
  for (int r = 0; r < n; ++r) {
    if (counts[r] < 0)
      return mpi_error(comm, fn, MPI_ERR_COUNT,
                       std::string("invalid ") + what + "[" + std::to_string(r) + "] = " + std::to_string(counts[r]));
  }
  return MPI_SUCCESS;
}

// The part every rank supplies to a rooted collective (the send side of a
// gather, the receive side of a scatter): checked unless it is MPI_IN_PLACE,
// which stands for it only at the root.
inline int check_own_part(const char* fn, MPI_Comm comm, const void* buf, int count, MPI_Datatype dt, bool is_root,
                   const char* count_what, const char* type_what) {
  if (in_place(buf))
    return is_root && !comm->is_inter() ? MPI_SUCCESS
                                        : mpi_error(comm, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root");
  if (int e = check_count(fn, comm, count, count_what)) return e;
  return check_type(fn, comm, dt, type_what);
}


// ---- the arguments of each collective, shared by the blocking call and its
// non-blocking twin (mpi_nbc.cpp) --------------------------------------------------

inline int check_bcast(const char* fn, void* buffer, int count, MPI_Datatype dt, int root, MPI_Comm comm) {
  LZ_COLL_CHECK(check_comm(fn, comm));
  LZ_COLL_CHECK(check_count(fn, comm, count));
  LZ_COLL_CHECK(check_type(fn, comm, dt));
  LZ_COLL_CHECK(check_root(fn, comm, root));
  if (in_place(buffer))
    return mpi_error(comm, fn, MPI_ERR_BUFFER, std::string("MPI_IN_PLACE is not a valid buffer for ") + fn);
  return MPI_SUCCESS;
}

inline int check_reduce(const char* fn, const void* sbuf, void* rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                        MPI_Comm comm) {
  LZ_COLL_CHECK(check_comm(fn, comm));
  LZ_COLL_CHECK(check_count(fn, comm, count));
  LZ_COLL_CHECK(check_type(fn, comm, dt));
  LZ_COLL_CHECK(check_op(fn, comm, op, dt));
  LZ_COLL_CHECK(check_root(fn, comm, root));
  if (comm->is_inter() && root == MPI_PROC_NULL) return MPI_SUCCESS;
  if (is_root(comm, root)) return check_buffers(fn, comm, sbuf, rbuf, true, count > 0);
  if (in_place(sbuf)) return mpi_error(comm, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root");
  return MPI_SUCCESS;
}

// Also MPI_Scan and MPI_Exscan's arguments.
inline int check_allreduce(const char* fn, const void* sbuf, void* rbuf, int count, MPI_Datatype dt, MPI_Op op,
                           MPI_Comm comm) {
  LZ_COLL_CHECK(check_comm(fn, comm));
  LZ_COLL_CHECK(check_count(fn, comm, count));
  LZ_COLL_CHECK(check_type(fn, comm, dt));
  LZ_COLL_CHECK(check_op(fn, comm, op, dt));
  return check_buffers(fn, comm, sbuf, rbuf, true, count > 0);
}

inline int check_gather(const char* fn, const void* sbuf, int scount, MPI_Datatype sdt, void* rbuf, int rcount,
                        MPI_Datatype rdt, int root, MPI_Comm comm) {
  LZ_COLL_CHECK(check_comm(fn, comm));
  LZ_COLL_CHECK(check_root(fn, comm, root));
  if (comm->is_inter() && root == MPI_PROC_NULL) return MPI_SUCCESS;
  const bool is_root = coll_args::is_root(comm, root);
  if (!is_root || !comm->is_inter())  // an intercommunicator's root sends nothing
    LZ_COLL_CHECK(check_own_part(fn, comm, sbuf, scount, sdt, is_root, "send count", "send datatype"));
  if (!is_root) return MPI_SUCCESS;
  LZ_COLL_CHECK(check_count(fn, comm, rcount, "receive count"));
  LZ_COLL_CHECK(check_type(fn, comm, rdt, "receive datatype"));
  return check_buffers(fn, comm, sbuf, rbuf, true, false);
}

inline int check_scatter(const char* fn, const void* sbuf, int scount, MPI_Datatype sdt, void* rbuf, int rcount,
                         MPI_Datatype rdt, int root, MPI_Comm comm) {
  LZ_COLL_CHECK(check_comm(fn, comm));
  LZ_COLL_CHECK(check_root(fn, comm, root));
  if (comm->is_inter() && root == MPI_PROC_NULL) return MPI_SUCCESS;
  const bool is_root = coll_args::is_root(comm, root);
  if (!is_root || !comm->is_inter())  // an intercommunicator's root receives nothing
    LZ_COLL_CHECK(check_own_part(fn, comm, rbuf, rcount, rdt, is_root, "receive count", "receive datatype"));
  if (!is_root) return MPI_SUCCESS;
  LZ_COLL_CHECK(check_count(fn, comm, scount, "send count"));
  LZ_COLL_CHECK(check_type(fn, comm, sdt, "send datatype"));
  if (in_place(sbuf)) return mpi_error(comm, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not a valid send buffer");
  return MPI_SUCCESS;
}

// Allgather and alltoall: `alias_check` says whether equal send and receive
// buffers are an error (alltoall: when data moves).
inline int check_all_to_all(const char* fn, const void* sbuf, int scount, MPI_Datatype sdt, void* rbuf, int rcount,
                            MPI_Datatype rdt, MPI_Comm comm, bool alias_check) {
  LZ_COLL_CHECK(check_comm(fn, comm));
  if (!in_place(sbuf)) {
    LZ_COLL_CHECK(check_count(fn, comm, scount, "send count"));
    LZ_COLL_CHECK(check_type(fn, comm, sdt, "send datatype"));
  }
  LZ_COLL_CHECK(check_count(fn, comm, rcount, "receive count"));
  LZ_COLL_CHECK(check_type(fn, comm, rdt, "receive datatype"));
  return check_buffers(fn, comm, sbuf, rbuf, true, alias_check);
}

inline int check_gatherv(const char* fn, const void* sbuf, int scount, MPI_Datatype sdt, void* rbuf, const int* rcounts,
                         const int* displs, MPI_Datatype rdt, int root, MPI_Comm comm) {
  LZ_COLL_CHECK(check_comm(fn, comm));
  LZ_COLL_CHECK(check_root(fn, comm, root));
  if (comm->is_inter() && root == MPI_PROC_NULL) return MPI_SUCCESS;
  const bool is_root = coll_args::is_root(comm, root);
  if (!is_root || !comm->is_inter())  // an intercommunicator's root sends nothing
    LZ_COLL_CHECK(check_own_part(fn, comm, sbuf, scount, sdt, is_root, "send count", "send datatype"));
  if (!is_root) return MPI_SUCCESS;
  LZ_COLL_CHECK(check_counts(fn, comm, rcounts, "recvcounts"));
  if (displs == nullptr) return mpi_error(comm, fn, MPI_ERR_ARG, "displs is NULL");
  LZ_COLL_CHECK(check_type(fn, comm, rdt, "receive datatype"));
  return check_buffers(fn, comm, sbuf, rbuf, true, false);
}

inline int check_scatterv(const char* fn, const void* sbuf, const int* scounts, const int* displs, MPI_Datatype sdt,
                          void* rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm) {
  LZ_COLL_CHECK(check_comm(fn, comm));
  LZ_COLL_CHECK(check_root(fn, comm, root));
  if (comm->is_inter() && root == MPI_PROC_NULL) return MPI_SUCCESS;
  const bool is_root = coll_args::is_root(comm, root);
  if (!is_root || !comm->is_inter())  // an intercommunicator's root receives nothing
    LZ_COLL_CHECK(check_own_part(fn, comm, rbuf, rcount, rdt, is_root, "receive count", "receive datatype"));
  if (!is_root) return MPI_SUCCESS;
  LZ_COLL_CHECK(check_counts(fn, comm, scounts, "sendcounts"));
  if (displs == nullptr) return mpi_error(comm, fn, MPI_ERR_ARG, "displs is NULL");
  LZ_COLL_CHECK(check_type(fn, comm, sdt, "send datatype"));
  if (in_place(sbuf)) return mpi_error(comm, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not a valid send buffer");
  return MPI_SUCCESS;
}

inline int check_allgatherv(const char* fn, const void* sbuf, int scount, MPI_Datatype sdt, void* rbuf,
                            const int* rcounts, const int* displs, MPI_Datatype rdt, MPI_Comm comm) {
  LZ_COLL_CHECK(check_comm(fn, comm));
  if (!in_place(sbuf)) {
    LZ_COLL_CHECK(check_count(fn, comm, scount, "send count"));
    LZ_COLL_CHECK(check_type(fn, comm, sdt, "send datatype"));
  }
  LZ_COLL_CHECK(check_counts(fn, comm, rcounts, "recvcounts"));
  if (displs == nullptr) return mpi_error(comm, fn, MPI_ERR_ARG, "displs is NULL");
  LZ_COLL_CHECK(check_type(fn, comm, rdt, "receive datatype"));
  return check_buffers(fn, comm, sbuf, rbuf, true, false);
}

inline int check_alltoallv(const char* fn, const void* sbuf, const int* scounts, const int* sdispls, MPI_Datatype sdt,
                           void* rbuf, const int* rcounts, const int* rdispls, MPI_Datatype rdt, MPI_Comm comm) {
  LZ_COLL_CHECK(check_comm(fn, comm));
  if (!in_place(sbuf)) {
    LZ_COLL_CHECK(check_counts(fn, comm, scounts, "sendcounts"));
    if (sdispls == nullptr) return mpi_error(comm, fn, MPI_ERR_ARG, "sdispls is NULL");
    LZ_COLL_CHECK(check_type(fn, comm, sdt, "send datatype"));
  }
  LZ_COLL_CHECK(check_counts(fn, comm, rcounts, "recvcounts"));
  if (rdispls == nullptr) return mpi_error(comm, fn, MPI_ERR_ARG, "rdispls is NULL");
  LZ_COLL_CHECK(check_type(fn, comm, rdt, "receive datatype"));
  return check_buffers(fn, comm, sbuf, rbuf, true, false);
}

// `n` types (-1: one per rank of comm); NULL is accepted for none.
inline int check_types(const char* fn, MPI_Comm comm, const MPI_Datatype* types, const char* what, int n = -1) {
  if (n < 0) n = comm->peer_size();
  if (types == nullptr && n > 0) return mpi_error(comm, fn, MPI_ERR_ARG, std::string(what) + " is NULL");
  for (int r = 0; r < n; ++r)
    LZ_COLL_CHECK(check_type(fn, comm, types[r], what));
  return MPI_SUCCESS;
}

inline int check_alltoallw(const char* fn, const void* sbuf, const int* scounts, const int* sdispls,
                           const MPI_Datatype* sdts, void* rbuf, const int* rcounts, const int* rdispls,
                           const MPI_Datatype* rdts, MPI_Comm comm) {
  LZ_COLL_CHECK(check_comm(fn, comm));
  if (!in_place(sbuf)) {
    LZ_COLL_CHECK(check_counts(fn, comm, scounts, "sendcounts"));
    if (sdispls == nullptr) return mpi_error(comm, fn, MPI_ERR_ARG, "sdispls is NULL");
    LZ_COLL_CHECK(check_types(fn, comm, sdts, "sendtypes"));
  }
  LZ_COLL_CHECK(check_counts(fn, comm, rcounts, "recvcounts"));
  if (rdispls == nullptr) return mpi_error(comm, fn, MPI_ERR_ARG, "rdispls is NULL");
  LZ_COLL_CHECK(check_types(fn, comm, rdts, "recvtypes"));
  return check_buffers(fn, comm, sbuf, rbuf, true, false);
}

// MPI_Reduce_scatter (rcounts) and MPI_Reduce_scatter_block (rcounts null: rcount).
inline int check_reduce_scatter(const char* fn, const void* sbuf, void* rbuf, const int* rcounts, int rcount,
                                MPI_Datatype dt, MPI_Op op, MPI_Comm comm, bool block) {
  LZ_COLL_CHECK(check_comm(fn, comm));
  if (block) LZ_COLL_CHECK(check_count(fn, comm, rcount, "receive count"));
  else LZ_COLL_CHECK(check_counts(fn, comm, rcounts, "recvcounts", comm->size()));  // per local rank
  LZ_COLL_CHECK(check_type(fn, comm, dt));
  LZ_COLL_CHECK(check_op(fn, comm, op, dt));
  return check_buffers(fn, comm, sbuf, rbuf, true, false);
}

// ---- the neighbourhood collectives (mpi_neighbor.cpp): a count, datatype
// and displacement per neighbour, `indegree` receive blocks and `outdegree`
// send blocks (the communicator and its topology are checked first);
// MPI_IN_PLACE means nothing here. Arrays may be NULL when they have no
// entry. ---------------------------------------------------------------------------

inline int check_displs(const char* fn, MPI_Comm comm, const void* displs, int n, const char* what) {
  if (displs == nullptr && n > 0) return mpi_error(comm, fn, MPI_ERR_ARG, std::string(what) + " is NULL");
  return MPI_SUCCESS;
}

inline int check_neighbor_buffers(const char* fn, MPI_Comm comm, const void* sbuf, const void* rbuf) {
  if (in_place(sbuf) || in_place(rbuf))
    return mpi_error(comm, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not valid in a neighbourhood collective");
  return MPI_SUCCESS;
}

// MPI_Neighbor_allgather and MPI_Neighbor_alltoall: one count and type a side.
inline int check_neighbor_uniform(const char* fn, const void* sbuf, int scount, MPI_Datatype sdt, void* rbuf,
                                  int rcount, MPI_Datatype rdt, MPI_Comm comm) {
  LZ_COLL_CHECK(check_neighbor_buffers(fn, comm, sbuf, rbuf));
  LZ_COLL_CHECK(check_count(fn, comm, scount, "send count"));
  LZ_COLL_CHECK(check_type(fn, comm, sdt, "send datatype"));
  LZ_COLL_CHECK(check_count(fn, comm, rcount, "receive count"));
  return check_type(fn, comm, rdt, "receive datatype");
}

inline int check_neighbor_allgatherv(const char* fn, const void* sbuf, int scount, MPI_Datatype sdt, void* rbuf,
                                     const int* rcounts, const int* displs, MPI_Datatype rdt, MPI_Comm comm,
                                     int indegree) {
  LZ_COLL_CHECK(check_neighbor_buffers(fn, comm, sbuf, rbuf));
  LZ_COLL_CHECK(check_count(fn, comm, scount, "send count"));
  LZ_COLL_CHECK(check_type(fn, comm, sdt, "send datatype"));
  LZ_COLL_CHECK(check_counts(fn, comm, rcounts, "recvcounts", indegree));
  LZ_COLL_CHECK(check_displs(fn, comm, displs, indegree, "displs"));
  return check_type(fn, comm, rdt, "receive datatype");
}

inline int check_neighbor_alltoallv(const char* fn, const void* sbuf, const int* scounts, const int* sdispls,
                                    MPI_Datatype sdt, void* rbuf, const int* rcounts, const int* rdispls,
                                    MPI_Datatype rdt, MPI_Comm comm, int indegree, int outdegree) {
  LZ_COLL_CHECK(check_neighbor_buffers(fn, comm, sbuf, rbuf));
  LZ_COLL_CHECK(check_counts(fn, comm, scounts, "sendcounts", outdegree));
  LZ_COLL_CHECK(check_displs(fn, comm, sdispls, outdegree, "sdispls"));
  LZ_COLL_CHECK(check_type(fn, comm, sdt, "send datatype"));
  LZ_COLL_CHECK(check_counts(fn, comm, rcounts, "recvcounts", indegree));
  LZ_COLL_CHECK(check_displs(fn, comm, rdispls, indegree, "rdispls"));
  return check_type(fn, comm, rdt, "receive datatype");
}

inline int check_neighbor_alltoallw(const char* fn, const void* sbuf, const int* scounts, const MPI_Aint* sdispls,
                                    const MPI_Datatype* sdts, void* rbuf, const int* rcounts, const MPI_Aint* rdispls,
                                    const MPI_Datatype* rdts, MPI_Comm comm, int indegree, int outdegree) {
  LZ_COLL_CHECK(check_neighbor_buffers(fn, comm, sbuf, rbuf));
  LZ_COLL_CHECK(check_counts(fn, comm, scounts, "sendcounts", outdegree));
  LZ_COLL_CHECK(check_displs(fn, comm, sdispls, outdegree, "sdispls"));
  LZ_COLL_CHECK(check_types(fn, comm, sdts, "sendtypes", outdegree));
  LZ_COLL_CHECK(check_counts(fn, comm, rcounts, "recvcounts", indegree));
  LZ_COLL_CHECK(check_displs(fn, comm, rdispls, indegree, "rdispls"));
  return check_types(fn, comm, rdts, "recvtypes", indegree);
}

}  // namespace lz::rt::coll_args
