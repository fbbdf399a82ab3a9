// Shared helpers of the point-to-point binding (mpi_p2p.cpp, mpi_request.cpp):
// argument checks that name the call, and request construction.
#pragma once

#include <string>

#include "lazarus/datatype/datatype.h"
#include "mpi.h"
#include "mpi/errors.h"
#include "p2p/comm.h"
#include "p2p/engine.h"
#include "p2p/request.h"
#include "p2p/runtime.h"

namespace lz::rt::binding {

inline Engine& engine() { return runtime().engine(); }

inline bool comm_ok(MPI_Comm c) { return c != nullptr && c->valid(); }

// The argument checks return MPI_SUCCESS or the error handler's answer. The
// test is inline; what a failed one says is built out of line
// (p2p_binding.cpp): with the message-building inlined, each check was a
// call with its register saves on every send and receive.
[[gnu::cold]] int report_common(const char* fn, MPI_Comm comm, int count, MPI_Datatype dt);
[[gnu::cold]] int report_dest(const char* fn, MPI_Comm comm, int dest, int tag);
[[gnu::cold]] int report_source(const char* fn, MPI_Comm comm, int source, int tag);

inline int check_common(const char* fn, MPI_Comm comm, int count, MPI_Datatype dt) {
  if (__builtin_expect(comm_ok(comm) && count >= 0 && dt != nullptr && dt->is_committed(), 1)) return MPI_SUCCESS;
  return report_common(fn, comm, count, dt);
}

inline int check_dest(const char* fn, MPI_Comm comm, int dest, int tag) {
  if (__builtin_expect(
          (dest == MPI_PROC_NULL || (dest >= 0 && dest < comm->peer_size())) && tag >= 0 && tag <= MPI_TAG_UB_VALUE, 1))
    return MPI_SUCCESS;
  return report_dest(fn, comm, dest, tag);
}

inline int check_source(const char* fn, MPI_Comm comm, int source, int tag) {
  if (__builtin_expect(
          (source == MPI_PROC_NULL || source == MPI_ANY_SOURCE || (source >= 0 && source < comm->peer_size())) &&
              (tag == MPI_ANY_TAG || (tag >= 0 && tag <= MPI_TAG_UB_VALUE)),
          1))
    return MPI_SUCCESS;
  return report_source(fn, comm, source, tag);
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
[[gnu::cold]] std::string request_error_text(const Request* r);

// The status of a null or inactive request.
inline void empty_status(MPI_Status* st) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = MPI_ANY_SOURCE;
  st->MPI_TAG = MPI_ANY_TAG;
  st->MPI_ERROR = MPI_SUCCESS;
  st->lz_cancelled = 0;
  st->lz_bytes = 0;
}

// The status of an operation on MPI_PROC_NULL (its MPI_ERROR untouched, as
// for any call of one status).
inline void proc_null_status(MPI_Status* st) {
  if (st == MPI_STATUS_IGNORE) return;
  int error = st->MPI_ERROR;
  empty_status(st);
  st->MPI_SOURCE = MPI_PROC_NULL;
  st->MPI_ERROR = error;
}

// Reports a completed request: fills `st`, frees a non-persistent request
// (sets *rp to MPI_REQUEST_NULL) or deactivates a persistent one. Returns the
// request's error class (MPI_SUCCESS normally) and the communicator in *comm.
// A generalized request's retire: its query and free callbacks (mpi_grequest.cpp).
int retire_generalized(MPI_Request* rp, MPI_Status* st, MPI_Comm* comm, std::string* error_text);

inline int retire(MPI_Request* rp, MPI_Status* st, MPI_Comm* comm, std::string* error_text) {
  Request* r = *rp;
  if (__builtin_expect(r->kind == Request::Kind::kGeneralized, 0)) return retire_generalized(rp, st, comm, error_text);
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
