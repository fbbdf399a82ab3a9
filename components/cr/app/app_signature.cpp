#include "app_signature.h"

#include <climits>

namespace lz::cr::app {
namespace {

using appfmt::Scalar;
using dt::Basic;

void append(appfmt::Signature& sig, Scalar s, uint64_t n) {
  if (n == 0) return;
  if (!sig.empty() && sig.back().scalar == s) sig.back().count += n;
  else sig.push_back({s, n});
}

Scalar integer(size_t bytes, bool is_signed) {
  switch (bytes) {
    case 1: return is_signed ? Scalar::kInt8 : Scalar::kUInt8;
    case 2: return is_signed ? Scalar::kInt16 : Scalar::kUInt16;
    case 4: return is_signed ? Scalar::kInt32 : Scalar::kUInt32;
    default: return is_signed ? Scalar::kInt64 : Scalar::kUInt64;
  }
}

// The scalars of one basic element: a pair type's (and a complex number's)
// two, another's one with *second left kNoSecond; false for none.
constexpr Scalar kNoSecond{};
bool scalars_of(Basic b, Scalar* first, Scalar* second) {
  *second = kNoSecond;
  switch (b) {
    case Basic::kChar: *first = Scalar::kChar; return true;
    case Basic::kSignedChar: case Basic::kInt8: *first = Scalar::kInt8; return true;
    case Basic::kUnsignedChar: case Basic::kUint8: *first = Scalar::kUInt8; return true;
    case Basic::kByte: case Basic::kPacked: *first = Scalar::kByte; return true;
    case Basic::kWchar: *first = integer(sizeof(wchar_t), WCHAR_MIN < 0); return true;
    case Basic::kShort: case Basic::kInt16: *first = Scalar::kInt16; return true;
    case Basic::kUnsignedShort: case Basic::kUint16: *first = Scalar::kUInt16; return true;
    case Basic::kInt: case Basic::kInt32: *first = Scalar::kInt32; return true;
    case Basic::kUnsigned: case Basic::kUint32: *first = Scalar::kUInt32; return true;
    case Basic::kLong: *first = integer(sizeof(long), true); return true;
    case Basic::kUnsignedLong: *first = integer(sizeof(unsigned long), false); return true;
    case Basic::kLongLong: case Basic::kInt64: case Basic::kAint: case Basic::kOffset: case Basic::kCount:
      *first = Scalar::kInt64; return true;
    case Basic::kUnsignedLongLong: case Basic::kUint64: *first = Scalar::kUInt64; return true;
    case Basic::kFloat: *first = Scalar::kFloat32; return true;
    case Basic::kDouble: *first = Scalar::kFloat64; return true;
    case Basic::kLongDouble: *first = Scalar::kFloat80; return true;
    case Basic::kCBool: case Basic::kCxxBool: *first = Scalar::kBool; return true;
    case Basic::kFloatInt: *first = Scalar::kFloat32; *second = Scalar::kInt32; return true;
    case Basic::kDoubleInt: *first = Scalar::kFloat64; *second = Scalar::kInt32; return true;
    case Basic::kLongInt: *first = integer(sizeof(long), true); *second = Scalar::kInt32; return true;
    case Basic::k2Int: *first = Scalar::kInt32; *second = Scalar::kInt32; return true;
    case Basic::kShortInt: *first = Scalar::kInt16; *second = Scalar::kInt32; return true;
    case Basic::kLongDoubleInt: *first = Scalar::kFloat80; *second = Scalar::kInt32; return true;
    case Basic::kInteger: case Basic::kInteger4: case Basic::kLogical: *first = Scalar::kInt32; return true;
    case Basic::kInteger1: *first = Scalar::kInt8; return true;
    case Basic::kInteger2: *first = Scalar::kInt16; return true;
    case Basic::kInteger8: *first = Scalar::kInt64; return true;
    case Basic::kReal: case Basic::kReal4: *first = Scalar::kFloat32; return true;
    case Basic::kDoublePrecision: case Basic::kReal8: *first = Scalar::kFloat64; return true;
    case Basic::kCharacter: *first = Scalar::kChar; return true;
    // A complex number is stored as its two parts.
    case Basic::kComplex: case Basic::kCFloatComplex: case Basic::kCxxFloatComplex: case Basic::kComplex8:
    case Basic::k2Real:
      *first = Scalar::kFloat32; *second = Scalar::kFloat32; return true;
    case Basic::kDoubleComplex: case Basic::kCDoubleComplex: case Basic::kCxxDoubleComplex: case Basic::kComplex16:
    case Basic::k2DoublePrecision:
      *first = Scalar::kFloat64; *second = Scalar::kFloat64; return true;
    case Basic::kCLongDoubleComplex: case Basic::kCxxLongDoubleComplex:
      *first = Scalar::kFloat80; *second = Scalar::kFloat80; return true;
    case Basic::k2Integer: *first = Scalar::kInt32; *second = Scalar::kInt32; return true;
    default: return false;
  }
}

}  // namespace

StatusOr<appfmt::Signature> signature_of(const lz_datatype_s& type, const std::string& variable) {
  appfmt::Signature sig;
  for (const auto& run : type.signature()) {
    Scalar a, b;
    if (!scalars_of(run.type, &a, &b))
      return InvalidArgument("variable '" + variable + "': " + type.name() + " has a basic type with no portable form");
    if (b == kNoSecond) {
      append(sig, a, run.count);
      continue;
    }
    for (size_t i = 0; i < run.count; ++i) {
      append(sig, a, 1);
      append(sig, b, 1);
    }
  }
  if (appfmt::signature_size(sig) != type.size())
    return InvalidArgument("variable '" + variable + "': " + type.name() + " packs into " + std::to_string(type.size()) +
                           " bytes, its portable signature " + appfmt::signature_text(sig) + " into " +
                           std::to_string(appfmt::signature_size(sig)));
  return sig;
}

}  // namespace lz::cr::app
