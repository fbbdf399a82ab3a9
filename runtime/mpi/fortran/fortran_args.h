// What the generated Fortran entry points (gen_fortran.py) use to turn
// gfortran's arguments into the C binding's: the sentinel COMMON blocks
// (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE, MPI_UNWEIGHTED,
// MPI_WEIGHTS_EMPTY are variables of mpif.h / `use mpi`; the binding knows
// them by address), strings with hidden lengths, and handle updates.
#pragma once

#include <cstddef>
#include <string>

#include "mpi.h"
#include "mpi/fortran/handle_table.h"

// A Fortran status is this many INTEGERs (mpif.h's MPI_STATUS_SIZE).
#define LZ_F_STATUS_SIZE 6
static_assert(sizeof(MPI_Status) == LZ_F_STATUS_SIZE * sizeof(MPI_Fint), "MPI_STATUS_SIZE is the C status' size");

// The COMMON blocks of mpif.h (gfortran names /lz_mpif_bottom/ lz_mpif_bottom_).
extern "C" {
extern MPI_Fint lz_mpif_bottom_;
extern MPI_Fint lz_mpif_in_place_;
extern MPI_Fint lz_mpif_status_ignore_[LZ_F_STATUS_SIZE];
extern MPI_Fint lz_mpif_statuses_ignore_[LZ_F_STATUS_SIZE];
extern MPI_Fint lz_mpif_unweighted_[1];
extern MPI_Fint lz_mpif_weights_empty_[1];
extern MPI_Fint lz_mpif_errcodes_ignore_[1];
extern char lz_mpif_argv_null_[1];
extern char lz_mpif_argvs_null_[1];
}

// `use mpi_f08` programs may leave ierror out (it is OPTIONAL there), and
// gfortran then passes a null pointer: a hand-written entry point starts
// with this, and writes through `ierror` as before.
#define LZ_F_OPTIONAL_IERROR(ierror) \
  MPI_Fint lz_f_ierror_absent_ = 0;  \
  if ((ierror) == nullptr) (ierror) = &lz_f_ierror_absent_

// The profiling name of a Fortran entry point (pmpi_send_ for mpi_send_,
// MPI-3.1 section 14.2): an alias, so a profiling layer that defines
// mpi_send_ itself still reaches the binding through pmpi_send_.
#define LZ_F_PMPI(entry) extern "C" __typeof__(entry) p##entry __attribute__((alias(#entry)))

namespace lz::fortran {

// A choice buffer as C sees it: MPI_BOTTOM and MPI_IN_PLACE translated.
inline void* lz_f_buf(void* p) {
  if (p == &lz_mpif_bottom_) return MPI_BOTTOM;
  if (p == &lz_mpif_in_place_) return MPI_IN_PLACE;
  return p;
}

inline int* lz_f_weights(MPI_Fint* p) {
  if (p == lz_mpif_unweighted_) return MPI_UNWEIGHTED;
  if (p == lz_mpif_weights_empty_) return MPI_WEIGHTS_EMPTY;
  return p;
}

inline bool lz_f_status_ignored(const MPI_Fint* s) { return s == lz_mpif_status_ignore_ || s == nullptr; }
inline bool lz_f_statuses_ignored(const MPI_Fint* s) { return s == lz_mpif_statuses_ignore_ || s == nullptr; }

// A count as a vector length (negative counts convert nothing: the C call
// reports them).
inline size_t lz_f_len(long n) { return n > 0 ? static_cast<size_t>(n) : 0; }

// A CHARACTER*(len) argument as a C string: trailing blanks are not part of
// a Fortran string's value (MPI-3.1 section 17.1.12), nor leading ones.
std::string lz_f_string(const char* s, size_t len);
// The same with its leading blanks kept (only the trailing padding dropped).
std::string lz_f_string_keep_leading(const char* s, size_t len);
// Copies a C string into a CHARACTER*(len), blank padded, truncated to len.
void lz_f_copy_string(const char* c, char* f, size_t len);

// The Fortran value of a handle after a call that may have freed it: the old
// value is given back when the C handle became null (for a request: it
// completed, and what completes with it is done, request_done()).
int lz_f_update(Kind kind, MPI_Fint old, void* now);
// Called when the request of Fortran value `request` has completed and been
// freed: MPI_COMM_IDUP's communicator is written to the program's variable
// then (fortran_special.cpp).
void request_done(MPI_Fint request);

// Array lengths the binding computes: the communicator's size (its remote
// group's on an intercommunicator), the dimensions of its Cartesian
// topology, its in/out neighbour counts (0 when the communicator is not
// valid or has no topology: the C call reports it).
int lz_f_comm_size(MPI_Comm comm);
int lz_f_cartdim(MPI_Comm comm);
int lz_f_indegree(MPI_Comm comm);
int lz_f_outdegree(MPI_Comm comm);

}  // namespace lz::fortran
