// MPI binding: non-blocking data access (MPI-3.1 sections 13.4.2 to
// 13.4.4, and the collective MPI_File_iread_all ... of 13.4.5): the
// operation is positioned now (pointers move by what is asked, as the
// standard says, when the call returns) and runs on the I/O thread
// (io/io_queue.h), which completes its request and wakes a waiting rank.
// The request is a generalized one to the Wait/Test family: its query
// function gives the status and raises the file's error handler.
#include <atomic>
#include <mutex>
#include <string>

#include "io/io_queue.h"
#include "mpi.h"
#include "mpi/datatype/datarep.h"
#include "mpi/entry.h"
#include "mpi/grequest.h"
#include "mpi/io/file.h"
#include "mpi/io/shared_pointer.h"
#include "mpi/p2p_binding.h"

using namespace lz::rt::io;
using lz::rt::GeneralizedRequest;
using lz::rt::Request;

namespace {

// One operation in flight: its transfer and what reporting it needs once
// the file may be closed.
struct Pending {
  Transfer t;
  const char* fn;
  MPI_Errhandler errhandler;
  std::string path;
};

int query(void* extra, MPI_Status* st) {
  auto* p = static_cast<Pending*>(extra);
  fill_status(p->t, st);
  if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = p->t.error;
  if (p->t.error == MPI_SUCCESS) return MPI_SUCCESS;
  // The file's handler, as the blocking call would have applied it (the
  // file may be closed by now: a stand-in carries its handler and name).
  lz_mpi_file_s stand_in;
  stand_in.errhandler = p->errhandler;
  stand_in.path = p->path;
  return file_error(&stand_in, p->fn, p->t.error, p->t.error_text);
}

int release(void* extra) {
  delete static_cast<Pending*>(extra);
  return MPI_SUCCESS;
}

// Starts `t` (prepared) on the I/O thread; *request completes with it.
int start(const char* fn, const Transfer& t, MPI_Request* request) {
  static std::once_flag wakes;
  std::call_once(wakes, [] { lz::rt::binding::engine().enable_thread_wakes().ignore(); });
  auto* p = new Pending{t, fn, t.fh->errhandler, t.fh->path};
  Request* r = lz::rt::request_pool().get();
  r->kind = Request::Kind::kGeneralized;
  r->comm = t.fh->comm;  // its handler returns: query() applied the file's
  r->active = true;
  r->complete = false;
  r->generalized = new GeneralizedRequest{query, release, nullptr, p, /*completes_on_io_thread=*/true};
  *request = r;
  auto finish_op = [p, r] {
    run(&p->t);
    __atomic_store_n(&r->complete, true, __ATOMIC_RELEASE);
    lz::rt::binding::engine().wake();
  };
  // A registered representation's conversion functions are the program's
  // code: they run on the program's thread, now.
  if (lz::rt::datarep::find(t.fh->datarep) != nullptr)
    finish_op();
  else
    lz::io::IoQueue::instance().submit(finish_op);
  return MPI_SUCCESS;
}

// Positions the operation now and starts it (the individual pointer moves
// by what is asked).
int start_at(const char* fn, MPI_File fh, bool write, Position at, MPI_Offset offset, const void* buf, int count,
             MPI_Datatype dt, MPI_Request* request) {
  if (request == nullptr) return file_error(fh, fn, MPI_ERR_ARG, "request is NULL");
  Transfer t{fh, write, 0, nullptr, 0, dt};
  if (int e = place(fn, fh, write, at, offset, buf, count, dt, &t)) return e;
  if (at == Position::kIndividual) fh->pointer += static_cast<MPI_Offset>(t.bytes / fh->etype_size());
  return start(fn, t, request);
}

}  // namespace

extern "C" {

int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                      MPI_Request* request) {
  static constexpr const char* kFn = "MPI_File_iread_at";
  LZ_MPI_ENTRY(kFn);
  return start_at(kFn, fh, false, Position::kExplicit, offset, buf, count, datatype, request);
}

int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                          MPI_Request* request) {
  static constexpr const char* kFn = "MPI_File_iread_at_all";
  LZ_MPI_ENTRY(kFn);
  return start_at(kFn, fh, false, Position::kExplicit, offset, buf, count, datatype, request);
}

int MPI_File_iread(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_File_iread";
  LZ_MPI_ENTRY(kFn);
  return start_at(kFn, fh, false, Position::kIndividual, 0, buf, count, datatype, request);
}

int MPI_File_iread_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_File_iread_all";
  LZ_MPI_ENTRY(kFn);
  return start_at(kFn, fh, false, Position::kIndividual, 0, buf, count, datatype, request);
}

int MPI_File_iread_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_File_iread_shared";
  LZ_MPI_ENTRY(kFn);
  return start_at(kFn, fh, false, Position::kShared, 0, buf, count, datatype, request);
}

int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
                       MPI_Request* request) {
  static constexpr const char* kFn = "MPI_File_iwrite_at";
  LZ_MPI_ENTRY(kFn);
  return start_at(kFn, fh, true, Position::kExplicit, offset, buf, count, datatype, request);
}

int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
                           MPI_Request* request) {
  static constexpr const char* kFn = "MPI_File_iwrite_at_all";
  LZ_MPI_ENTRY(kFn);
  return start_at(kFn, fh, true, Position::kExplicit, offset, buf, count, datatype, request);
}

int MPI_File_iwrite(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_File_iwrite";
  LZ_MPI_ENTRY(kFn);
  return start_at(kFn, fh, true, Position::kIndividual, 0, buf, count, datatype, request);
}

int MPI_File_iwrite_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_File_iwrite_all";
  LZ_MPI_ENTRY(kFn);
  return start_at(kFn, fh, true, Position::kIndividual, 0, buf, count, datatype, request);
}

int MPI_File_iwrite_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_File_iwrite_shared";
  LZ_MPI_ENTRY(kFn);
  return start_at(kFn, fh, true, Position::kShared, 0, buf, count, datatype, request);
}

}  // extern "C"
