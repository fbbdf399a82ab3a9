// MPI binding: completion (Wait/Test families), cancel, free, persistent start.
#include <vector>

#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/grequest.h"
#include "mpi/p2p_binding.h"
#include "mpi/persistent_coll.h"

using lz::rt::mpi_error;
using lz::rt::mpi_error_in_status;
using lz::rt::Request;
using lz::rt::request_pool;
using namespace lz::rt::binding;

namespace {

// Active: a request whose completion the caller waits for (not null, not an
// inactive persistent request).
inline bool live(MPI_Request r) { return r != MPI_REQUEST_NULL && r->active; }

inline MPI_Status* status_at(MPI_Status* array, int i) {
  return array == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &array[i];
}

int check_array(const char* fn, int count, MPI_Request* reqs) {
  if (count < 0) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_COUNT, "invalid count " + std::to_string(count));
  for (int i = 0; i < count; ++i)
    if (reqs[i] != MPI_REQUEST_NULL && !reqs[i]->valid())
      return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_REQUEST, "invalid request at index " + std::to_string(i));
  return MPI_SUCCESS;
}

// Retires the completed requests[i]; error classes go to the status. Returns
// the request's error class.
int retire_at(MPI_Request* reqs, int i, MPI_Status* st, MPI_Comm* comm, std::string* text) {
  return retire(&reqs[i], st, comm, text);
}

// The calls of several statuses (Waitall, Testall, Waitsome, Testsome) give
// each completed request's error class in its status's MPI_ERROR; the calls
// of one status leave that field alone (MPI-3.1 3.2.5).
int retire_into_array(MPI_Request* reqs, int i, MPI_Status* st, MPI_Comm* comm, std::string* text) {
  int err = retire_at(reqs, i, st, comm, text);
  if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = err;
  return err;
}

// Every live request of the array has completed.
bool all_complete(int count, const MPI_Request* reqs) {
  for (int i = 0; i < count; ++i)
    if (live(reqs[i]) && !reqs[i]->complete) return false;
  return true;
}

