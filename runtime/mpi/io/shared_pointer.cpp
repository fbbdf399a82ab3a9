#include "mpi/io/shared_pointer.h"

#include "mpi/io/file.h"

namespace lz::rt::io {

int shared_pointer_create(MPI_File fh) {
  int rank = 0;
  PMPI_Comm_rank(fh->comm, &rank);
  MPI_Offset* base = nullptr;
  const MPI_Aint size = rank == 0 ? static_cast<MPI_Aint>(sizeof(MPI_Offset)) : 0;
  MPI_Info info;
  PMPI_Info_create(&info);
  PMPI_Info_set(info, "accumulate_ops", "same_op_no_op");
  int e = PMPI_Win_allocate(size, sizeof(MPI_Offset), info, fh->comm, &base, &fh->shared);
  PMPI_Info_free(&info);
  if (e != MPI_SUCCESS) return e;
  if (rank == 0) *base = 0;
  PMPI_Win_set_name(fh->shared, "MPI_File shared pointer");
  return PMPI_Barrier(fh->comm);  // every rank sees 0 before any moves it
}

void shared_pointer_free(MPI_File fh) {
  if (fh->shared != MPI_WIN_NULL) PMPI_Win_free(&fh->shared);
}

int shared_pointer_fetch_add(MPI_File fh, MPI_Offset etypes, MPI_Offset* before) {
  if (int e = PMPI_Win_lock(MPI_LOCK_SHARED, 0, 0, fh->shared)) return e;
  int e = PMPI_Fetch_and_op(&etypes, before, MPI_OFFSET, 0, 0, etypes == 0 ? MPI_NO_OP : MPI_SUM, fh->shared);
  const int u = PMPI_Win_unlock(0, fh->shared);
  if (e == MPI_SUCCESS && u == MPI_SUCCESS) fh->shared_added += etypes;
  return e != MPI_SUCCESS ? e : u;
}

int shared_pointer_reset(MPI_File fh, MPI_Offset etypes) {
  ++fh->shared_resets;
  fh->shared_reset_to = etypes;
  fh->shared_added = 0;
  int rank = 0;
  PMPI_Comm_rank(fh->comm, &rank);
  if (rank != 0) return MPI_SUCCESS;
  if (int e = PMPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, fh->shared)) return e;
  MPI_Offset old = 0;
  int e = PMPI_Fetch_and_op(&etypes, &old, MPI_OFFSET, 0, 0, MPI_REPLACE, fh->shared);
  const int u = PMPI_Win_unlock(0, fh->shared);
  return e != MPI_SUCCESS ? e : u;
}

}  // namespace lz::rt::io
