// MPI binding: the Fortran 90 parameterized types (MPI-3.1 section 17.1.9)
// and MPI_Type_match_size. Their answers are the Fortran types of the sizes
// gfortran has and mpi.h defines: INTEGER1/2/4/8, REAL4/8/16, COMPLEX (2 x
// REAL4), DOUBLE COMPLEX (2 x REAL8) and COMPLEX32 (2 x REAL16). gfortran's
// REAL(10) (x87, what SELECTED_REAL_KIND gives for 16-18 digits or a range
// above 307 with at most 18) has no MPI type, so those are refused.
#include <string>

#include "lazarus/datatype/datatype.h"
#include "mpi.h"
#include "mpi/datatype/type_args.h"
#include "mpi/entry.h"
#include "mpi/errors.h"

namespace {

using lz::dt::Datatype;
using lz::rt::type_args::arg_error;

// The REAL kind (4, 8 or 16 bytes) of decimal precision p and exponent
// range r (MPI_UNDEFINED: any), as gfortran's SELECTED_REAL_KIND(p, r) picks
// it; 0 if none or if it picks REAL(10).
int real_bytes(int p, int r) {
  const bool any_p = p == MPI_UNDEFINED, any_r = r == MPI_UNDEFINED;
  auto fits = [&](int max_p, int max_r) { return (any_p || (p >= 0 && p <= max_p)) && (any_r || (r >= 0 && r <= max_r)); };
  if (fits(6, 37)) return 4;
  if (fits(15, 307)) return 8;
  if (fits(18, 4931)) return 0;  // REAL(10)
  if (fits(33, 4931)) return 16;
  return 0;
}

std::string pr(int p, int r) {
  auto one = [](int v) { return v == MPI_UNDEFINED ? std::string("MPI_UNDEFINED") : std::to_string(v); };
  return "precision " + one(p) + " and range " + one(r);
}

int f90_real_or_complex(const char* fn, bool complex, int p, int r, MPI_Datatype* newtype) {
  if (newtype == nullptr) return arg_error(fn, "newtype is NULL");
  if (p == MPI_UNDEFINED && r == MPI_UNDEFINED) return arg_error(fn, "p and r are both MPI_UNDEFINED");
  const int bytes = real_bytes(p, r);
  if (bytes == 0)
    return arg_error(fn, "no " + std::string(complex ? "COMPLEX" : "REAL") + " kind has " + pr(p, r) +
                             " here (REAL4: 6 digits, range 37; REAL8: 15 digits, range 307; REAL16: 33 digits, "
                             "range 4931, for more than 18 digits: gfortran's REAL(10) has no MPI type)");
  const MPI_Datatype basic = complex ? (bytes == 4 ? MPI_COMPLEX : bytes == 8 ? MPI_DOUBLE_COMPLEX : MPI_COMPLEX32)
                                     : (bytes == 4 ? MPI_REAL4 : bytes == 8 ? MPI_REAL8 : MPI_REAL16);
  *newtype = const_cast<MPI_Datatype>(
      Datatype::f90(complex ? Datatype::Combiner::kF90Complex : Datatype::Combiner::kF90Real, {p, r}, *basic));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_create_f90_real";
  LZ_MPI_ENTRY(kFn);
  return f90_real_or_complex(kFn, false, p, r, newtype);
}

int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_create_f90_complex";
  LZ_MPI_ENTRY(kFn);
  return f90_real_or_complex(kFn, true, p, r, newtype);
}

int MPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  static constexpr const char* kFn = "MPI_Type_create_f90_integer";
  LZ_MPI_ENTRY(kFn);
  if (newtype == nullptr) return arg_error(kFn, "newtype is NULL");
  // SELECTED_INT_KIND(r): the smallest integer holding every value of
  // magnitude below 10^r.
  const MPI_Datatype basic = r < 0     ? MPI_DATATYPE_NULL
                             : r <= 2  ? MPI_INTEGER1
                             : r <= 4  ? MPI_INTEGER2
                             : r <= 9  ? MPI_INTEGER4
                             : r <= 18 ? MPI_INTEGER8
                             : r <= 38 ? MPI_INTEGER16
                                       : MPI_DATATYPE_NULL;
  if (basic == MPI_DATATYPE_NULL)
    return arg_error(kFn, "no INTEGER kind has range " + std::to_string(r) + " here (INTEGER16: 38)");
  *newtype = const_cast<MPI_Datatype>(Datatype::f90(Datatype::Combiner::kF90Integer, {r}, *basic));
  return MPI_SUCCESS;
}

int MPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  static constexpr const char* kFn = "MPI_Type_match_size";
  LZ_MPI_ENTRY(kFn);
  if (datatype == nullptr) return arg_error(kFn, "datatype is NULL");
  MPI_Datatype t = MPI_DATATYPE_NULL;
  switch (typeclass) {
    case MPI_TYPECLASS_INTEGER:
      t = size == 1    ? MPI_INTEGER1
          : size == 2  ? MPI_INTEGER2
          : size == 4  ? MPI_INTEGER4
          : size == 8  ? MPI_INTEGER8
          : size == 16 ? MPI_INTEGER16
                       : t;
      break;
    case MPI_TYPECLASS_REAL:
      t = size == 4 ? MPI_REAL4 : size == 8 ? MPI_REAL8 : size == 16 ? MPI_REAL16 : t;
      break;
    case MPI_TYPECLASS_COMPLEX:
      t = size == 8 ? MPI_COMPLEX : size == 16 ? MPI_DOUBLE_COMPLEX : size == 32 ? MPI_COMPLEX32 : t;
      break;
    default:
      return arg_error(kFn, "typeclass " + std::to_string(typeclass) +
                                " is none of MPI_TYPECLASS_INTEGER, MPI_TYPECLASS_REAL, MPI_TYPECLASS_COMPLEX");
  }
  if (t == MPI_DATATYPE_NULL)
    return arg_error(kFn, "no type of typeclass " + std::to_string(typeclass) + " has " + std::to_string(size) +
                              " bytes (INTEGER: 1, 2, 4, 8, 16; REAL: 4, 8, 16; COMPLEX: 8, 16, 32)");
  *datatype = t;
  return MPI_SUCCESS;
}

}  // extern "C"
