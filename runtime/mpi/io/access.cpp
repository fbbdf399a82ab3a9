// The blocking data accesses of MPI_File_* (file.h): positions, pointers
// and the shared pointer's protocol around one Transfer.
#include "mpi/errors.h"
#include "mpi/io/file.h"
#include "mpi/io/shared_pointer.h"

namespace lz::rt::io {

int place(const char* fn, MPI_File fh, bool write, Position at, MPI_Offset offset, const void* buf, int count,
          MPI_Datatype dt, Transfer* t) {
  *t = Transfer{fh, write, 0, const_cast<void*>(buf), count, dt};
  if (int e = check_access(fn, fh, write)) return e;
  if (at != Position::kShared && (fh->amode & MPI_MODE_SEQUENTIAL))
    return file_error(fh, fn, MPI_ERR_UNSUPPORTED_OPERATION,
                      "a file opened MPI_MODE_SEQUENTIAL has no individual pointer and no explicit offsets: use the "
                      "shared pointer (MPI_File_write_shared, _ordered)");
  if (at == Position::kExplicit && offset < 0)
    return file_error(fh, fn, MPI_ERR_ARG, "negative offset " + std::to_string(offset));
  if (int e = prepare(fn, t)) return e;
  MPI_Offset etypes = at == Position::kExplicit ? offset : fh->pointer;
  if (at == Position::kShared)
    if (int e = shared_pointer_fetch_add(fh, static_cast<MPI_Offset>(t->bytes / fh->etype_size()), &etypes))
      return file_error(fh, fn, e, "moving the shared file pointer failed");
  t->start = stream_byte(fh, etypes);
  return MPI_SUCCESS;
}

int access(const char* fn, MPI_File fh, bool write, Position at, MPI_Offset offset, const void* buf, int count,
           MPI_Datatype dt, MPI_Status* st) {
  Transfer t{fh, write, 0, nullptr, 0, dt};
  if (int e = place(fn, fh, write, at, offset, buf, count, dt, &t)) return e;
  run(&t);
  if (at == Position::kIndividual) fh->pointer += static_cast<MPI_Offset>(t.done / fh->etype_size());
  return finish(fn, t, st);
}

int access_ordered(const char* fn, MPI_File fh, bool write, const void* buf, int count, MPI_Datatype dt,
                   MPI_Status* st) {
  if (int e = check_access(fn, fh, write)) return e;
  Transfer t{fh, write, 0, const_cast<void*>(buf), count, dt};
  int bad = prepare(fn, &t);
  // Every rank takes part in the scan even when its arguments are bad, so
  // that the others do not wait forever; its part is then empty.
  MPI_Offset mine = bad ? 0 : static_cast<MPI_Offset>(t.bytes / fh->etype_size()), upto = 0;
  PMPI_Scan(&mine, &upto, 1, MPI_OFFSET, MPI_SUM, fh->comm);
  int rank = 0, size = 1;
  PMPI_Comm_rank(fh->comm, &rank);
  PMPI_Comm_size(fh->comm, &size);
  MPI_Offset base = 0;
  int e = MPI_SUCCESS;
  if (rank == size - 1) e = shared_pointer_fetch_add(fh, upto, &base);  // upto: everyone's total
  PMPI_Bcast(&base, 1, MPI_OFFSET, size - 1, fh->comm);
  if (bad) return bad;
  if (e != MPI_SUCCESS) return file_error(fh, fn, e, "moving the shared file pointer failed");
  t.start = stream_byte(fh, base + upto - mine);
  run(&t);
  return finish(fn, t, st);
}

}  // namespace lz::rt::io
