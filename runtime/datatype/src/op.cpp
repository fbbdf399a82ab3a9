// Reduction operations: the (op, basic type) table of MPI-3.1 5.9.2 and their
// element-wise kernels.
#include "lazarus/datatype/op.h"

#include <complex>
#include <cstring>
#include <type_traits>
#include <vector>

namespace lz::dt {
namespace {

using Kind = Op::Kind;

// Which families an op accepts (MPI-3.1 5.9.2).
enum Family : unsigned {
  kCInteger = 1, kFloating = 2, kLogical = 4, kByteFam = 8, kMultiLang = 16, kPairFam = 32, kFInteger = 64,
  kComplexFam = 128, kNone = 0
};

Family family_of(Basic b) {
  switch (b) {
    case Basic::kSignedChar: case Basic::kUnsignedChar: case Basic::kShort: case Basic::kUnsignedShort:
    case Basic::kInt: case Basic::kUnsigned: case Basic::kLong: case Basic::kUnsignedLong: case Basic::kLongLong:
    case Basic::kUnsignedLongLong: case Basic::kInt8: case Basic::kInt16: case Basic::kInt32: case Basic::kInt64:
    case Basic::kUint8: case Basic::kUint16: case Basic::kUint32: case Basic::kUint64:
      return kCInteger;
    case Basic::kFloat: case Basic::kDouble: case Basic::kLongDouble: case Basic::kReal:
    case Basic::kDoublePrecision: case Basic::kReal4: case Basic::kReal8: case Basic::kReal16:
      return kFloating;
    case Basic::kInteger: case Basic::kInteger1: case Basic::kInteger2: case Basic::kInteger4:
    case Basic::kInteger8: case Basic::kInteger16:
      return kFInteger;
    case Basic::kComplex: case Basic::kDoubleComplex: case Basic::kCFloatComplex: case Basic::kCDoubleComplex:
    case Basic::kCLongDoubleComplex: case Basic::kCxxFloatComplex: case Basic::kCxxDoubleComplex:
    case Basic::kCxxLongDoubleComplex: case Basic::kComplex8: case Basic::kComplex16: case Basic::kComplex32:
      return kComplexFam;
    case Basic::kCBool: case Basic::kCxxBool: case Basic::kLogical:
      return kLogical;
    case Basic::kByte:
      return kByteFam;
    case Basic::kAint: case Basic::kOffset: case Basic::kCount:
      return kMultiLang;
    case Basic::kFloatInt: case Basic::kDoubleInt: case Basic::kLongInt: case Basic::k2Int: case Basic::kShortInt:
    case Basic::kLongDoubleInt: case Basic::k2Integer: case Basic::k2Real: case Basic::k2DoublePrecision:
      return kPairFam;
    default:  // MPI_CHAR, MPI_WCHAR, MPI_PACKED, MPI_CHARACTER: no predefined reduction
      return kNone;
  }
}

unsigned families_of(Kind k) {
  switch (k) {
    case Kind::kMax: case Kind::kMin:
      return kCInteger | kFInteger | kFloating | kMultiLang;
    case Kind::kSum: case Kind::kProd:
      return kCInteger | kFInteger | kFloating | kMultiLang | kComplexFam;
    case Kind::kLand: case Kind::kLor: case Kind::kLxor:
      // MPI-3.1 lists C integers and logicals; MPI_AINT, MPI_OFFSET and
      // MPI_COUNT are C integers too, and MPICH (its coll/allred test) and
      // Open MPI accept them, so they are accepted here as well.
      return kCInteger | kLogical | kMultiLang;
    case Kind::kBand: case Kind::kBor: case Kind::kBxor:
      return kCInteger | kFInteger | kByteFam | kMultiLang;
    case Kind::kMaxloc: case Kind::kMinloc:
      return kPairFam;
    default:
      return 0;
  }
}

// Integer arithmetic in an unsigned type at least as wide as unsigned int:
// two's-complement wrap-around without undefined behaviour (and no promotion
// of unsigned short to a signed int that could overflow in PROD).
template <typename T>
using Wide = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T, Kind K>
void kernel(const void* in_v, void* io_v, size_t n) {
  // Loads and stores go through memcpy-able locals: buffers of derived types
  // and the packed temporaries are not necessarily aligned.
  const char* in = static_cast<const char*>(in_v);
  char* io = static_cast<char*>(io_v);
  for (size_t i = 0; i < n; ++i) {
    T a, b, r;
    std::memcpy(&a, in + i * sizeof(T), sizeof(T));
    std::memcpy(&b, io + i * sizeof(T), sizeof(T));
    if constexpr (K == Kind::kMax) {
      r = a > b ? a : b;
    } else if constexpr (K == Kind::kMin) {
      r = a < b ? a : b;
    } else if constexpr (K == Kind::kSum) {
      if constexpr (std::is_integral_v<T>) {
        r = static_cast<T>(static_cast<Wide<T>>(a) + static_cast<Wide<T>>(b));
      } else {
        r = a + b;
      }
    } else if constexpr (K == Kind::kProd) {
      if constexpr (std::is_integral_v<T>) {
        r = static_cast<T>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b));
      } else {
        r = a * b;
      }
    } else if constexpr (K == Kind::kLand) {
      r = static_cast<T>(a && b);
    } else if constexpr (K == Kind::kLor) {
      r = static_cast<T>(a || b);
    } else if constexpr (K == Kind::kLxor) {
      r = static_cast<T>(!a != !b);
    } else if constexpr (K == Kind::kBand) {
      r = static_cast<T>(a & b);
    } else if constexpr (K == Kind::kBor) {
      r = static_cast<T>(a | b);
    } else {
      r = static_cast<T>(a ^ b);
    }
    std::memcpy(io + i * sizeof(T), &r, sizeof(T));
  }
}

