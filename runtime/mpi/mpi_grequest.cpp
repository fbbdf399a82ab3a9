// MPI binding: generalized requests (grequest.h). Such a request is never in
// the engine's queues: the Wait/Test family sees it complete when the
// program has called MPI_Grequest_complete (from any thread, or before the
// wait), and retires it through retire_generalized().
#include <string>

#include "io/io_queue.h"
#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/grequest.h"
#include "mpi/p2p_binding.h"

using lz::rt::GeneralizedRequest;
using lz::rt::mpi_error;
using lz::rt::Request;
using lz::rt::request_pool;
using namespace lz::rt::binding;

namespace {

// Runs the free function and recycles the request; its return code.
int release(Request* r) {
  GeneralizedRequest* g = r->generalized;
  const int rc = g->free != nullptr ? g->free(g->extra_state) : MPI_SUCCESS;
  delete g;
  r->generalized = nullptr;
  request_pool().put(r);
  return rc;
}

std::string returned(const char* which, int rc) {
  return std::string("the ") + which + " function of a generalized request returned " + std::to_string(rc);
}

}  // namespace

namespace lz::rt::binding {

int retire_generalized(MPI_Request* rp, MPI_Status* st, MPI_Comm* comm, std::string* error_text) {
  Request* r = *rp;
  MPI_Status local;
  MPI_Status* out = st != MPI_STATUS_IGNORE ? st : &local;
  empty_status(out);
  const int queried =
      r->generalized->query != nullptr ? r->generalized->query(r->generalized->extra_state, out) : MPI_SUCCESS;
  const int freed = release(r);
  *rp = MPI_REQUEST_NULL;
  if (comm) *comm = MPI_COMM_WORLD;
  const int err = queried != MPI_SUCCESS ? queried : freed;
  if (err != MPI_SUCCESS && error_text) *error_text = returned(queried != MPI_SUCCESS ? "query" : "free", err);
  return err;
}

int cancel_generalized(const char* fn, Request* r) {
  GeneralizedRequest* g = r->generalized;
  const int rc = g->cancel != nullptr ? g->cancel(g->extra_state, r->complete ? 1 : 0) : MPI_SUCCESS;
  return rc == MPI_SUCCESS ? rc : mpi_error(MPI_COMM_WORLD, fn, rc, returned("cancel", rc));
}

int free_generalized(const char* fn, Request* r) {
  if (!r->complete && r->generalized->completes_on_io_thread) lz::io::IoQueue::instance().drain();
  if (!__atomic_load_n(&r->complete, __ATOMIC_ACQUIRE)) {
    r->user_freed = true;  // freed by MPI_Grequest_complete
    return MPI_SUCCESS;
  }
  const int rc = release(r);
  return rc == MPI_SUCCESS ? rc : mpi_error(MPI_COMM_WORLD, fn, rc, returned("free", rc));
}

int status_of_generalized(const char* fn, Request* r, MPI_Status* st) {
  MPI_Status local;
  MPI_Status* out = st != MPI_STATUS_IGNORE ? st : &local;
  empty_status(out);
  GeneralizedRequest* g = r->generalized;
  const int rc = g->query != nullptr ? g->query(g->extra_state, out) : MPI_SUCCESS;
  return rc == MPI_SUCCESS ? rc : mpi_error(MPI_COMM_WORLD, fn, rc, returned("query", rc));
}

}  // namespace lz::rt::binding

extern "C" {

int MPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                       MPI_Grequest_cancel_function* cancel_fn, void* extra_state, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Grequest_start";
  LZ_MPI_ENTRY(kFn);
  if (request == nullptr) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "request is NULL");
  Request* r = request_pool().get();
  r->kind = Request::Kind::kGeneralized;
  r->comm = MPI_COMM_WORLD;
  r->active = true;
  r->complete = false;
  r->generalized = new GeneralizedRequest{query_fn, free_fn, cancel_fn, extra_state};
  *request = r;
  return MPI_SUCCESS;
}

int MPI_Grequest_complete(MPI_Request request) {
  static constexpr const char* kFn = "MPI_Grequest_complete";
  LZ_MPI_ENTRY(kFn);
  if (request == MPI_REQUEST_NULL || !request->valid() || request->kind != Request::Kind::kGeneralized)
    return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_REQUEST, "not a generalized request");
  if (request->complete)
    return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_REQUEST, "the generalized request was completed already");
  request->complete = true;
  if (request->user_freed) {  // MPI_Request_free came first
    const int rc = release(request);
    if (rc != MPI_SUCCESS) return mpi_error(MPI_COMM_WORLD, kFn, rc, returned("free", rc));
  }
  return MPI_SUCCESS;
}

}  // extern "C"
