// MPI binding: the portable "external32" representation (MPI-3.1 section
// 4.3.1 and 13.5.2): MPI_Pack_external, MPI_Unpack_external,
// MPI_Pack_external_size; and MPI_Register_datarep, which records a
// program's representation for MPI-IO.
//
// external32 is big-endian, with the sizes of the standard's table 13.2:
// integers as in C on an LP32 machine (long and unsigned long are 4 bytes,
// wchar_t 2), IEEE floats, long double as IEEE binary128 (x87's 80-bit
// extended is widened exactly), the pair types as their two members. Data
// is packed natively by the datatype engine first, then each basic element
// of the type's signature is converted. A long that does not fit in 4
// bytes keeps its low 32 bits, as MPICH does (its bytes are the same as
// MPICH 4.0.2's here for every basic type; MPICH's pair types pack nothing).
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "lazarus/datatype/datatype.h"
#include "mpi.h"
#include "mpi/datatype/datarep.h"
#include "mpi/entry.h"
#include "mpi/errors.h"

namespace {

using lz::dt::Basic;
using lz::dt::Datatype;
using lz::rt::mpi_error;

enum class Kind { kRaw, kSigned, kUnsigned, kFloat, kLongDouble };

// One member of a basic element: how it converts, its native and external32 sizes.
struct Member {
  Kind kind;
  uint32_t native, external;
};

// The members of basic type `b` (one; two for pairs and complex types).
std::vector<Member> members_of(Basic b) {
  const Member i8{Kind::kRaw, 1, 1}, s16{Kind::kSigned, 2, 2}, u16{Kind::kUnsigned, 2, 2}, s32{Kind::kSigned, 4, 4},
      u32{Kind::kUnsigned, 4, 4}, s64{Kind::kSigned, 8, 8}, u64{Kind::kUnsigned, 8, 8},
      lng{Kind::kSigned, sizeof(long), 4}, ulng{Kind::kUnsigned, sizeof(long), 4}, f32{Kind::kFloat, 4, 4},
      f64{Kind::kFloat, 8, 8}, ld{Kind::kLongDouble, sizeof(long double), 16}, f128{Kind::kFloat, 16, 16},
      i128{Kind::kFloat, 16, 16},  // INTEGER(16): as wide outside as in, so byte-reversed like a float
      wch{Kind::kUnsigned, sizeof(wchar_t), 2};
  switch (b) {
    case Basic::kChar: case Basic::kSignedChar: case Basic::kUnsignedChar: case Basic::kByte: case Basic::kPacked:
    case Basic::kInt8: case Basic::kUint8: case Basic::kCBool: case Basic::kCxxBool: case Basic::kCharacter:
    case Basic::kInteger1:
      return {i8};
    case Basic::kWchar: return {wch};
    case Basic::kShort: case Basic::kInt16: case Basic::kInteger2: return {s16};
    case Basic::kUnsignedShort: case Basic::kUint16: return {u16};
    case Basic::kInt: case Basic::kInt32: case Basic::kInteger: case Basic::kInteger4: case Basic::kLogical:
      return {s32};
    case Basic::kUnsigned: case Basic::kUint32: return {u32};
    case Basic::kLong: return {lng};
    case Basic::kUnsignedLong: return {ulng};
    case Basic::kLongLong: case Basic::kInt64: case Basic::kInteger8: case Basic::kAint: case Basic::kOffset:
    case Basic::kCount:
      return {s64};
    case Basic::kUnsignedLongLong: case Basic::kUint64: return {u64};
    case Basic::kFloat: case Basic::kReal: case Basic::kReal4: return {f32};
    case Basic::kDouble: case Basic::kDoublePrecision: case Basic::kReal8: return {f64};
    case Basic::kLongDouble: return {ld};
    case Basic::kComplex: case Basic::kCFloatComplex: case Basic::kCxxFloatComplex: case Basic::k2Real:
      return {f32, f32};
    case Basic::kDoubleComplex: case Basic::kCDoubleComplex: case Basic::kCxxDoubleComplex:
    case Basic::k2DoublePrecision:
      return {f64, f64};
    case Basic::kCLongDoubleComplex: case Basic::kCxxLongDoubleComplex: return {ld, ld};
    case Basic::kReal16: return {f128};
    case Basic::kComplex8: return {f32, f32};
    case Basic::kComplex16: return {f64, f64};
    case Basic::kComplex32: return {f128, f128};
    case Basic::kInteger16: return {i128};
    case Basic::kFloatInt: return {f32, s32};
    case Basic::kDoubleInt: return {f64, s32};
    case Basic::kLongInt: return {lng, s32};
    case Basic::k2Int: case Basic::k2Integer: return {s32, s32};
    case Basic::kShortInt: return {s16, s32};
    case Basic::kLongDoubleInt: return {ld, s32};
    case Basic::kNumBasic: break;
  }
  return {};
}

// x87 80-bit extended (little-endian in 16 bytes) <-> IEEE binary128
// (big-endian): the same sign and biased exponent; the 63 fraction bits
// below x87's explicit integer bit are the top of binary128's 112.
void ld_to_external(const unsigned char* in, unsigned char* out) {
  uint64_t mant;
  uint16_t se;
  std::memcpy(&mant, in, 8);
  std::memcpy(&se, in + 8, 2);
  const uint64_t frac = mant & 0x7fffffffffffffffull;  // 63 bits
  // binary128 big-endian: 16 bits sign+exponent, then 112 fraction bits.
  const uint64_t hi = (static_cast<uint64_t>(se) << 48) | (frac >> 15);  // 48 fraction bits
  const uint64_t lo = frac << 49;                                         // the other 15, then zeros
  for (int k = 0; k < 8; ++k) {
    out[k] = static_cast<unsigned char>(hi >> (56 - 8 * k));
    out[8 + k] = static_cast<unsigned char>(lo >> (56 - 8 * k));
  }
}

void ld_from_external(const unsigned char* in, unsigned char* out) {
  uint64_t hi = 0, lo = 0;
  for (int k = 0; k < 8; ++k) {
    hi = (hi << 8) | in[k];
    lo = (lo << 8) | in[8 + k];
  }
  const uint16_t se = static_cast<uint16_t>(hi >> 48);
  const uint64_t frac = ((hi & 0xffffffffffffull) << 15) | (lo >> 49);
  // The explicit integer bit: 1 for normal numbers, 0 for zeros and subnormals.
  const bool normal = (se & 0x7fff) != 0;
  const uint64_t mant = frac | (normal ? 0x8000000000000000ull : 0);
  std::memset(out, 0, sizeof(long double));
  std::memcpy(out, &mant, 8);
  std::memcpy(out + 8, &se, 2);
}

void to_external(const Member& m, const unsigned char* in, unsigned char* out) {
  switch (m.kind) {
    case Kind::kRaw: std::memcpy(out, in, m.native); return;
    case Kind::kLongDouble: ld_to_external(in, out); return;
    case Kind::kFloat:
      for (uint32_t k = 0; k < m.native; ++k) out[k] = in[m.native - 1 - k];
      return;
    case Kind::kSigned:
    case Kind::kUnsigned: {  // the low `external` bytes, big-endian
      uint64_t v = 0;
      std::memcpy(&v, in, m.native);  // little-endian host
      for (uint32_t k = 0; k < m.external; ++k) out[k] = static_cast<unsigned char>(v >> (8 * (m.external - 1 - k)));
      return;
    }
  }
}

void from_external(const Member& m, const unsigned char* in, unsigned char* out) {
  switch (m.kind) {
    case Kind::kRaw: std::memcpy(out, in, m.native); return;
    case Kind::kLongDouble: ld_from_external(in, out); return;
    case Kind::kFloat:
      for (uint32_t k = 0; k < m.native; ++k) out[k] = in[m.native - 1 - k];
      return;
    case Kind::kSigned:
    case Kind::kUnsigned: {
      uint64_t v = 0;
      for (uint32_t k = 0; k < m.external; ++k) v = (v << 8) | in[k];
      if (m.kind == Kind::kSigned && m.external < 8 && (v >> (8 * m.external - 1)) != 0)
        v |= ~uint64_t{0} << (8 * m.external);  // sign-extended
      std::memcpy(out, &v, m.native);
      return;
    }
  }
}

// external32 bytes of one element of `dt`.
size_t external_size(const Datatype& dt) {
  size_t n = 0;
  for (const Datatype::Run& r : dt.signature())
    for (const Member& m : members_of(r.type)) n += m.external * r.count;
  return n;
}

// Converts `count` elements of `dt` between the native packed form and
// external32 (`to`: native -> external).
void convert(const Datatype& dt, int count, const unsigned char* in, unsigned char* out, bool to) {
  std::vector<std::vector<Member>> members;  // per run of the signature
  for (const Datatype::Run& r : dt.signature()) members.push_back(members_of(r.type));
  for (int e = 0; e < count; ++e)
    for (size_t k = 0; k < members.size(); ++k) {
      const std::vector<Member>& ms = members[k];
      for (size_t i = 0; i < dt.signature()[k].count; ++i)
        for (const Member& m : ms) {
          if (to) to_external(m, in, out);
          else from_external(m, in, out);
          in += to ? m.native : m.external;
          out += to ? m.external : m.native;
        }
    }
}

int check(const char* fn, const char* datarep, int count, MPI_Datatype dt) {
  if (datarep == nullptr || std::strcmp(datarep, "external32") != 0)
    return mpi_error(MPI_COMM_NULL, fn, MPI_ERR_UNSUPPORTED_DATAREP,
                     std::string("data representation '") + (datarep ? datarep : "(null)") +
                         "': only \"external32\" packs and unpacks");
  if (count < 0) return mpi_error(MPI_COMM_NULL, fn, MPI_ERR_COUNT, "invalid count " + std::to_string(count));
  if (dt == MPI_DATATYPE_NULL) return mpi_error(MPI_COMM_NULL, fn, MPI_ERR_TYPE, "invalid datatype (MPI_DATATYPE_NULL)");
  if (!dt->is_committed())
    return mpi_error(MPI_COMM_NULL, fn, MPI_ERR_TYPE, "datatype " + dt->name() + " is not committed");
  return MPI_SUCCESS;
}

// check(), then that the packed buffer of `size` bytes holds `count`
// elements from *position on (*need: their bytes).
int check_buffer(const char* fn, const char* datarep, int count, MPI_Datatype dt, MPI_Aint size,
                 const MPI_Aint* position, size_t* need) {
  if (int e = check(fn, datarep, count, dt)) return e;
  if (position == nullptr || *position < 0) return mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "invalid position");
  *need = external_size(*dt) * static_cast<size_t>(count);
  if (static_cast<size_t>(*position) + *need > static_cast<size_t>(size < 0 ? 0 : size))
    return mpi_error(MPI_COMM_NULL, fn, MPI_ERR_TRUNCATE,
                     "the packed buffer of " + std::to_string(size) + " bytes is too small: position " +
                         std::to_string(*position) + " + " + std::to_string(*need) + " bytes");
  return MPI_SUCCESS;
}