// Retires every live request of a completed array (Waitall/Testall), filling
// statuses; a failed request makes the call fail with MPI_ERR_IN_STATUS and
// the first failure's text (each request's own class is in its status).
int retire_all(const char* fn, int count, MPI_Request* reqs, MPI_Status* statuses) {
  int errors = 0;
  MPI_Comm err_comm = MPI_COMM_WORLD;
  std::string first_text;
  int first_class = MPI_SUCCESS;
  for (int i = 0; i < count; ++i) {
    MPI_Status* st = status_at(statuses, i);
    if (!live(reqs[i])) {
      empty_status(st);
      continue;
    }
    MPI_Comm comm;
    std::string text;
    int err = retire_into_array(reqs, i, st, &comm, &text);
    if (err != MPI_SUCCESS && errors++ == 0) {
      err_comm = comm;
      first_text = text;
      first_class = err;
    }
  }
  return errors ? mpi_error_in_status(err_comm, fn, first_class, first_text) : MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  LZ_MPI_ENTRY("MPI_Wait");
  Request* r = *request;
  if (r == MPI_REQUEST_NULL || !r->active) {
    empty_status(status);
    return MPI_SUCCESS;
  }
  if (!r->valid()) return mpi_error(MPI_COMM_WORLD, "MPI_Wait", MPI_ERR_REQUEST, "invalid request");
  if (!r->complete) engine().wait_until([r] { return r->complete; });
  MPI_Comm comm;
  std::string text;
  int err = retire(request, status, &comm, &text);
  if (err != MPI_SUCCESS) return mpi_error(comm, "MPI_Wait", err, text);
  return MPI_SUCCESS;
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  LZ_MPI_ENTRY("MPI_Test");
  Request* r = *request;
  if (r == MPI_REQUEST_NULL || !r->active) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  if (!r->valid()) return mpi_error(MPI_COMM_WORLD, "MPI_Test", MPI_ERR_REQUEST, "invalid request");
  if (!r->complete) engine().progress();
  if (!r->complete) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  *flag = 1;
  MPI_Comm comm;
  std::string text;
  int err = retire(request, status, &comm, &text);
  if (err != MPI_SUCCESS) return mpi_error(comm, "MPI_Test", err, text);
  return MPI_SUCCESS;
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
  LZ_MPI_ENTRY("MPI_Waitall");
  if (int e = check_array("MPI_Waitall", count, array_of_requests)) return e;
  engine().wait_until([&] { return all_complete(count, array_of_requests); });
  return retire_all("MPI_Waitall", count, array_of_requests, array_of_statuses);
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int* flag, MPI_Status array_of_statuses[]) {
  LZ_MPI_ENTRY("MPI_Testall");
  if (int e = check_array("MPI_Testall", count, array_of_requests)) return e;
  if (!all_complete(count, array_of_requests)) engine().progress();
  if (!all_complete(count, array_of_requests)) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  *flag = 1;
  return retire_all("MPI_Testall", count, array_of_requests, array_of_statuses);
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int* index, MPI_Status* status) {
  LZ_MPI_ENTRY("MPI_Waitany");
  if (int e = check_array("MPI_Waitany", count, array_of_requests)) return e;
  int found = MPI_UNDEFINED;
  bool any_live = false;
  for (int i = 0; i < count; ++i) any_live |= live(array_of_requests[i]);
  if (!any_live) {
    *index = MPI_UNDEFINED;
    empty_status(status);
    return MPI_SUCCESS;
  }
  engine().wait_until([&] {
    for (int i = 0; i < count; ++i)
      if (live(array_of_requests[i]) && array_of_requests[i]->complete) {
        found = i;
        return true;
      }
    return false;
  });
  *index = found;
  MPI_Comm comm;
  std::string text;
  int err = retire_at(array_of_requests, found, status, &comm, &text);
  if (err != MPI_SUCCESS) return mpi_error(comm, "MPI_Waitany", err, text);
  return MPI_SUCCESS;
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int* index, int* flag, MPI_Status* status) {
  LZ_MPI_ENTRY("MPI_Testany");
  if (int e = check_array("MPI_Testany", count, array_of_requests)) return e;
  bool any_live = false;
  for (int i = 0; i < count; ++i) any_live |= live(array_of_requests[i]);
  if (!any_live) {
    *flag = 1;
    *index = MPI_UNDEFINED;
    empty_status(status);
    return MPI_SUCCESS;
  }
  auto find = [&] {
    for (int i = 0; i < count; ++i)
      if (live(array_of_requests[i]) && array_of_requests[i]->complete) return i;
    return -1;
  };
  int i = find();
  if (i < 0) {
    engine().progress();
    i = find();
  }
  if (i < 0) {
    *flag = 0;
    *index = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  *flag = 1;
  *index = i;
  MPI_Comm comm;
  std::string text;
  int err = retire_at(array_of_requests, i, status, &comm, &text);
  if (err != MPI_SUCCESS) return mpi_error(comm, "MPI_Testany", err, text);
  return MPI_SUCCESS;
}

static int some_common(const char* fn, int incount, MPI_Request* reqs, int* outcount, int* indices,
                       MPI_Status* statuses, bool block) {
  if (int e = check_array(fn, incount, reqs)) return e;
  bool any_live = false;
  for (int i = 0; i < incount; ++i) any_live |= live(reqs[i]);
  if (!any_live) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  auto any_done = [&] {
    for (int i = 0; i < incount; ++i)
      if (live(reqs[i]) && reqs[i]->complete) return true;
    return false;
  };
  if (block)
    engine().wait_until(any_done);
  else if (!any_done())
    engine().progress();
  int n = 0, errors = 0;
  MPI_Comm err_comm = MPI_COMM_WORLD;
  std::string first_text;
  int first_class = MPI_SUCCESS;
  for (int i = 0; i < incount; ++i) {
    if (!live(reqs[i]) || !reqs[i]->complete) continue;
    MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[n];
    indices[n] = i;
    ++n;
    MPI_Comm comm;
    std::string text;
    int err = retire_into_array(reqs, i, st, &comm, &text);
    if (err != MPI_SUCCESS && errors++ == 0) {
      err_comm = comm;
      first_text = text;
      first_class = err;
    }
  }
  *outcount = n;
  if (errors) return mpi_error_in_status(err_comm, fn, first_class, first_text);
  return MPI_SUCCESS;
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[]) {
  LZ_MPI_ENTRY("MPI_Waitsome");
  return some_common("MPI_Waitsome", incount, array_of_requests, outcount, array_of_indices, array_of_statuses, true);
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[]) {
  LZ_MPI_ENTRY("MPI_Testsome");
  return some_common("MPI_Testsome", incount, array_of_requests, outcount, array_of_indices, array_of_statuses, false);
}

int MPI_Cancel(MPI_Request* request) {
  LZ_MPI_ENTRY("MPI_Cancel");
  Request* r = *request;
  if (r == MPI_REQUEST_NULL || !r->valid())
    return mpi_error(MPI_COMM_WORLD, "MPI_Cancel", MPI_ERR_REQUEST, "invalid request");
  if (r->kind == Request::Kind::kGeneralized) return cancel_generalized("MPI_Cancel", r);
  // A receive not yet matched is cancelled; a send whose message no receive
  // has matched is withdrawn (Engine::cancel); anything else completes
  // normally and MPI_Test_cancelled says false.
  engine().cancel(r);
  return MPI_SUCCESS;
}

int MPI_Test_cancelled(const MPI_Status* status, int* flag) {
  LZ_MPI_ENTRY("MPI_Test_cancelled");
  *flag = status != nullptr && status->lz_cancelled ? 1 : 0;
  return MPI_SUCCESS;
}

// MPI_Test without the side effects: the request is neither freed nor
// deactivated, and an error it ended with is in the status only.
int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_Request_get_status";
  LZ_MPI_ENTRY(kFn);
  if (flag == nullptr) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "flag is NULL");
  if (request == MPI_REQUEST_NULL || !request->active) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  if (!request->valid()) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_REQUEST, "invalid request");
  if (!request->complete) engine().progress();
  *flag = request->complete;
  if (request->complete && request->kind == Request::Kind::kGeneralized)
    return status_of_generalized(kFn, request, status);
  if (request->complete) request->fill_status(status);
  return MPI_SUCCESS;
}

