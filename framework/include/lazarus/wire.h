// Fixed-byte-order integers on the wire: put/get of u16/u32/u64 as big-endian
// (network order: the OOB protocol) or little-endian (the tcp transport's
// handshake and frame headers). One codec for every protocol, so a wire
// format never depends on the host's byte order.
//
//   unsigned char hdr[8];
//   lz::wire::put_be32(hdr, kMagic);          // bytes 0..3, most significant first
//   lz::wire::put_le32(hdr + 4, length);      // bytes 4..7, least significant first
//   const uint32_t magic = lz::wire::get_be32(hdr);
//
// Callers bound-check: each function reads or writes exactly 2, 4 or 8 bytes
// at `p`. Inline on purpose: the tcp frame header is coded on every frame.
#pragma once

#include <cstdint>

namespace lz::wire {

inline void put_be16(unsigned char* p, uint16_t v) {
  p[0] = static_cast<unsigned char>(v >> 8);
  p[1] = static_cast<unsigned char>(v);
}
inline void put_be32(unsigned char* p, uint32_t v) {
  put_be16(p, static_cast<uint16_t>(v >> 16));
  put_be16(p + 2, static_cast<uint16_t>(v));
}
inline void put_be64(unsigned char* p, uint64_t v) {
  put_be32(p, static_cast<uint32_t>(v >> 32));
  put_be32(p + 4, static_cast<uint32_t>(v));
}
inline uint16_t get_be16(const unsigned char* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }
inline uint32_t get_be32(const unsigned char* p) { return (uint32_t{get_be16(p)} << 16) | get_be16(p + 2); }
inline uint64_t get_be64(const unsigned char* p) { return (uint64_t{get_be32(p)} << 32) | get_be32(p + 4); }

inline void put_le16(unsigned char* p, uint16_t v) {
  p[0] = static_cast<unsigned char>(v);
  p[1] = static_cast<unsigned char>(v >> 8);
}
inline void put_le32(unsigned char* p, uint32_t v) {
  put_le16(p, static_cast<uint16_t>(v));
  put_le16(p + 2, static_cast<uint16_t>(v >> 16));
}
inline void put_le64(unsigned char* p, uint64_t v) {
  put_le32(p, static_cast<uint32_t>(v));
  put_le32(p + 4, static_cast<uint32_t>(v >> 32));
}
inline uint16_t get_le16(const unsigned char* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline uint32_t get_le32(const unsigned char* p) { return uint32_t{get_le16(p)} | (uint32_t{get_le16(p + 2)} << 16); }
inline uint64_t get_le64(const unsigned char* p) { return uint64_t{get_le32(p)} | (uint64_t{get_le32(p + 4)} << 32); }

}  // namespace lz::wire
