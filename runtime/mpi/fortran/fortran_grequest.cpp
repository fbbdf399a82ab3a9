// MPI_GREQUEST_START with callbacks written in Fortran (MPI-3.1 section
// 12.2): the three procedures and the address of the program's
// INTEGER(KIND=MPI_ADDRESS_KIND) extra state ride in the C request's
// extra_state; C's callbacks call them with Fortran's arguments (a Fortran
// status, a LOGICAL `complete`). The callbacks get the program's variable
// itself, as with MPICH and Open MPI (MPICH's greqf counts on it): it must
// outlive the request.
#include "mpi.h"
#include "mpi/fortran/fortran_args.h"

namespace {

using FortranQuery = void(MPI_Aint* extra_state, MPI_Fint* status, MPI_Fint* ierror);
using FortranFree = void(MPI_Aint* extra_state, MPI_Fint* ierror);
using FortranCancel = void(MPI_Aint* extra_state, MPI_Fint* complete, MPI_Fint* ierror);

struct FortranGrequest {
  FortranQuery* query;
  FortranFree* free;
  FortranCancel* cancel;
  MPI_Aint* extra;
};

int grequest_query(void* extra_state, MPI_Status* status) {
  auto* g = static_cast<FortranGrequest*>(extra_state);
  MPI_Fint f_status[LZ_F_STATUS_SIZE] = {};
  MPI_Status_c2f(status, f_status);
  MPI_Fint ierror = MPI_SUCCESS;
  g->query(g->extra, f_status, &ierror);
  MPI_Status_f2c(f_status, status);
  return ierror;
}

// Called once, when the request is freed: the binding's record goes with it.
int grequest_free(void* extra_state) {
  auto* g = static_cast<FortranGrequest*>(extra_state);
  MPI_Fint ierror = MPI_SUCCESS;
  g->free(g->extra, &ierror);
  delete g;
  return ierror;
}

int grequest_cancel(void* extra_state, int complete) {
  auto* g = static_cast<FortranGrequest*>(extra_state);
  MPI_Fint f_complete = complete != 0, ierror = MPI_SUCCESS;
  g->cancel(g->extra, &f_complete, &ierror);
  return ierror;
}

}  // namespace

extern "C" void mpi_grequest_start_(FortranQuery* query_fn, FortranFree* free_fn, FortranCancel* cancel_fn,
                                    MPI_Aint* extra_state, MPI_Fint* request, MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  auto* g = new FortranGrequest{query_fn, free_fn, cancel_fn, extra_state};
  MPI_Request c_request = MPI_REQUEST_NULL;
  *ierror = MPI_Grequest_start(grequest_query, grequest_free, grequest_cancel, g, &c_request);
  if (*ierror != MPI_SUCCESS) {
    delete g;
    return;
  }
  *request = MPI_Request_c2f(c_request);
}

// Profiling names (fortran_args.h).
LZ_F_PMPI(mpi_grequest_start_);