int MPI_Request_free(MPI_Request* request) {
  LZ_MPI_ENTRY("MPI_Request_free");
  Request* r = *request;
  if (r == MPI_REQUEST_NULL || !r->valid())
    return mpi_error(MPI_COMM_WORLD, "MPI_Request_free", MPI_ERR_REQUEST, "invalid request");
  if (r->kind == Request::Kind::kGeneralized) {
    *request = MPI_REQUEST_NULL;
    return free_generalized("MPI_Request_free", r);
  }
  if (r->persistent_coll != nullptr) {
    if (int e = lz::rt::persistent_coll::free(r)) return e;
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
  }
  if (!r->active || r->complete)
    request_pool().put(r);
  else
    r->user_freed = true;  // the engine releases it when it completes
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

int MPI_Start(MPI_Request* request) {
  LZ_MPI_ENTRY("MPI_Start");
  Request* r = *request;
  if (r == MPI_REQUEST_NULL || !r->valid() || !r->persistent)
    return mpi_error(MPI_COMM_WORLD, "MPI_Start", MPI_ERR_REQUEST, "not a persistent request");
  if (r->active) return mpi_error(r->comm, "MPI_Start", MPI_ERR_REQUEST, "the persistent request is already active");
  r->st_source = MPI_ANY_SOURCE;
  r->st_tag = MPI_ANY_TAG;
  r->st_bytes = 0;
  r->world_peer = -1;
  if (r->persistent_coll != nullptr) return lz::rt::persistent_coll::start(r);
  lz::Status s = r->kind == Request::Kind::kSend ? engine().start_send(r) : engine().start_recv(r);
  if (!s.ok()) return mpi_error(r->comm, "MPI_Start", s);
  return MPI_SUCCESS;
}

int MPI_Startall(int count, MPI_Request array_of_requests[]) {
  LZ_MPI_ENTRY("MPI_Startall");
  for (int i = 0; i < count; ++i)
    if (int e = MPI_Start(&array_of_requests[i])) return e;
  return MPI_SUCCESS;
}

}  // extern "C"
