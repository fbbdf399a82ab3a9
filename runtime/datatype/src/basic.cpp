// The table of basic types: sizes, extents and alignments as the C compiler
// lays them out (pair types are the C structs MPI_MAXLOC/MPI_MINLOC use).
#include "lazarus/datatype/basic.h"

#include <complex>
#include <cstddef>
#include <iterator>

namespace lz::dt {
namespace {

template <typename V>
struct Pair {
  V value;
  int index;
};

template <typename T>
constexpr BasicInfo scalar(const char* name) {
  return {name, sizeof(T), sizeof(T), alignof(T), 1, sizeof(T), 0};
}
template <typename V>
constexpr BasicInfo pair(const char* name) {
  return {name, sizeof(V) + sizeof(int), sizeof(Pair<V>), alignof(Pair<V>), 2, sizeof(V),
          static_cast<uint32_t>(offsetof(Pair<V>, index))};
}

// Fortran's pairs: value and index of one type, no padding.
template <typename V>
constexpr BasicInfo same_pair(const char* name) {
  return {name, 2 * sizeof(V), 2 * sizeof(V), alignof(V), 2, sizeof(V), sizeof(V)};
}

// gfortran's COMPLEX(16): two binary128 parts.
struct Quad2 {
  __float128 re, im;
};

// Indexed by Basic.
constexpr BasicInfo kBasic[] = {
    scalar<char>("MPI_CHAR"),
    scalar<signed char>("MPI_SIGNED_CHAR"),
    scalar<unsigned char>("MPI_UNSIGNED_CHAR"),
    scalar<unsigned char>("MPI_BYTE"),
    scalar<wchar_t>("MPI_WCHAR"),
    scalar<short>("MPI_SHORT"),
    scalar<unsigned short>("MPI_UNSIGNED_SHORT"),
    scalar<int>("MPI_INT"),
    scalar<unsigned>("MPI_UNSIGNED"),
    scalar<long>("MPI_LONG"),
    scalar<unsigned long>("MPI_UNSIGNED_LONG"),
    scalar<long long>("MPI_LONG_LONG_INT"),  // MPI_LONG_LONG is a synonym
    scalar<unsigned long long>("MPI_UNSIGNED_LONG_LONG"),
    scalar<float>("MPI_FLOAT"),
    scalar<double>("MPI_DOUBLE"),
    scalar<long double>("MPI_LONG_DOUBLE"),
    scalar<unsigned char>("MPI_PACKED"),
    scalar<int8_t>("MPI_INT8_T"),
    scalar<int16_t>("MPI_INT16_T"),
    scalar<int32_t>("MPI_INT32_T"),
    scalar<int64_t>("MPI_INT64_T"),
    scalar<uint8_t>("MPI_UINT8_T"),
    scalar<uint16_t>("MPI_UINT16_T"),
    scalar<uint32_t>("MPI_UINT32_T"),
    scalar<uint64_t>("MPI_UINT64_T"),
    scalar<bool>("MPI_C_BOOL"),
    scalar<ptrdiff_t>("MPI_AINT"),
    scalar<long long>("MPI_OFFSET"),
    scalar<long long>("MPI_COUNT"),
    pair<float>("MPI_FLOAT_INT"),
    pair<double>("MPI_DOUBLE_INT"),
    pair<long>("MPI_LONG_INT"),
    pair<int>("MPI_2INT"),
    pair<short>("MPI_SHORT_INT"),
    pair<long double>("MPI_LONG_DOUBLE_INT"),
    scalar<int32_t>("MPI_INTEGER"),
    scalar<float>("MPI_REAL"),
    scalar<double>("MPI_DOUBLE_PRECISION"),
    scalar<std::complex<float>>("MPI_COMPLEX"),
    scalar<std::complex<double>>("MPI_DOUBLE_COMPLEX"),
    scalar<int32_t>("MPI_LOGICAL"),
    scalar<char>("MPI_CHARACTER"),
    scalar<int8_t>("MPI_INTEGER1"),
    scalar<int16_t>("MPI_INTEGER2"),
    scalar<int32_t>("MPI_INTEGER4"),
    scalar<int64_t>("MPI_INTEGER8"),
    scalar<float>("MPI_REAL4"),
    scalar<double>("MPI_REAL8"),
    same_pair<int32_t>("MPI_2INTEGER"),
    same_pair<float>("MPI_2REAL"),
    same_pair<double>("MPI_2DOUBLE_PRECISION"),
    scalar<std::complex<float>>("MPI_C_COMPLEX"),  // MPI_C_FLOAT_COMPLEX is a synonym
    scalar<std::complex<double>>("MPI_C_DOUBLE_COMPLEX"),
    scalar<std::complex<long double>>("MPI_C_LONG_DOUBLE_COMPLEX"),
    scalar<bool>("MPI_CXX_BOOL"),
    scalar<std::complex<float>>("MPI_CXX_FLOAT_COMPLEX"),
    scalar<std::complex<double>>("MPI_CXX_DOUBLE_COMPLEX"),
    scalar<std::complex<long double>>("MPI_CXX_LONG_DOUBLE_COMPLEX"),
    scalar<__float128>("MPI_REAL16"),
    scalar<std::complex<float>>("MPI_COMPLEX8"),
    scalar<std::complex<double>>("MPI_COMPLEX16"),
    scalar<Quad2>("MPI_COMPLEX32"),
    scalar<__int128>("MPI_INTEGER16"),
};
static_assert(std::size(kBasic) == static_cast<size_t>(Basic::kNumBasic));

}  // namespace

const BasicInfo& basic_info(Basic b) noexcept { return kBasic[static_cast<size_t>(b)]; }

}  // namespace lz::dt
