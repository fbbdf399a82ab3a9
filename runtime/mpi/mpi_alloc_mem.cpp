// MPI binding: MPI_Alloc_mem / MPI_Free_mem (MPI-3.1 section 8.2).
//
// The memory is page-aligned and ordinary (so a core image holds it and a
// restored rank has it at the same address); what makes it special is the
// RegistrationCache: a rendezvous send from it over a transport that
// registers memory (ucx, ofi) reuses one registration of the whole area
// instead of registering and deregistering the buffer each time. No info
// key changes the allocation; the standard lets an implementation ignore
// them all, and the info object is only checked for validity.

#include <cerrno>
#include <cstring>
#include <string>

#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "mpi/info.h"
#include "p2p/registration_cache.h"

using lz::rt::mpi_error;

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  static const char* kFn = "MPI_Alloc_mem";
  LZ_MPI_ENTRY(kFn);
  if (size < 0) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "negative size " + std::to_string(size));
  if (info != MPI_INFO_NULL && !info->valid())
    return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_INFO, "invalid info object (freed)");
  if (baseptr == nullptr) return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_ARG, "baseptr is NULL");
  // Size 0 still gets an address of its own, which MPI_Free_mem takes back.
  int rc = 0;
  void* p = lz::rt::registration_cache().allocate_area(static_cast<size_t>(size), &rc);
  if (p == nullptr)
    return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_NO_MEM,
                     "cannot allocate " + std::to_string(size) + " bytes (" + std::strerror(rc) + ")");
  *static_cast<void**>(baseptr) = p;
  return MPI_SUCCESS;
}

int MPI_Free_mem(void* base) {
  static const char* kFn = "MPI_Free_mem";
  LZ_MPI_ENTRY(kFn);
  if (!lz::rt::registration_cache().free_area(base))
    return mpi_error(MPI_COMM_WORLD, kFn, MPI_ERR_BASE, "the address was not returned by MPI_Alloc_mem (or was freed)");
  return MPI_SUCCESS;
}
