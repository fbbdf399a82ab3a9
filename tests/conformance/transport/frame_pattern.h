// Deterministic frame contents for the conformance scenarios: byte `offset` of
// stream `seed` is a pure function of both, so a receiver checks every byte of
// what arrived without the sender shipping a copy, and a mismatch names the
// first wrong offset.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lz::conformance {

inline uint64_t mix64(uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

inline unsigned char pattern_byte(uint64_t seed, uint64_t offset) {
  return static_cast<unsigned char>(mix64(seed * 0x100000001b3ull + (offset >> 3)) >> ((offset & 7) * 8));
}

// Fills out[0..n) with bytes offset..offset+n of stream `seed`.
inline void fill_pattern(uint64_t seed, uint64_t offset, void* out, size_t n) {
  auto* p = static_cast<unsigned char*>(out);
  size_t i = 0;
  while (i < n) {
    const uint64_t off = offset + i;
    uint64_t w = mix64(seed * 0x100000001b3ull + (off >> 3));
    for (unsigned b = static_cast<unsigned>(off & 7); b < 8 && i < n; ++b, ++i)
      p[i] = static_cast<unsigned char>(w >> (b * 8));
  }
}

// Offset (relative to `data`) of the first byte that differs from stream
// `seed` at `offset`, or n when all n bytes match.
inline size_t first_mismatch(uint64_t seed, uint64_t offset, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  size_t i = 0;
  while (i < n) {
    const uint64_t off = offset + i;
    uint64_t w = mix64(seed * 0x100000001b3ull + (off >> 3));
    for (unsigned b = static_cast<unsigned>(off & 7); b < 8 && i < n; ++b, ++i)
      if (p[i] != static_cast<unsigned char>(w >> (b * 8))) return i;
  }
  return n;
}

}  // namespace lz::conformance
