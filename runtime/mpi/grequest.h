// Generalized requests (MPI-3.1 section 12.2): a request the program starts
// with its own callbacks and completes itself (MPI_Grequest_complete); the
// Wait/Test family, MPI_Cancel, MPI_Request_free and MPI_Request_get_status
// call its query, cancel and free functions (mpi_grequest.cpp).
#pragma once

#include "mpi.h"
#include "p2p/request.h"

namespace lz::rt {

struct GeneralizedRequest {
  MPI_Grequest_query_function* query = nullptr;
  MPI_Grequest_free_function* free = nullptr;
  MPI_Grequest_cancel_function* cancel = nullptr;
  void* extra_state = nullptr;
  // An operation the runtime completes itself (a nonblocking MPI-IO one, on
  // the I/O thread), not MPI_Grequest_complete: freeing it before it
  // completes waits for it, and then releases it.
  bool completes_on_io_thread = false;
};

namespace binding {

// MPI_Cancel of one: its cancel function, told whether it has completed.
int cancel_generalized(const char* fn, Request* r);
// MPI_Request_free of one: freed now if complete (its free function runs),
// else at MPI_Grequest_complete.
int free_generalized(const char* fn, Request* r);
// MPI_Request_get_status of a completed one: its query function fills `st`.
int status_of_generalized(const char* fn, Request* r, MPI_Status* st);

}  // namespace binding
}  // namespace lz::rt