// SUM and PROD of complex numbers (Fortran COMPLEX, DOUBLE COMPLEX).
template <typename T>
bool dispatch_complex(Kind k, const void* in_v, void* io_v, size_t n) {
  if (k != Kind::kSum && k != Kind::kProd) return false;
  const char* in = static_cast<const char*>(in_v);
  char* io = static_cast<char*>(io_v);
  for (size_t i = 0; i < n; ++i) {
    std::complex<T> a, b;
    std::memcpy(&a, in + i * sizeof(a), sizeof(a));
    std::memcpy(&b, io + i * sizeof(b), sizeof(b));
    b = k == Kind::kSum ? a + b : a * b;
    std::memcpy(io + i * sizeof(b), &b, sizeof(b));
  }
  return true;
}

// COMPLEX(16): std::complex is defined for float, double and long double
// only, so the parts of binary128 are combined here: (a+bi)(c+di) =
// (ac-bd) + (ad+bc)i.
bool dispatch_quad_complex(Kind k, const void* in_v, void* io_v, size_t n) {
  if (k != Kind::kSum && k != Kind::kProd) return false;
  const char* in = static_cast<const char*>(in_v);
  char* io = static_cast<char*>(io_v);
  for (size_t i = 0; i < n; ++i) {
    __float128 a[2], b[2];
    std::memcpy(a, in + i * sizeof(a), sizeof(a));
    std::memcpy(b, io + i * sizeof(b), sizeof(b));
    const __float128 re = k == Kind::kSum ? a[0] + b[0] : a[0] * b[0] - a[1] * b[1];
    const __float128 im = k == Kind::kSum ? a[1] + b[1] : a[0] * b[1] + a[1] * b[0];
    b[0] = re;
    b[1] = im;
    std::memcpy(io + i * sizeof(b), b, sizeof(b));
  }
  return true;
}

