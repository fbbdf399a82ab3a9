#include "lazarus/appfmt/variable.h"

#include <algorithm>

namespace lz::appfmt {
namespace {

struct ScalarInfo {
  const char* name;
  size_t size, unit;
};

ScalarInfo info(Scalar s) {
  switch (s) {
    case Scalar::kInt8: return {"int8", 1, 1};
    case Scalar::kUInt8: return {"uint8", 1, 1};
    case Scalar::kInt16: return {"int16", 2, 2};
    case Scalar::kUInt16: return {"uint16", 2, 2};
    case Scalar::kInt32: return {"int32", 4, 4};
    case Scalar::kUInt32: return {"uint32", 4, 4};
    case Scalar::kInt64: return {"int64", 8, 8};
    case Scalar::kUInt64: return {"uint64", 8, 8};
    case Scalar::kFloat32: return {"float32", 4, 4};
    case Scalar::kFloat64: return {"float64", 8, 8};
    case Scalar::kFloat80: return {"float80", 16, 10};
    case Scalar::kComplex64: return {"complex64", 8, 4};
    case Scalar::kComplex128: return {"complex128", 16, 8};
    case Scalar::kBool: return {"bool", 1, 1};
    case Scalar::kChar: return {"char", 1, 1};
    case Scalar::kByte: return {"byte", 1, 1};
  }
  return {"?", 0, 1};
}

}  // namespace

size_t scalar_size(Scalar s) { return info(s).size; }
size_t swap_unit(Scalar s) { return info(s).unit; }
const char* scalar_name(Scalar s) { return info(s).name; }

uint64_t signature_size(const Signature& sig) {
  uint64_t n = 0;
  for (const Run& r : sig) n += scalar_size(r.scalar) * r.count;
  return n;
}

std::string signature_text(const Signature& sig) {
  std::string out;
  for (const Run& r : sig) {
    if (!out.empty()) out += ",";
    out += scalar_name(r.scalar);
    if (r.count != 1) out += "[" + std::to_string(r.count) + "]";
  }
  return out.empty() ? "(empty)" : out;
}

void swap_scalars(const Signature& sig, uint64_t count, void* data) {
  auto* p = static_cast<unsigned char*>(data);
  for (uint64_t e = 0; e < count; ++e) {
    for (const Run& r : sig) {
      const size_t size = scalar_size(r.scalar), unit = swap_unit(r.scalar);
      for (uint64_t k = 0; k < r.count; ++k, p += size)
        if (unit > 1)
          for (size_t off = 0; off + unit <= size; off += unit) std::reverse(p + off, p + off + unit);
    }
  }
}

}  // namespace lz::appfmt
