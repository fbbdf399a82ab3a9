// MPI binding: point-to-point sends, receives, probes and buffer attach.
#include <climits>
#include <cstdlib>
#include <cstring>

#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/nbc_start.h"
#include "p2p/nbc_schedule.h"
#include "mpi/p2p_binding.h"
#include "p2p/bsend_buffer.h"

using lz::rt::mpi_error;
using lz::rt::Request;
using lz::rt::request_pool;
using namespace lz::rt::binding;

namespace {

using Mode = Request::Mode;

// A blocking send through a request (send_blocking() past its common case).
[[gnu::noinline]] int send_with_request(const char* fn, const void* buf, int count, MPI_Datatype dt, int dest, int tag,
                                        MPI_Comm comm, Mode mode) {
  auto& eng = engine();
  Request* r = make_request(Request::Kind::kSend, mode, buf, count, dt, dest, tag, comm);
  lz::Status s = eng.start_send(r);
  if (__builtin_expect(!s.ok(), 0)) {
    int cls = r->st_error != MPI_SUCCESS ? r->st_error : lz::rt::mpi_class_of(s);
    request_pool().put(r);
    return mpi_error(comm, fn, cls, s.message());
  }
  if (!r->complete) eng.wait_until([r] { return r->complete; });
  int err = r->st_error;
  if (__builtin_expect(err != MPI_SUCCESS, 0)) {
    std::string text = request_error_text(r);
    request_pool().put(r);
    return mpi_error(comm, fn, err, text);
  }
  request_pool().put(r);
  return MPI_SUCCESS;
}

// Blocking send of any mode. A standard-mode message that goes at once
// (Engine::send_now) needs no request.
inline int send_blocking(const char* fn, const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                         Mode mode) {
  if (int e = check_common(fn, comm, count, dt)) return e;
  if (int e = check_dest(fn, comm, dest, tag)) return e;
  if (mode == Mode::kStandard) {
    bool done = false;
    lz::Status s = engine().send_now(comm, dest, tag, comm->p2p_context(), buf, count, dt, &done);
    if (__builtin_expect(done, 1)) return s.ok() ? MPI_SUCCESS : mpi_error(comm, fn, MPI_ERR_OTHER, s.message());
  }
  return send_with_request(fn, buf, count, dt, dest, tag, comm, mode);
}

inline int send_nonblocking(const char* fn, const void* buf, int count, MPI_Datatype dt, int dest, int tag,
                            MPI_Comm comm, Mode mode, MPI_Request* request) {
  if (int e = check_common(fn, comm, count, dt)) return e;
  if (int e = check_dest(fn, comm, dest, tag)) return e;
  Request* r = make_request(Request::Kind::kSend, mode, buf, count, dt, dest, tag, comm);
  lz::Status s = engine().start_send(r);
  if (!s.ok()) {
    int cls = r->st_error != MPI_SUCCESS ? r->st_error : lz::rt::mpi_class_of(s);
    request_pool().put(r);
    *request = MPI_REQUEST_NULL;
    return mpi_error(comm, fn, cls, s.message());
  }
  *request = r;
  return MPI_SUCCESS;
}

// A persistent send of any mode (MPI_Start starts it).
inline int send_init(const char* fn, const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                     Mode mode, MPI_Request* request) {
  if (int e = check_common(fn, comm, count, dt)) return e;
  if (int e = check_dest(fn, comm, dest, tag)) return e;
  Request* r = make_request(Request::Kind::kSend, mode, buf, count, dt, dest, tag, comm);
  r->persistent = true;
  *request = r;
  return MPI_SUCCESS;
}

inline int recv_post(const char* fn, void* buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                     Request** out) {
  if (int e = check_common(fn, comm, count, dt)) return e;
  if (int e = check_source(fn, comm, source, tag)) return e;
  Request* r = make_request(Request::Kind::kRecv, Mode::kStandard, buf, count, dt, source, tag, comm);
  lz::Status s = engine().start_recv(r);
  if (!s.ok()) {
    request_pool().put(r);
    return mpi_error(comm, fn, s);
  }
  *out = r;
  return MPI_SUCCESS;
}

// MPI-4.0's MPI_Isendrecv(_replace): the receive and the send are started
// as MPI_Irecv and MPI_Isend would start them, and a schedule that awaits
// both (NbcSchedule::await) runs as the request: it completes when both
// have, with the receive's status; a checkpoint drains it like a
// non-blocking collective. `sched` may own the send buffer (_replace).
int isendrecv(const char* fn, std::unique_ptr<lz::rt::NbcSchedule> sched, const void* sendbuf, int sendcount,
              MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype,
              int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  Request* rr = nullptr;
  if (int e = recv_post(fn, recvbuf, recvcount, recvtype, source, recvtag, comm, &rr)) return e;
  Request* sr = make_request(Request::Kind::kSend, Mode::kStandard, sendbuf, sendcount, sendtype, dest, sendtag, comm);
  if (lz::Status s = engine().start_send(sr); !s.ok()) {
    request_pool().put(sr);
    engine().wait_until([rr] { return rr->complete; });
    request_pool().put(rr);
    return mpi_error(comm, fn, s);
  }
  Request* r = request_pool().get();
  r->comm = comm;
  r->context = comm->coll_context();
  sched->await(rr, r);
  sched->await(sr);
  engine().start_nbc(r, std::move(sched));
  *request = r;
  return MPI_SUCCESS;
}

// `bytes` packed bytes as a send takes them: MPI_BYTEs, or beyond INT_MAX
// one element of a contiguous type of them (a request or schedule retains
// it; this holds the reference made here until it goes).
class ByteCount {
 public:
  explicit ByteCount(size_t bytes) {
    if (bytes <= INT_MAX) {
      count_ = static_cast<int>(bytes);
      return;
    }
    made_ = *lz_datatype_s::contiguous_c(static_cast<int64_t>(bytes), lz_mpi_dt_byte);
    made_->commit();
  }
  ~ByteCount() { lz_datatype_s::release(made_); }
  ByteCount(const ByteCount&) = delete;
  ByteCount& operator=(const ByteCount&) = delete;
  int count() const { return count_; }
  MPI_Datatype type() const { return made_ != nullptr ? made_ : &lz_mpi_dt_byte; }

