// MPI_Xxx_f2c / MPI_Xxx_c2f and MPI_Status_f2c / _c2f (MPI-3.1 section
// 17.2.4): the C side of the Fortran handles of handle_table.h. They touch no
// runtime state, so they are valid before MPI_Init and after MPI_Finalize.
#include <cstring>

#include "mpi.h"
#include "mpi/fortran/fortran_args.h"
#include "mpi/fortran/handle_table.h"

using lz::fortran::Kind;
using lz::fortran::table;

#define LZ_F2C(Name, CType, K)                                                                  \
  extern "C" CType MPI_##Name##_f2c(MPI_Fint h) { return static_cast<CType>(table(K).f2c(h)); } \
  extern "C" MPI_Fint MPI_##Name##_c2f(CType h) { return table(K).c2f(h); }

LZ_F2C(Comm, MPI_Comm, Kind::kComm)
LZ_F2C(Group, MPI_Group, Kind::kGroup)
LZ_F2C(Type, MPI_Datatype, Kind::kDatatype)
LZ_F2C(Op, MPI_Op, Kind::kOp)
LZ_F2C(Request, MPI_Request, Kind::kRequest)
LZ_F2C(Errhandler, MPI_Errhandler, Kind::kErrhandler)
LZ_F2C(Info, MPI_Info, Kind::kInfo)
LZ_F2C(Message, MPI_Message, Kind::kMessage)
LZ_F2C(Win, MPI_Win, Kind::kWin)
LZ_F2C(File, MPI_File, Kind::kFile)
#undef LZ_F2C

// The Fortran status is the C one's bytes (fortran_args.h asserts the size):
// MPI_SOURCE, MPI_TAG, MPI_ERROR at Fortran indices 1, 2, 3.
extern "C" int MPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  if (f_status == nullptr || c_status == nullptr || f_status == lz_mpif_status_ignore_ ||
      f_status == lz_mpif_statuses_ignore_)
    return MPI_ERR_ARG;
  std::memcpy(c_status, f_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
}

extern "C" int MPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  if (f_status == nullptr || c_status == nullptr) return MPI_ERR_ARG;
  std::memcpy(f_status, c_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
}

// `use mpi_f08`'s status has the `mpi` status' layout (six INTEGERs), so the
// conversions are copies; the f08 sentinels are the `mpi` ones (gen_f08.py).
static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "TYPE(MPI_Status) is MPI_STATUS_SIZE INTEGERs");

extern "C" int MPI_Status_c2f08(const MPI_Status* c_status, MPI_F08_status* f08_status) {
  return MPI_Status_c2f(c_status, reinterpret_cast<MPI_Fint*>(f08_status));
}

extern "C" int MPI_Status_f082c(const MPI_F08_status* f08_status, MPI_Status* c_status) {
  return MPI_Status_f2c(reinterpret_cast<const MPI_Fint*>(f08_status), c_status);
}

extern "C" int MPI_Status_f2f08(const MPI_Fint* f_status, MPI_F08_status* f08_status) {
  if (f_status == nullptr || f08_status == nullptr) return MPI_ERR_ARG;
  std::memcpy(f08_status, f_status, sizeof(MPI_F08_status));
  return MPI_SUCCESS;
}

extern "C" int MPI_Status_f082f(const MPI_F08_status* f08_status, MPI_Fint* f_status) {
  if (f_status == nullptr || f08_status == nullptr) return MPI_ERR_ARG;
  std::memcpy(f_status, f08_status, sizeof(MPI_F08_status));
  return MPI_SUCCESS;
}

// MPI_STATUS_F2F08 and MPI_STATUS_F082F of both Fortran modules.
extern "C" void mpi_status_f2f08_(const MPI_Fint* f_status, MPI_F08_status* f08_status, MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  *ierror = MPI_Status_f2f08(f_status, f08_status);
}

extern "C" void mpi_status_f082f_(const MPI_F08_status* f08_status, MPI_Fint* f_status, MPI_Fint* ierror) {
  LZ_F_OPTIONAL_IERROR(ierror);
  *ierror = MPI_Status_f082f(f08_status, f_status);
}

// Profiling names (fortran_args.h).
LZ_F_PMPI(mpi_status_f2f08_);
LZ_F_PMPI(mpi_status_f082f_);