// MAXLOC/MINLOC on (value, index) pairs at `stride` bytes apart with the
// index, of type I (int in C, the value's type in Fortran), at `index_offset`
// (memory layout: the C struct; packed: right after the value). Ties keep the
// lower index, as MPI specifies.
template <typename V, bool kMax, typename I = int>
void loc_kernel(const void* in_v, void* io_v, size_t n, size_t stride, size_t index_offset) {
  const char* in = static_cast<const char*>(in_v);
  char* io = static_cast<char*>(io_v);
  for (size_t i = 0; i < n; ++i) {
    V a, b;
    I ia, ib;
    std::memcpy(&a, in + i * stride, sizeof(V));
    std::memcpy(&ia, in + i * stride + index_offset, sizeof(I));
    std::memcpy(&b, io + i * stride, sizeof(V));
    std::memcpy(&ib, io + i * stride + index_offset, sizeof(I));
    bool take_in = kMax ? (a > b) : (a < b);
    if (take_in) {
      std::memcpy(io + i * stride, &a, sizeof(V));
      std::memcpy(io + i * stride + index_offset, &ia, sizeof(I));
    } else if (a == b && ia < ib) {
      std::memcpy(io + i * stride + index_offset, &ia, sizeof(I));
    }
  }
}

template <typename T>
bool dispatch_arith(Kind k, const void* in, void* io, size_t n) {
  switch (k) {
    case Kind::kMax: kernel<T, Kind::kMax>(in, io, n); return true;
    case Kind::kMin: kernel<T, Kind::kMin>(in, io, n); return true;
    case Kind::kSum: kernel<T, Kind::kSum>(in, io, n); return true;
    case Kind::kProd: kernel<T, Kind::kProd>(in, io, n); return true;
    default: break;
  }
  // __int128 (INTEGER16) is not std::is_integral in strict C++.
  if constexpr (std::is_integral_v<T> || std::is_same_v<T, __int128>) {
    switch (k) {
      case Kind::kLand: kernel<T, Kind::kLand>(in, io, n); return true;
      case Kind::kLor: kernel<T, Kind::kLor>(in, io, n); return true;
      case Kind::kLxor: kernel<T, Kind::kLxor>(in, io, n); return true;
      case Kind::kBand: kernel<T, Kind::kBand>(in, io, n); return true;
      case Kind::kBor: kernel<T, Kind::kBor>(in, io, n); return true;
      case Kind::kBxor: kernel<T, Kind::kBxor>(in, io, n); return true;
      default: break;
    }
  }
  return false;
}

template <typename V, typename I = int>
void dispatch_loc(Kind k, const void* in, void* io, size_t n, size_t stride, size_t index_offset) {
  if (k == Kind::kMaxloc) {
    loc_kernel<V, true, I>(in, io, n, stride, index_offset);
  } else {
    loc_kernel<V, false, I>(in, io, n, stride, index_offset);
  }
}

// Pair kernels with an explicit layout (memory or packed).
void apply_pair(Kind k, Basic b, const void* in, void* io, size_t n, bool packed) {
  const BasicInfo& info = basic_info(b);
  size_t stride = packed ? info.size : info.extent;
  size_t idx = packed ? info.first_size : info.second_offset;
  switch (b) {
    case Basic::kFloatInt: dispatch_loc<float>(k, in, io, n, stride, idx); break;
    case Basic::kDoubleInt: dispatch_loc<double>(k, in, io, n, stride, idx); break;
    case Basic::kLongInt: dispatch_loc<long>(k, in, io, n, stride, idx); break;
    case Basic::k2Int: dispatch_loc<int>(k, in, io, n, stride, idx); break;
    case Basic::kShortInt: dispatch_loc<short>(k, in, io, n, stride, idx); break;
    case Basic::kLongDoubleInt: dispatch_loc<long double>(k, in, io, n, stride, idx); break;
    case Basic::k2Integer: dispatch_loc<int32_t, int32_t>(k, in, io, n, stride, idx); break;
    case Basic::k2Real: dispatch_loc<float, float>(k, in, io, n, stride, idx); break;
    case Basic::k2DoublePrecision: dispatch_loc<double, double>(k, in, io, n, stride, idx); break;
    default: break;
  }
}

}  // namespace

bool op_defined_on(Op::Kind k, Basic b) { return (families_of(k) & family_of(b)) != 0; }