 private:
  int count_ = 1;
  lz_datatype_s* made_ = nullptr;
};

// MPI_Get_count's and MPI_Get_count_c's answer: MPI_UNDEFINED when the
// bytes are not whole elements.
MPI_Count count_of(const MPI_Status* status, MPI_Datatype datatype) {
  size_t size = datatype->size();
  auto bytes = static_cast<size_t>(status->lz_bytes);
  if (size == 0) return 0;
  if (bytes % size != 0) return MPI_UNDEFINED;
  return static_cast<MPI_Count>(bytes / size);
}

// Buffer detach of both forms: blocks until every buffered message is sent.
void buffer_detach(void* buffer_addr, size_t* size) {
  auto& b = lz::rt::bsend_buffer();
  if (!b.attached()) {
    *static_cast<void**>(buffer_addr) = nullptr;
    *size = 0;
    return;
  }
  engine().wait_until([&b] { return b.in_use() == 0; });
  void* p;
  b.detach(&p, size);
  *static_cast<void**>(buffer_addr) = p;
}

int buffer_attach(const char* fn, void* buffer, MPI_Count size) {
  if (size < 0) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG, "negative buffer size");
  if (!lz::rt::bsend_buffer().attach(buffer, static_cast<size_t>(size)))
    return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_BUFFER, "a buffer is already attached");
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  LZ_MPI_ENTRY("MPI_Send");
  return send_blocking("MPI_Send", buf, count, datatype, dest, tag, comm, Mode::kStandard);
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  LZ_MPI_ENTRY("MPI_Ssend");
  return send_blocking("MPI_Ssend", buf, count, datatype, dest, tag, comm, Mode::kSync);
}

int MPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  LZ_MPI_ENTRY("MPI_Rsend");
  return send_blocking("MPI_Rsend", buf, count, datatype, dest, tag, comm, Mode::kReady);
}

int MPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  LZ_MPI_ENTRY("MPI_Bsend");
  return send_blocking("MPI_Bsend", buf, count, datatype, dest, tag, comm, Mode::kBuffered);
}

int MPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  LZ_MPI_ENTRY("MPI_Isend");
  return send_nonblocking("MPI_Isend", buf, count, datatype, dest, tag, comm, Mode::kStandard, request);
}

int MPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  LZ_MPI_ENTRY("MPI_Issend");
  return send_nonblocking("MPI_Issend", buf, count, datatype, dest, tag, comm, Mode::kSync, request);
}

int MPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  LZ_MPI_ENTRY("MPI_Ibsend");
  return send_nonblocking("MPI_Ibsend", buf, count, datatype, dest, tag, comm, Mode::kBuffered, request);
}

int MPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  LZ_MPI_ENTRY("MPI_Irsend");
  return send_nonblocking("MPI_Irsend", buf, count, datatype, dest, tag, comm, Mode::kReady, request);
}

int MPI_Buffer_attach(void* buffer, int size) {
  LZ_MPI_ENTRY("MPI_Buffer_attach");
  return buffer_attach("MPI_Buffer_attach", buffer, size);
}

int MPI_Buffer_attach_c(void* buffer, MPI_Count size) {
  LZ_MPI_ENTRY("MPI_Buffer_attach_c");
  return buffer_attach("MPI_Buffer_attach_c", buffer, size);
}

int MPI_Buffer_detach(void* buffer_addr, int* size) {
  LZ_MPI_ENTRY("MPI_Buffer_detach");
  size_t n = 0;
  buffer_detach(buffer_addr, &n);
  *size = n <= INT_MAX ? static_cast<int>(n) : MPI_UNDEFINED;  // attached by MPI_Buffer_attach_c
  return MPI_SUCCESS;
}

int MPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  LZ_MPI_ENTRY("MPI_Buffer_detach_c");
  size_t n = 0;
  buffer_detach(buffer_addr, &n);
  *size = static_cast<MPI_Count>(n);
  return MPI_SUCCESS;
}

int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  LZ_MPI_ENTRY("MPI_Recv");
  Request* r = nullptr;
  if (int e = recv_post("MPI_Recv", buf, count, datatype, source, tag, comm, &r)) return e;
  if (!r->complete) engine().wait_until([r] { return r->complete; });
  MPI_Request h = r;
  std::string text;
  int err = retire(&h, status, nullptr, &text);
  if (__builtin_expect(err != MPI_SUCCESS, 0)) return mpi_error(comm, "MPI_Recv", err, text);
  return MPI_SUCCESS;
}

int MPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request* request) {
  LZ_MPI_ENTRY("MPI_Irecv");
  Request* r = nullptr;
  if (int e = recv_post("MPI_Irecv", buf, count, datatype, source, tag, comm, &r)) {
    *request = MPI_REQUEST_NULL;
    return e;
  }
  *request = r;
  return MPI_SUCCESS;
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  LZ_MPI_ENTRY("MPI_Sendrecv");
  const char* fn = "MPI_Sendrecv";
  if (int e = check_common(fn, comm, sendcount, sendtype)) return e;
  if (int e = check_dest(fn, comm, dest, sendtag)) return e;
  Request* rr = nullptr;
  if (int e = recv_post(fn, recvbuf, recvcount, recvtype, source, recvtag, comm, &rr)) return e;
  Request* sr = make_request(Request::Kind::kSend, Mode::kStandard, sendbuf, sendcount, sendtype, dest, sendtag, comm);
  lz::Status s = engine().start_send(sr);
  if (!s.ok()) {
    request_pool().put(sr);
    engine().wait_until([rr] { return rr->complete; });
    request_pool().put(rr);
    return mpi_error(comm, fn, s);
  }
  engine().wait_until([rr, sr] { return rr->complete && sr->complete; });
  MPI_Request hs = sr, hr = rr;
  std::string stext, rtext;
  int serr = retire(&hs, MPI_STATUS_IGNORE, nullptr, &stext);
  int rerr = retire(&hr, status, nullptr, &rtext);
  if (serr != MPI_SUCCESS) return mpi_error(comm, fn, serr, stext);
  if (rerr != MPI_SUCCESS) return mpi_error(comm, fn, rerr, rtext);
  return MPI_SUCCESS;
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                         MPI_Comm comm, MPI_Status* status) {
  LZ_MPI_ENTRY("MPI_Sendrecv_replace");
  const char* fn = "MPI_Sendrecv_replace";
  if (int e = check_common(fn, comm, count, datatype)) return e;
  if (int e = check_dest(fn, comm, dest, sendtag)) return e;
  // Send a packed copy; receive into the user buffer.
  size_t bytes = datatype->size() * static_cast<size_t>(count);
  char* copy = static_cast<char*>(std::malloc(bytes ? bytes : 1));
  datatype->pack(buf, count, copy);
  Request* rr = nullptr;
  if (int e = recv_post(fn, buf, count, datatype, source, recvtag, comm, &rr)) {
    std::free(copy);
    return e;
  }
  ByteCount packed(bytes);
  Request* sr = make_request(Request::Kind::kSend, Mode::kStandard, copy, packed.count(), packed.type(), dest, sendtag,
                             comm);
  lz::Status s = engine().start_send(sr);
  if (s.ok())
    engine().wait_until([rr, sr] { return rr->complete && sr->complete; });
  else
    engine().wait_until([rr] { return rr->complete; });
  std::free(copy);
  MPI_Request hs = sr, hr = rr;
  std::string stext, rtext;
  int serr = s.ok() ? retire(&hs, MPI_STATUS_IGNORE, nullptr, &stext) : MPI_ERR_OTHER;
  if (!s.ok()) {
    request_pool().put(sr);
    stext = s.message();
  }
  int rerr = retire(&hr, status, nullptr, &rtext);
  if (serr != MPI_SUCCESS) return mpi_error(comm, fn, serr, stext);
  if (rerr != MPI_SUCCESS) return mpi_error(comm, fn, rerr, rtext);
  return MPI_SUCCESS;
}

int MPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                  MPI_Request* request) {
  LZ_MPI_ENTRY("MPI_Isendrecv");
  const char* fn = "MPI_Isendrecv";
  if (int e = lz::rt::nbc_start::check_request(fn, comm, request)) return e;
  if (int e = check_common(fn, comm, sendcount, sendtype)) return e;
  if (int e = check_dest(fn, comm, dest, sendtag)) return e;
  return isendrecv(fn, std::make_unique<lz::rt::NbcSchedule>(*comm, 0), sendbuf, sendcount, sendtype, dest, sendtag,
                   recvbuf, recvcount, recvtype, source, recvtag, comm, request);
}

int MPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                          MPI_Comm comm, MPI_Request* request) {
  LZ_MPI_ENTRY("MPI_Isendrecv_replace");
  const char* fn = "MPI_Isendrecv_replace";
  if (int e = lz::rt::nbc_start::check_request(fn, comm, request)) return e;
  if (int e = check_common(fn, comm, count, datatype)) return e;
  if (int e = check_dest(fn, comm, dest, sendtag)) return e;
  auto sched = std::make_unique<lz::rt::NbcSchedule>(*comm, 0);
  ByteCount packed(datatype->size() * static_cast<size_t>(count));
  void* copy = sched->temp(packed.count(), *packed.type());
  datatype->pack(buf, count, copy);
  return isendrecv(fn, std::move(sched), copy, packed.count(), packed.type(), dest, sendtag, buf, count, datatype,
                   source, recvtag, comm, request);
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  LZ_MPI_ENTRY("MPI_Iprobe");
  if (!comm_ok(comm)) return mpi_error(MPI_COMM_WORLD, "MPI_Iprobe", MPI_ERR_COMM, "invalid communicator");
  if (int e = check_source("MPI_Iprobe", comm, source, tag)) return e;
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    proc_null_status(status);
    return MPI_SUCCESS;
  }
  auto& eng = engine();
  Request probe;
  if (!eng.iprobe(comm->p2p_context(), source, tag, &probe)) {
    eng.progress();
    if (!eng.iprobe(comm->p2p_context(), source, tag, &probe)) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  probe.fill_status(status);
  return MPI_SUCCESS;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  LZ_MPI_ENTRY("MPI_Probe");
  if (!comm_ok(comm)) return mpi_error(MPI_COMM_WORLD, "MPI_Probe", MPI_ERR_COMM, "invalid communicator");
  if (int e = check_source("MPI_Probe", comm, source, tag)) return e;
  if (source == MPI_PROC_NULL) {
    int flag;
    return MPI_Iprobe(source, tag, comm, &flag, status);
  }
  auto& eng = engine();
  Request probe;
  const uint32_t ctx = comm->p2p_context();
  eng.wait_until([&] { return eng.iprobe(ctx, source, tag, &probe); });
  probe.fill_status(status);
  return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  if (status == nullptr || datatype == nullptr)
    return mpi_error(MPI_COMM_WORLD, "MPI_Get_count", MPI_ERR_ARG, "null status or datatype");
  const MPI_Count n = count_of(status, datatype);
  *count = n <= INT_MAX ? static_cast<int>(n) : MPI_UNDEFINED;  // MPI-4.0: MPI_Get_count_c tells
  return MPI_SUCCESS;
}

