// Running a collective schedule (p2p/nbc_schedule.h) from the binding: the
// non-blocking calls start it as a request the engine completes
// (MPI_Wait, MPI_Test... as for point-to-point); the blocking calls that
// have no collective module of their own (MPI_Alltoallw, the neighbourhood
// collectives) start the same schedule and wait for it.
//
//   LZ_COLL_CHECK(check_request(kFn, comm, request));   // *request = MPI_REQUEST_NULL
//   ... argument checks ...
//   return start(comm, nbc_alltoallv(*comm, ...), request);
//   // blocking: return run_and_wait(kFn, comm, nbc_alltoallv(*comm, ...));
#pragma once

#include <string>
#include <utility>

#include "mpi.h"
#include "mpi/coll_args.h"
#include "mpi/errors.h"
#include "mpi/p2p_binding.h"
#include "mpi/persistent_coll.h"
#include "p2p/engine.h"
#include "p2p/nbc_algorithms.h"
#include "p2p/request.h"
#include "p2p/runtime.h"

namespace lz::rt::nbc_start {

// The request argument of a non-blocking collective: set to
// MPI_REQUEST_NULL first, so a call that fails leaves no request behind.
inline int check_request(const char* fn, MPI_Comm comm, MPI_Request* request) {
  if (request == nullptr)
    return mpi_error(coll_args::comm_ok(comm) ? comm : MPI_COMM_WORLD, fn, MPI_ERR_ARG, "request is NULL");
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

// Hands `schedule` to the engine; *request completes once it has run.
// Under a persistent collective (g_start_target), the schedule runs as its
// request instead, or is dropped (the *_init call's dry run).
inline int start(MPI_Comm comm, NbcPtr schedule, MPI_Request* request) {
  const StartTarget target = g_start_target;
  if (__builtin_expect(target.dry_run, 0)) return MPI_SUCCESS;
  Request* r = target.into != nullptr ? target.into : request_pool().get();
  r->comm = comm;
  r->context = comm->coll_context();
  runtime().engine().start_nbc(r, std::move(schedule));
  *request = r;
  return MPI_SUCCESS;
}

// start(), then waits and reports what the schedule ended with through
// the communicator's error handler.
inline int run_and_wait(const char* fn, MPI_Comm comm, NbcPtr schedule) {
  MPI_Request r = MPI_REQUEST_NULL;
  start(comm, std::move(schedule), &r);
  runtime().engine().wait_until([r] { return r->complete; });
  std::string text;
  const int err = binding::retire(&r, MPI_STATUS_IGNORE, nullptr, &text);
  return err == MPI_SUCCESS ? MPI_SUCCESS : mpi_error(comm, fn, err, text);
}

}  // namespace lz::rt::nbc_start