bool apply_basic(Op::Kind k, Basic b, const void* in, void* io, size_t n) {
  if (k == Op::Kind::kNoOp) return true;
  if (k == Op::Kind::kReplace) {
    std::memmove(io, in, n * basic_info(b).extent);
    return true;
  }
  if (!op_defined_on(k, b)) return false;
  switch (b) {
    case Basic::kSignedChar: return dispatch_arith<signed char>(k, in, io, n);
    case Basic::kUnsignedChar: return dispatch_arith<unsigned char>(k, in, io, n);
    case Basic::kByte: return dispatch_arith<unsigned char>(k, in, io, n);
    case Basic::kShort: return dispatch_arith<short>(k, in, io, n);
    case Basic::kUnsignedShort: return dispatch_arith<unsigned short>(k, in, io, n);
    case Basic::kInt: return dispatch_arith<int>(k, in, io, n);
    case Basic::kUnsigned: return dispatch_arith<unsigned>(k, in, io, n);
    case Basic::kLong: return dispatch_arith<long>(k, in, io, n);
    case Basic::kUnsignedLong: return dispatch_arith<unsigned long>(k, in, io, n);
    case Basic::kLongLong: return dispatch_arith<long long>(k, in, io, n);
    case Basic::kUnsignedLongLong: return dispatch_arith<unsigned long long>(k, in, io, n);
    case Basic::kFloat: return dispatch_arith<float>(k, in, io, n);
    case Basic::kDouble: return dispatch_arith<double>(k, in, io, n);
    case Basic::kLongDouble: return dispatch_arith<long double>(k, in, io, n);
    case Basic::kInt8: return dispatch_arith<int8_t>(k, in, io, n);
    case Basic::kInt16: return dispatch_arith<int16_t>(k, in, io, n);
    case Basic::kInt32: return dispatch_arith<int32_t>(k, in, io, n);
    case Basic::kInt64: return dispatch_arith<int64_t>(k, in, io, n);
    case Basic::kUint8: return dispatch_arith<uint8_t>(k, in, io, n);
    case Basic::kUint16: return dispatch_arith<uint16_t>(k, in, io, n);
    case Basic::kUint32: return dispatch_arith<uint32_t>(k, in, io, n);
    case Basic::kUint64: return dispatch_arith<uint64_t>(k, in, io, n);
    case Basic::kCBool: case Basic::kCxxBool:
      // Logical ops on bool: computed on the byte value (0 or 1).
      return dispatch_arith<unsigned char>(k, in, io, n);
    case Basic::kAint: return dispatch_arith<ptrdiff_t>(k, in, io, n);
    case Basic::kOffset: case Basic::kCount: return dispatch_arith<long long>(k, in, io, n);
    case Basic::kInteger: case Basic::kInteger4: return dispatch_arith<int32_t>(k, in, io, n);
    case Basic::kInteger1: return dispatch_arith<int8_t>(k, in, io, n);
    case Basic::kInteger2: return dispatch_arith<int16_t>(k, in, io, n);
    case Basic::kInteger8: return dispatch_arith<int64_t>(k, in, io, n);
    case Basic::kInteger16: return dispatch_arith<__int128>(k, in, io, n);
    case Basic::kReal: case Basic::kReal4: return dispatch_arith<float>(k, in, io, n);
    case Basic::kDoublePrecision: case Basic::kReal8: return dispatch_arith<double>(k, in, io, n);
    case Basic::kLogical:
      // gfortran's LOGICAL: 4 bytes, .TRUE. is 1; the logical kernels give 0/1.
      return dispatch_arith<int32_t>(k, in, io, n);
    case Basic::kReal16: return dispatch_arith<__float128>(k, in, io, n);
    case Basic::kComplex: case Basic::kCFloatComplex: case Basic::kCxxFloatComplex: case Basic::kComplex8:
      return dispatch_complex<float>(k, in, io, n);
    case Basic::kDoubleComplex: case Basic::kCDoubleComplex: case Basic::kCxxDoubleComplex: case Basic::kComplex16:
      return dispatch_complex<double>(k, in, io, n);
    case Basic::kComplex32: return dispatch_quad_complex(k, in, io, n);
    case Basic::kCLongDoubleComplex: case Basic::kCxxLongDoubleComplex:
      return dispatch_complex<long double>(k, in, io, n);
    case Basic::kFloatInt: case Basic::kDoubleInt: case Basic::kLongInt: case Basic::k2Int:
    case Basic::kShortInt: case Basic::kLongDoubleInt: case Basic::k2Integer: case Basic::k2Real:
    case Basic::k2DoublePrecision:
      apply_pair(k, b, in, io, n, /*packed=*/false);
      return true;
    default:
      return false;
  }
}

}  // namespace lz::dt

