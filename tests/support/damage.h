// Damaging files on purpose, for tests of corruption handling.
//
//   lz::test::flip_bits(path, 100, 0x10);   // byte 100 XOR 0x10, in place
#pragma once

#include <cstdint>
#include <string>

namespace lz::test {

// XORs the byte at `offset` of `path` with `mask`, in place.
void flip_bits(const std::string& path, uint64_t offset, unsigned char mask);

}  // namespace lz::test