std::map<std::string, lz::rt::datarep::Registered>& datareps() {
  static std::map<std::string, lz::rt::datarep::Registered> m;
  return m;
}

}  // namespace

namespace lz::rt::datarep {

const Registered* find(const std::string& name) {
  auto it = datareps().find(name);
  return it == datareps().end() ? nullptr : &it->second;
}
size_t external32_size(const Datatype& dt) { return external_size(dt); }
void external32_convert(const Datatype& dt, int count, const unsigned char* in, unsigned char* out, bool to) {
  convert(dt, count, in, out, to);
}

}  // namespace lz::rt::datarep

extern "C" {

int MPI_Pack_external_size(const char* datarep, int incount, MPI_Datatype datatype, MPI_Aint* size) {
  static constexpr const char* kFn = "MPI_Pack_external_size";
  LZ_MPI_ENTRY(kFn);
  if (int e = check(kFn, datarep, incount, datatype)) return e;
  if (size == nullptr) return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG, "size is NULL");
  *size = static_cast<MPI_Aint>(external_size(*datatype) * static_cast<size_t>(incount));
  return MPI_SUCCESS;
}

int MPI_Pack_external(const char* datarep, const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf,
                      MPI_Aint outsize, MPI_Aint* position) {
  static constexpr const char* kFn = "MPI_Pack_external";
  LZ_MPI_ENTRY(kFn);
  size_t need = 0;
  if (int e = check_buffer(kFn, datarep, incount, datatype, outsize, position, &need)) return e;
  std::vector<unsigned char> native(datatype->size() * static_cast<size_t>(incount) + 1);
  datatype->pack(inbuf, incount, native.data());
  convert(*datatype, incount, native.data(), static_cast<unsigned char*>(outbuf) + *position, true);
  *position += static_cast<MPI_Aint>(need);
  return MPI_SUCCESS;
}

