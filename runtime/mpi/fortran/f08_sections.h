// Array sections as choice buffers of mpi_f08 (MPI_SUBARRAYS_SUPPORTED,
// MPI-3.1 section 17.1.12). The module declares a choice buffer
// TYPE(*), DIMENSION(..) in a BIND(C) interface, so gfortran passes its
// descriptor (TS 29113 CFI_cdesc_t) instead of a copy: the binding sees
// the section itself, and an MPI_IRECV into a(:, 2:6:2) lands in a when
// the request completes, not in a temporary gfortran freed on return.
//
// Sections, one per call (the generated lz_f08_xxx wrappers of
// fortran_bindings.cpp, gen_fortran.py):
//   - a contiguous array, a scalar, MPI_BOTTOM or MPI_IN_PLACE: its address,
//     nothing copied;
//   - a non-contiguous section: its elements in order in a buffer of their
//     own (copied in before the call), which the call uses as the
//     contiguous buffer MPI sees; an out buffer is copied back after a
//     blocking call, or when the request of a non-blocking one completes
//     (request_done, fortran_special.cpp);
//   - a persistent request (MPI_SEND_INIT ...) on a non-contiguous section
//     is refused (MPI_ERR_BUFFER, naming the fix): each MPI_START would have
//     to copy it again.
//
//   Sections s("MPI_Irecv", Sections::kNonblocking);
//   void* c_buf = s.add(buf, /*out=*/true);
//   if (int rc = s.refusal(comm); rc != MPI_SUCCESS) { *ierror = rc; return; }
//   mpi_irecv_(c_buf, ..., request, ierror);
//   s.finish(*ierror, request);
#pragma once

// The descriptor comes with gfortran (libgfortran-dev); without it there is
// no mpi_f08 module either, and nothing here is built.
#if __has_include(<ISO_Fortran_binding.h>)
#define LZ_F08_SECTIONS 1
#include <ISO_Fortran_binding.h>

#include <memory>
#include <vector>

#include "mpi.h"

namespace lz::fortran {

// Whether the array `d` describes is contiguous (a scalar, an assumed-size
// array, an empty one, or strides that follow the extents).
bool section_contiguous(const CFI_cdesc_t* d);

class Sections {
 public:
  enum Call { kBlocking, kNonblocking, kPersistent };
  Sections(const char* function, Call call);
  ~Sections();
  Sections(const Sections&) = delete;
  Sections& operator=(const Sections&) = delete;

  // The address the Fortran entry point takes for buffer `d` (`out`: the
  // call may write it).
  void* add(CFI_cdesc_t* d, bool out);
  // MPI_SUCCESS, or the error class raised on `comm` for a section the
  // call cannot take (a persistent request's), or memory that ran out.
  int refusal(MPI_Comm comm) const;
  // After the call: copies back now (blocking), or when the request
  // completes (non-blocking, rc MPI_SUCCESS).
  void finish(int rc, const MPI_Fint* request);

  struct Copy;  // f08_sections.cpp

 private:
  const char* function_;
  Call call_;
  bool refused_ = false, no_memory_ = false;
  std::vector<std::unique_ptr<Copy>> copies_;
};

// The request of Fortran value `request` completed: its sections are
// copied back and freed (from request_done).
void sections_done(MPI_Fint request);
// MPI_REQUEST_FREE of `request`, which may still be under way: its copies
// are let go without being freed or copied back (MPI says nothing more of
// the request; a receive into a freed request's buffer is the program's
// risk, as in C).
void sections_forget(MPI_Fint request);

}  // namespace lz::fortran

#define lz_f08_sections_forget(request) lz::fortran::sections_forget(request)
#else
#define lz_f08_sections_forget(request) (void)(request)
#endif  // __has_include(<ISO_Fortran_binding.h>)
