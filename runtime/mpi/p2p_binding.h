// Shared helpers of the point-to-point binding (mpi_p2p.cpp, mpi_request.cpp):
// argument checks that name the call, and request construction.
#pragma once

#include <string>

#include "mpi.h"
#include "lazarus/datatype/datatype.h"
#include "mpi/errors.h"
#include "p2p/comm.h"
#include "p2p/engine.h"
#include "p2p/request.h"
#include "p2p/runtime.h"

namespace lz::rt::binding {

inline Engine& engine() { return runtime().engine(); }

inline bool comm_ok(MPI_Comm c) { return c != nullptr && c->valid(); }

// Returns MPI_SUCCESS or the error handler's answer.
inline int check_common(const char* fn, MPI_Comm comm, int count, MPI_Datatype dt) {
  if (__builtin_expect(!comm_ok(comm), 0)) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM, "invalid communicator");
  if (__builtin_expect(count < 0, 0))
    return mpi_error(comm, fn, MPI_ERR_COUNT, "invalid count " + std::to_string(count));
  if (__builtin_expect(dt == nullptr, 0)) return mpi_error(comm, fn, MPI_ERR_TYPE, "invalid datatype (MPI_DATATYPE_NULL)");
  if (__builtin_expect(!dt->is_committed(), 0))
    return mpi_error(comm, fn, MPI_ERR_TYPE, "datatype " + dt->name() + " is not committed");
  return MPI_SUCCESS;
}

inline int check_dest(const char* fn, MPI_Comm comm, int dest, int tag) {
  if (__builtin_expect(dest != MPI_PROC_NULL && (dest < 0 || dest >= comm->peer_size()), 0))
    return mpi_error(comm, fn, MPI_ERR_RANK,
                     "invalid destination rank " + std::to_string(dest) +
                         (comm->is_inter() ? " (remote group size " : " (communicator size ") +
                         std::to_string(comm->peer_size()) + ")");
  if (__builtin_expect(tag < 0 || tag > MPI_TAG_UB_VALUE, 0))
    return mpi_error(comm, fn, MPI_ERR_TAG, "invalid tag " + std::to_string(tag));
  return MPI_SUCCESS;
}

inline int check_source(const char* fn, MPI_Comm comm, int source, int tag) {
  if (__builtin_expect(
          source != MPI_PROC_NULL && source != MPI_ANY_SOURCE && (source < 0 || source >= comm->peer_size()), 0))
    return mpi_error(comm, fn, MPI_ERR_RANK,
                     "invalid source rank " + std::to_string(source) +
                         (comm->is_inter() ? " (remote group size " : " (communicator size ") +
                         std::to_string(comm->peer_size()) + ")");
  if (__builtin_expect(tag != MPI_ANY_TAG && (tag < 0 || tag > MPI_TAG_UB_VALUE), 0))
    return mpi_error(comm, fn, MPI_ERR_TAG, "invalid tag " + std::to_string(tag));
  return MPI_SUCCESS;
}

inline Request* make_request(Request::Kind kind, Request::Mode mode, const void* buf, int count, MPI_Datatype dt,
                             int peer, int tag, MPI_Comm comm) {
  Request* r = request_pool().get();
  r->kind = kind;
  r->mode = mode;
  r->buf = const_cast<void*>(buf);
  r->count = count;
  r->dt = dt;
  dt->retain();
  r->comm = comm;
  r->peer = peer;
  r->tag = tag;
  r->context = comm->p2p_context();
  return r;
}

// The message of a failed request, for the error handler.
inline std::string request_error_text(const Request* r) {
  switch (r->st_error) {
    case MPI_ERR_TRUNCATE:
      return "message truncated: the message from rank " + std::to_string(r->st_source) + " (tag " +
             std::to_string(r->st_tag) + ") is longer than the receive buffer of " + std::to_string(r->bytes) +
             " bytes";
    case MPI_ERR_PROC_FAILED:
      return "peer process (world rank " + std::to_string(r->world_peer) + ") failed";
    case MPI_ERR_BUFFER:
      return "the attached buffer (MPI_Buffer_attach) has no room for this message";
    default:
      return "communication failed (error class " + std::to_string(r->st_error) + ")";
  }
}

// The status of a null or inactive request.
inline void empty_status(MPI_Status* st) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = MPI_ANY_SOURCE;
  st->MPI_TAG = MPI_ANY_TAG;
  st->MPI_ERROR = MPI_SUCCESS;
  st->lz_cancelled = 0;
  st->lz_bytes = 0;
}

// The status of an operation on MPI_PROC_NULL.
inline void proc_null_status(MPI_Status* st) {
  empty_status(st);
  if (st != MPI_STATUS_IGNORE) st->MPI_SOURCE = MPI_PROC_NULL;
}

// Reports a completed request: fills `st`, frees a non-persistent request
// (sets *rp to MPI_REQUEST_NULL) or deactivates a persistent one. Returns the
// request's error class (MPI_SUCCESS normally) and the communicator in *comm.
inline int retire(MPI_Request* rp, MPI_Status* st, MPI_Comm* comm, std::string* error_text) {
  Request* r = *rp;
  r->fill_status(st);
  int err = r->st_error;
  if (err != MPI_SUCCESS && error_text) *error_text = request_error_text(r);
  if (comm) *comm = r->comm;
  if (r->persistent) {
    r->active = false;
  } else {
    request_pool().put(r);
    *rp = MPI_REQUEST_NULL;
  }
  return err;
}

}  // namespace lz::rt::binding