using lz::dt::Basic;

lz_op_s::lz_op_s(Kind k) : kind_(k), commutative_(true) {}

lz_op_s* lz_op_s::create_user(lz_user_function* fn, bool commutative) {
  auto* op = new lz_op_s(Kind::kUser);
  op->user_fn_ = fn;
  op->commutative_ = commutative;
  return op;
}

lz_op_s* lz_op_s::create_user_c(lz_user_function_c* fn, bool commutative) {
  auto* op = new lz_op_s(Kind::kUser);
  op->user_fn_c_ = fn;
  op->commutative_ = commutative;
  return op;
}

void lz_op_s::release(const lz_op_s* op) {
  if (op == nullptr || op->is_predefined()) return;
  auto* self = const_cast<lz_op_s*>(op);
  if (self->refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete self;
}

const char* lz_op_s::name() const {
  static const char* const kNames[] = {"MPI_MAX",    "MPI_MIN",    "MPI_SUM",     "MPI_PROD",  "MPI_LAND",
                                       "MPI_BAND",   "MPI_LOR",    "MPI_BOR",     "MPI_LXOR",  "MPI_BXOR",
                                       "MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP", "user-defined op"};
  return kNames[static_cast<int>(kind_)];
}

lz::Status lz_op_s::check(const lz::dt::Datatype& dt) const {
  if (!is_predefined()) return lz::Status::Ok();
  if (rma_only())
    return lz::InvalidArgument(std::string(name()) + " is not defined for " + dt.name() +
                               " in a reduction: it is for one-sided accumulates only");
  Basic b;
  if (!dt.homogeneous(&b, nullptr)) {
    if (dt.size() == 0) return lz::Status::Ok();  // nothing to reduce
    return lz::InvalidArgument(std::string(name()) + " is not defined for " + dt.name() +
                               ": its elements are not all of one predefined type");
  }
  if (!lz::dt::op_defined_on(kind_, b)) {
    return lz::InvalidArgument(std::string(name()) + " is not defined for " + dt.name());
  }
  return lz::Status::Ok();
}

void lz_op_s::apply(const void* in, void* inout, int count, const lz::dt::Datatype& dt) const {
  if (count <= 0) return;
  if (!is_predefined()) {
    lz_datatype_s* handle = const_cast<lz_datatype_s*>(&dt);
    if (user_fn_c_ != nullptr) {
      long long len = count;
      user_fn_c_(const_cast<void*>(in), inout, &len, &handle);
      return;
    }
    int len = count;
    user_fn_(const_cast<void*>(in), inout, &len, &handle);
    return;
  }
  if (dt.is_basic()) {
    lz::dt::apply_basic(kind_, dt.basic(), in, inout, static_cast<size_t>(count));
    return;
  }
  Basic b;
  size_t per = 0;
  if (!dt.homogeneous(&b, &per)) return;  // only an empty type gets here after check()
  const auto& info = lz::dt::basic_info(b);
  size_t n = per * static_cast<size_t>(count);
  bool pair = info.elements == 2;
  if (dt.is_contiguous() && !pair) {
    lz::dt::apply_basic(kind_, b, static_cast<const char*>(in) + dt.true_lb(),
                        static_cast<char*>(inout) + dt.true_lb(), n);
    return;
  }
  // Strided: reduce the packed forms, then scatter the result back.
  std::vector<char> a(dt.size() * count), r(dt.size() * count);
  dt.pack(in, count, a.data());
  dt.pack(inout, count, r.data());
  if (pair) {
    lz::dt::apply_pair(kind_, b, a.data(), r.data(), n, /*packed=*/true);
  } else {
    lz::dt::apply_basic(kind_, b, a.data(), r.data(), n);
  }
  dt.unpack(r.data(), r.size(), count, inout);
}
