// The basic (predefined) element types of the datatype engine and their facts:
// what every derived datatype is ultimately made of, and what the reduction
// kernels dispatch on.
//
//   const lz::dt::BasicInfo& info = lz::dt::basic_info(lz::dt::Basic::kDoubleInt);
//   // info.size == 12 (packed), info.extent == 16 (in memory), info.elements == 2
#pragma once

#include <cstdint>

namespace lz::dt {

// The basic (predefined, non-derived) element types. The pair types used by
// MPI_MAXLOC / MPI_MINLOC are basic for reductions (one element is one pair)
// but count as two basic elements for MPI_Get_elements, as the standard's
// type maps say ({(float,0),(int,4)} for MPI_FLOAT_INT).
enum class Basic : uint8_t {
  kChar, kSignedChar, kUnsignedChar, kByte, kWchar, kShort, kUnsignedShort, kInt, kUnsigned, kLong,
  kUnsignedLong, kLongLong, kUnsignedLongLong, kFloat, kDouble, kLongDouble, kPacked, kInt8, kInt16, kInt32,
  kInt64, kUint8, kUint16, kUint32, kUint64, kCBool, kAint, kOffset, kCount,
  kFloatInt, kDoubleInt, kLongInt, k2Int, kShortInt, kLongDoubleInt,
  // Fortran's (mpif.h / `use mpi`), laid out as gfortran does on this ABI:
  // INTEGER and LOGICAL are 4 bytes (.TRUE. is 1), REAL 4, DOUBLE PRECISION 8,
  // COMPLEX a pair of REALs (one element). The 2INTEGER/2REAL/2DOUBLE_PRECISION
  // pairs of MPI_MAXLOC/MPI_MINLOC carry an index of the value's own type.
  kInteger, kReal, kDoublePrecision, kComplex, kDoubleComplex, kLogical, kCharacter,
  kInteger1, kInteger2, kInteger4, kInteger8, kReal4, kReal8, k2Integer, k2Real, k2DoublePrecision,
  // C99's complex types and C++'s bool and std::complex (MPI-3.1 3.2.2): one
  // element is the pair of parts; the C and C++ names of one layout are
  // distinct types with distinct names. Appended: the values above are stable.
  kCFloatComplex, kCDoubleComplex, kCLongDoubleComplex, kCxxBool, kCxxFloatComplex, kCxxDoubleComplex,
  kCxxLongDoubleComplex,
  // Fortran's size-specific REAL*16 (gfortran's REAL(16), IEEE binary128 in
  // software) and COMPLEX*8/16/32.
  kReal16, kComplex8, kComplex16, kComplex32,
  // gfortran's INTEGER(16) (__int128).
  kInteger16,
  kNumBasic
};

// Facts about a basic type: MPI name, size in bytes (packed), extent (in
// memory: pair types include the C struct's padding), alignment, and how many
// basic elements one of it counts as for MPI_Get_elements.
struct BasicInfo {
  const char* mpi_name;
  uint32_t size;
  uint32_t extent;
  uint32_t align;
  uint32_t elements;
  uint32_t first_size;    // pair types: size of the value member; others: size
  uint32_t second_offset; // pair types: offset of the index in memory; others: 0
};
const BasicInfo& basic_info(Basic b) noexcept;

}  // namespace lz::dt