int MPI_Unpack_external(const char* datarep, const void* inbuf, MPI_Aint insize, MPI_Aint* position, void* outbuf,
                        int outcount, MPI_Datatype datatype) {
  static constexpr const char* kFn = "MPI_Unpack_external";
  LZ_MPI_ENTRY(kFn);
  size_t need = 0;
  if (int e = check_buffer(kFn, datarep, outcount, datatype, insize, position, &need)) return e;
  const size_t native_bytes = datatype->size() * static_cast<size_t>(outcount);
  std::vector<unsigned char> native(native_bytes + 1);
  convert(*datatype, outcount, static_cast<const unsigned char*>(inbuf) + *position, native.data(), false);
  datatype->unpack(native.data(), native_bytes, outcount, outbuf);
  *position += static_cast<MPI_Aint>(need);
  return MPI_SUCCESS;
}

// Recorded for MPI-IO's file views; "native", "internal" and "external32"
// are taken.
int MPI_Register_datarep(const char* datarep, MPI_Datarep_conversion_function* read_conversion_fn,
                         MPI_Datarep_conversion_function* write_conversion_fn,
                         MPI_Datarep_extent_function* dtype_file_extent_fn, void* extra_state) {
  static constexpr const char* kFn = "MPI_Register_datarep";
  LZ_MPI_ENTRY(kFn);
  if (datarep == nullptr || *datarep == '\0' || std::strlen(datarep) > MPI_MAX_DATAREP_STRING)
    return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG,
                     "the representation's name must have 1 to MPI_MAX_DATAREP_STRING (" +
                         std::to_string(MPI_MAX_DATAREP_STRING) + ") characters");
  if (dtype_file_extent_fn == nullptr)
    return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG, "dtype_file_extent_fn is NULL");
  const std::string name(datarep);
  if (name == "native" || name == "internal" || name == "external32" || datareps().count(name))
    return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_DUP_DATAREP, "data representation '" + name + "' is defined already");
  datareps()[name] =
      lz::rt::datarep::Registered{read_conversion_fn, write_conversion_fn, dtype_file_extent_fn, extra_state};
  return MPI_SUCCESS;
}

}  // extern "C"
