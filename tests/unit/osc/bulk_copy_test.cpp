// copy_to_peer / copy_from_peer: every byte of the range copied, none
// outside it, at every alignment of source and destination, for sizes
// around the 128-byte turn and the threshold, with the bulk path on and off.
#include "osc/bulk_copy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using Copy = void (*)(void*, const void*, size_t, size_t);

constexpr size_t kGuard = 64;

// Copies n bytes from src+soff to dst+doff and checks the destination:
// the pattern inside, the guard value outside.
void check(Copy copy, size_t n, size_t soff, size_t doff, size_t threshold) {
  std::vector<unsigned char> src(n + soff + kGuard), dst(n + doff + 2 * kGuard, 0xEE);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 131 + 7);
  copy(dst.data() + kGuard + doff, src.data() + soff, n, threshold);
  for (size_t i = 0; i < dst.size(); ++i) {
    const bool inside = i >= kGuard + doff && i < kGuard + doff + n;
    const unsigned char want = inside ? src[soff + (i - kGuard - doff)] : 0xEE;
    ASSERT_EQ(dst[i], want) << "byte " << i << " (n " << n << ", src offset " << soff << ", dst offset " << doff
                            << ", threshold " << threshold << ")";
  }
}

void every_alignment_and_size(Copy copy) {
  for (size_t threshold : {size_t{0}, size_t{1}, size_t{4096}})
    for (size_t n : {size_t{0}, size_t{1}, size_t{31}, size_t{32}, size_t{127}, size_t{128}, size_t{129}, size_t{159},
                     size_t{160}, size_t{255}, size_t{4095}, size_t{4096}, size_t{4097}, size_t{70001}})
      for (size_t soff = 0; soff < 40; soff += 13)
        for (size_t doff = 0; doff < 40; doff += 7) check(copy, n, soff, doff, threshold);
}

TEST(BulkCopy, ToPeerEveryAlignmentAndSizeAroundTheTurn) { every_alignment_and_size(&lz::osc::copy_to_peer); }
TEST(BulkCopy, FromPeerEveryAlignmentAndSizeAroundTheTurn) { every_alignment_and_size(&lz::osc::copy_from_peer); }

TEST(BulkCopy, OneMebibyteAsTheBenchmarkMovesIt) {
  check(&lz::osc::copy_to_peer, size_t{1} << 20, 0, 0, 256 * 1024);
  check(&lz::osc::copy_from_peer, size_t{1} << 20, 0, 0, 256 * 1024);
}

}  // namespace
