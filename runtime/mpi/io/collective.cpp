// Collective data access (MPI_File_read_all, _write_at_all ...).
#include "mpi/io/file.h"

namespace lz::rt::io {

int access_all(const char* fn, MPI_File fh, bool write, bool at_pointer, MPI_Offset offset, const void* buf, int count,
               MPI_Datatype dt, MPI_Status* st) {
  return at_pointer ? access_individual(fn, fh, write, buf, count, dt, st)
                    : access_at(fn, fh, write, offset, buf, count, dt, st);
}

}  // namespace lz::rt::io
