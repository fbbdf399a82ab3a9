// The MPI calls liblazarus-ft wraps through the profiling interface: start
// and end (the Session lives between them) and every call that sends or
// posts a receive (the bookmark counters, ft_state.h). Collectives are not
// wrapped: every rank calls them in the same order relative to its
// LZ_Checkpoint calls, and the vendor's collectives do not go through these
// entry points, so they neither cross a line nor touch the counters.
// Persistent requests are remembered at *_init and counted at MPI_Start.
#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "ft_state.h"

namespace lz::ft {

uint64_t g_sent = 0, g_received = 0;
bool g_multiple = false;

FtState& state() {
  static FtState s;
  return s;
}

namespace {

// Persistent requests: +1 a send, -1 a receive, 0 to or from MPI_PROC_NULL.
std::unordered_map<MPI_Request, int>& persistent() {
  static std::unordered_map<MPI_Request, int> m;
  return m;
}

void remember(MPI_Request* r, int kind, int rc) {
  if (rc == MPI_SUCCESS && r != nullptr) persistent()[*r] = kind;
}

void start_one(MPI_Request r) {
  auto it = persistent().find(r);
  if (it == persistent().end()) return;
  if (it->second > 0) bump(g_sent);
  else if (it->second < 0) bump(g_received);
}

std::vector<std::string> command_line(int* argc, char*** argv) {
  std::vector<std::string> out;
  if (argc != nullptr && argv != nullptr && *argv != nullptr)
    for (int i = 0; i < *argc; ++i) out.emplace_back((*argv)[i]);
  if (!out.empty()) return out;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  for (std::string a; std::getline(in, a, '\0');) out.push_back(a);
  return out;
}

// After PMPI_Init/Init_thread: the private communicator and the Session.
// A failure stops the job: the program asked for fault tolerance and would
// otherwise run without it, which nobody would notice until the crash.
int start(int rc, int* argc, char*** argv) {
  if (rc != MPI_SUCCESS) return rc;
  FtState& s = state();
  PMPI_Comm_dup(MPI_COMM_WORLD, &s.comm);
  PMPI_Comm_set_name(s.comm, "lazarus-ft");
  s.coord = std::make_unique<PmpiCoordinator>(s.comm);
  auto session = Session::create(*s.coord, command_line(argc, argv));
  if (!session.ok()) {
    std::fprintf(stderr, "lazarus-ft (rank %d): MPI_Init: %s\n", s.coord->rank(), session.status().message().c_str());
    PMPI_Abort(MPI_COMM_WORLD, 1);
    return MPI_ERR_OTHER;
  }
  s.session = std::move(*session);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace lz::ft

using namespace lz::ft;

// The library is compiled with hidden visibility; these are its interface
// (ft.map lists the same names).
#pragma GCC visibility push(default)
extern "C" {

int MPI_Init(int* argc, char*** argv) { return start(PMPI_Init(argc, argv), argc, argv); }

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS && provided != nullptr) g_multiple = *provided == MPI_THREAD_MULTIPLE;
  return start(rc, argc, argv);
}

int MPI_Finalize(void) {
  FtState& s = state();
  s.session.reset();  // releases the store's lock
  s.coord.reset();
  if (s.comm != MPI_COMM_NULL) PMPI_Comm_free(&s.comm);
  persistent().clear();
  return PMPI_Finalize();
}

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  count_send(dest);
  return PMPI_Send(buf, count, type, dest, tag, comm);
}
int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  count_send(dest);
  return PMPI_Bsend(buf, count, type, dest, tag, comm);
}
int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  count_send(dest);
  return PMPI_Ssend(buf, count, type, dest, tag, comm);
}
int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  count_send(dest);
  return PMPI_Rsend(buf, count, type, dest, tag, comm);
}
int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  count_send(dest);
  return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}
int MPI_Ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  count_send(dest);
  return PMPI_Ibsend(buf, count, type, dest, tag, comm, req);
}
int MPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  count_send(dest);
  return PMPI_Issend(buf, count, type, dest, tag, comm, req);
}
int MPI_Irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  count_send(dest);
  return PMPI_Irsend(buf, count, type, dest, tag, comm, req);
}
int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  count_recv(source);
  return PMPI_Recv(buf, count, type, source, tag, comm, status);
}
int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* req) {
  count_recv(source);
  return PMPI_Irecv(buf, count, type, source, tag, comm, req);
}
int MPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* msg, MPI_Status* status) {
  if (msg != nullptr && *msg != MPI_MESSAGE_NO_PROC) bump(g_received);
  return PMPI_Mrecv(buf, count, type, msg, status);
}
int MPI_Imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* msg, MPI_Request* req) {
  if (msg != nullptr && *msg != MPI_MESSAGE_NO_PROC) bump(g_received);
  return PMPI_Imrecv(buf, count, type, msg, req);
}
int MPI_Sendrecv(const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag, void* rbuf, int rcount,
                 MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status* status) {
  count_send(dest);
  count_recv(source);
  return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status);
}
int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int stag, int source, int rtag,
                         MPI_Comm comm, MPI_Status* status) {
  count_send(dest);
  count_recv(source);
  return PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, status);
}

int MPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  const int rc = PMPI_Send_init(buf, count, type, dest, tag, comm, req);
  remember(req, dest != MPI_PROC_NULL ? 1 : 0, rc);
  return rc;
}
int MPI_Bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  const int rc = PMPI_Bsend_init(buf, count, type, dest, tag, comm, req);
  remember(req, dest != MPI_PROC_NULL ? 1 : 0, rc);
  return rc;
}
int MPI_Ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  const int rc = PMPI_Ssend_init(buf, count, type, dest, tag, comm, req);
  remember(req, dest != MPI_PROC_NULL ? 1 : 0, rc);
  return rc;
}
int MPI_Rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  const int rc = PMPI_Rsend_init(buf, count, type, dest, tag, comm, req);
  remember(req, dest != MPI_PROC_NULL ? 1 : 0, rc);
  return rc;
}
int MPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* req) {
  const int rc = PMPI_Recv_init(buf, count, type, source, tag, comm, req);
  remember(req, source != MPI_PROC_NULL ? -1 : 0, rc);
  return rc;
}
int MPI_Start(MPI_Request* req) {
  if (req != nullptr) start_one(*req);
  return PMPI_Start(req);
}
int MPI_Startall(int n, MPI_Request reqs[]) {
  for (int k = 0; k < n && reqs != nullptr; ++k) start_one(reqs[k]);
  return PMPI_Startall(n, reqs);
}
int MPI_Request_free(MPI_Request* req) {
  if (req != nullptr) persistent().erase(*req);
  return PMPI_Request_free(req);
}

}  // extern "C"
#pragma GCC visibility pop
