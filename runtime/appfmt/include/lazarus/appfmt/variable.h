// What an application-level snapshot file holds for one registered variable:
// its name, the type signature of one element, the element count and, for a
// decomposed array, where this rank's block sits in the whole array.
//
//   lz::appfmt::Variable v{"grid", {{lz::appfmt::Scalar::kFloat64, 1}}, 64 * 64,
//                          {{256, 256}, {64, 0}, {64, 64}}};
//
// The signature is a flattened datatype: runs of scalars in order, no gaps
// (struct { int a; double b[3]; } -> {{kInt32, 1}, {kFloat64, 3}}), so a file
// written from one layout reads into another with the same signature, on a
// host of either byte order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lz::appfmt {

// Element types of a signature (every predefined MPI type maps to one).
enum class Scalar : uint8_t {
  kInt8 = 1, kUInt8, kInt16, kUInt16, kInt32, kUInt32, kInt64, kUInt64,
  kFloat32, kFloat64, kFloat80,   // kFloat80: x87 long double, stored in 16 bytes
  kComplex64, kComplex128,        // two float32 / two float64
  kBool, kChar, kByte,            // one byte each, never swapped
};
inline constexpr uint8_t kLastScalar = static_cast<uint8_t>(Scalar::kByte);

// Bytes on disk (and in memory) of one scalar.
size_t scalar_size(Scalar s);
// Bytes swapped as one unit when the byte order changes (1: never swapped;
// complex types swap each half; kFloat80 its 10 significant bytes).
size_t swap_unit(Scalar s);
// "int32", "float64", ...; "?" for a value outside the enum.
const char* scalar_name(Scalar s);

struct Run {
  Scalar scalar = Scalar::kByte;
  uint64_t count = 0;
  bool operator==(const Run&) const = default;
};
using Signature = std::vector<Run>;
// Bytes of one element of the signature.
uint64_t signature_size(const Signature& sig);
// "float64[3],int32" for messages and `lazarus snapshot show`.
std::string signature_text(const Signature& sig);

// A block of a C-order array (empty global_shape: not decomposed).
struct Decomposition {
  std::vector<int64_t> global_shape, owned_start, owned_shape;
  bool empty() const { return global_shape.empty(); }
  bool operator==(const Decomposition&) const = default;
};

struct Variable {
  std::string name;
  Signature signature;
  uint64_t count = 0;  // elements; for a decomposed one the product of owned_shape
  Decomposition decomposition;
};

// Swaps every scalar of `count` elements of `sig` in `data` (bytes long) in
// place: what a host of the other byte order does on reading or writing.
void swap_scalars(const Signature& sig, uint64_t count, void* data);

}  // namespace lz::appfmt