int MPI_Get_count_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  if (status == nullptr || datatype == nullptr || count == nullptr)
    return mpi_error(MPI_COMM_WORLD, "MPI_Get_count_c", MPI_ERR_ARG, "null status, datatype or count");
  *count = count_of(status, datatype);
  return MPI_SUCCESS;
}

int MPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  if (status == nullptr || datatype == nullptr)
    return mpi_error(MPI_COMM_WORLD, "MPI_Get_elements", MPI_ERR_ARG, "null status or datatype");
  size_t n = datatype->elements_in(static_cast<size_t>(status->lz_bytes));
  *count = n == lz::dt::Datatype::kUndefinedElements || n > INT_MAX ? MPI_UNDEFINED : static_cast<int>(n);
  return MPI_SUCCESS;
}

int MPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  if (status == nullptr || datatype == nullptr || count == nullptr)
    return mpi_error(MPI_COMM_WORLD, "MPI_Get_elements_x", MPI_ERR_ARG, "null status, datatype or count");
  size_t n = datatype->elements_in(static_cast<size_t>(status->lz_bytes));
  *count = n == lz::dt::Datatype::kUndefinedElements ? MPI_UNDEFINED : static_cast<MPI_Count>(n);
  return MPI_SUCCESS;
}

int MPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  if (status == nullptr || datatype == nullptr || count == nullptr)
    return mpi_error(MPI_COMM_WORLD, "MPI_Get_elements_c", MPI_ERR_ARG, "null status, datatype or count");
  size_t n = datatype->elements_in(static_cast<size_t>(status->lz_bytes));
  *count = n == lz::dt::Datatype::kUndefinedElements ? MPI_UNDEFINED : static_cast<MPI_Count>(n);
  return MPI_SUCCESS;
}

int MPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  LZ_MPI_ENTRY("MPI_Send_init");
  return send_init("MPI_Send_init", buf, count, datatype, dest, tag, comm, Mode::kStandard, request);
}

int MPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  LZ_MPI_ENTRY("MPI_Ssend_init");
  return send_init("MPI_Ssend_init", buf, count, datatype, dest, tag, comm, Mode::kSync, request);
}

int MPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  LZ_MPI_ENTRY("MPI_Bsend_init");
  return send_init("MPI_Bsend_init", buf, count, datatype, dest, tag, comm, Mode::kBuffered, request);
}

int MPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  LZ_MPI_ENTRY("MPI_Rsend_init");
  return send_init("MPI_Rsend_init", buf, count, datatype, dest, tag, comm, Mode::kReady, request);
}

int MPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  LZ_MPI_ENTRY("MPI_Recv_init");
  if (int e = check_common("MPI_Recv_init", comm, count, datatype)) return e;
  if (int e = check_source("MPI_Recv_init", comm, source, tag)) return e;
  Request* r = make_request(Request::Kind::kRecv, Mode::kStandard, buf, count, datatype, source, tag, comm);
  r->persistent = true;
  *request = r;
  return MPI_SUCCESS;
}

}  // extern "C"
