// MPI binding: matched probe and receive (MPI-3.1 section 3.8.2-3.8.3).
// A matched probe takes the message out of matching, so no other receive or
// probe of this process can get it before the MPI_Mrecv / MPI_Imrecv given
// the handle: what makes probe-then-receive safe with several threads.
#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/message.h"
#include "mpi/p2p_binding.h"

using namespace lz::rt;
using namespace lz::rt::binding;

struct lz_mpi_message_s lz_mpi_message_no_proc;

namespace {

int check_probe(const char* fn, int source, int tag, MPI_Comm comm, MPI_Message* message) {
  if (!comm_ok(comm)) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM, "invalid communicator");
  if (int e = check_source(fn, comm, source, tag)) return e;
  if (message == nullptr) return mpi_error(comm, fn, MPI_ERR_ARG, "message is NULL");
  return MPI_SUCCESS;
}

// Hands out a message taken from matching, with its status.
void give(MPI_Comm comm, Unexpected* u, MPI_Message* message, MPI_Status* status) {
  auto* m = new lz_mpi_message_s;
  m->comm = comm;
  m->message = u;
  *message = m;
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = u->src;
  status->MPI_TAG = u->tag;
  status->lz_cancelled = 0;
  status->lz_bytes = static_cast<MPI_Count>(u->length);
}

// Starts the receive of *message into a new request (*out), or says with
// *out null that it was MPI_MESSAGE_NO_PROC (status filled). Sets *message
// to MPI_MESSAGE_NULL.
int start_mrecv(const char* fn, void* buf, int count, MPI_Datatype dt, MPI_Message* message, MPI_Status* status,
                Request** out) {
  *out = nullptr;
  if (message == nullptr || *message == MPI_MESSAGE_NULL || !(*message)->valid())
    return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG,
                     message == nullptr ? "message is NULL" : "invalid message handle (MPI_MESSAGE_NULL or freed)");
  if (*message == MPI_MESSAGE_NO_PROC) {
    proc_null_status(status);
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
  }
  lz_mpi_message_s* m = *message;
  if (int e = check_common(fn, m->comm, count, dt)) return e;
  Request* r = make_request(Request::Kind::kRecv, Request::Mode::kStandard, buf, count, dt, m->message->src,
                            m->message->tag, m->comm);
  engine().start_matched_recv(r, m->message);
  m->magic = 0;
  delete m;
  *message = MPI_MESSAGE_NULL;
  *out = r;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_Improbe";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_probe(kFn, source, tag, comm, message)) return e;
  if (flag == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "flag is NULL");
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    *message = MPI_MESSAGE_NO_PROC;
    proc_null_status(status);
    return MPI_SUCCESS;
  }
  Engine& eng = engine();
  Unexpected* u = eng.take_unexpected(comm->p2p_context(), source, tag);
  if (u == nullptr) {
    eng.progress();
    u = eng.take_unexpected(comm->p2p_context(), source, tag);
  }
  *flag = u != nullptr;
  if (u == nullptr) return MPI_SUCCESS;
  give(comm, u, message, status);
  return MPI_SUCCESS;
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_Mprobe";
  LZ_MPI_ENTRY(kFn);
  if (int e = check_probe(kFn, source, tag, comm, message)) return e;
  if (source == MPI_PROC_NULL) {
    *message = MPI_MESSAGE_NO_PROC;
    proc_null_status(status);
    return MPI_SUCCESS;
  }
  Engine& eng = engine();
  const uint32_t ctx = comm->p2p_context();
  Unexpected* u = nullptr;
  eng.wait_until([&] { return (u = eng.take_unexpected(ctx, source, tag)) != nullptr; });
  give(comm, u, message, status);
  return MPI_SUCCESS;
}

int MPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status) {
  static constexpr const char* kFn = "MPI_Mrecv";
  LZ_MPI_ENTRY(kFn);
  const MPI_Comm comm = message != nullptr && *message != MPI_MESSAGE_NULL && (*message)->valid()
                            ? (*message)->comm
                            : MPI_COMM_WORLD;
  Request* r = nullptr;
  if (int e = start_mrecv(kFn, buf, count, datatype, message, status, &r)) return e;
  if (r == nullptr) return MPI_SUCCESS;
  if (!r->complete) engine().wait_until([r] { return r->complete; });
  MPI_Request h = r;
  std::string text;
  int err = retire(&h, status, nullptr, &text);
  if (err != MPI_SUCCESS) return mpi_error(comm, kFn, err, text);
  return MPI_SUCCESS;
}

int MPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Imrecv";
  LZ_MPI_ENTRY(kFn);
  if (request == nullptr) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "request is NULL");
  *request = MPI_REQUEST_NULL;
  Request* r = nullptr;
  if (int e = start_mrecv(kFn, buf, count, datatype, message, MPI_STATUS_IGNORE, &r)) return e;
  if (r == nullptr) {
    // MPI_MESSAGE_NO_PROC: a request that is complete at once, with the
    // status of a receive from MPI_PROC_NULL.
    r = make_request(Request::Kind::kRecv, Request::Mode::kStandard, nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0,
                     MPI_COMM_SELF);
    (void)engine().start_recv(r);
  }
  *request = r;
  return MPI_SUCCESS;
}

}  // extern "C"
