// lazarus/frameworks/transport_iov.h: counting, gathering and copying a
// range of a frame given as iovecs, empty pieces (null bases) included.
#include "lazarus/frameworks/transport_iov.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace lz::transport {
namespace {

// "abc" + "" (null base) + "defgh" + "i".
struct Frame {
  std::string a = "abc", c = "defgh", d = "i";
  std::vector<iovec> iov{{a.data(), a.size()}, {nullptr, 0}, {c.data(), c.size()}, {d.data(), d.size()}};
  const std::string whole = "abcdefghi";
};

TEST(TransportIov, BytesCountsEveryPieceAndNothingForNoArray) {
  Frame f;
  EXPECT_EQ(iov_bytes(f.iov.data(), static_cast<int>(f.iov.size())), 9u);
  EXPECT_EQ(iov_bytes(f.iov.data(), 1), 3u);
  EXPECT_EQ(iov_bytes(f.iov.data(), 0), 0u);
  EXPECT_EQ(iov_bytes(nullptr, 3), 0u);
}

TEST(TransportIov, GatherWritesThePiecesInOrderAndReturnsTheEnd) {
  Frame f;
  std::string out(12, '.');
  char* end = iov_gather(f.iov.data(), static_cast<int>(f.iov.size()), out.data());
  EXPECT_EQ(end, out.data() + 9);
  EXPECT_EQ(out, "abcdefghi...");
  EXPECT_EQ(iov_gather(f.iov.data(), 0, out.data()), out.data());
}

TEST(TransportIov, CopyRangeMatchesTheGatheredFrameForEveryRange) {
  Frame f;
  const int n = static_cast<int>(f.iov.size());
  for (size_t off = 0; off <= 10; ++off)
    for (size_t len = 0; len <= 10; ++len) {
      std::string out(10, '.');
      const size_t got = iov_copy_range(f.iov.data(), n, off, len, out.data());
      const std::string want = off < f.whole.size() ? f.whole.substr(off, len) : "";
      EXPECT_EQ(got, want.size()) << "offset " << off << ", length " << len;
      EXPECT_EQ(out.substr(0, got), want) << "offset " << off << ", length " << len;
      EXPECT_EQ(out.substr(got), std::string(10 - got, '.')) << "wrote past the range: offset " << off;
    }
}

}  // namespace
}  // namespace lz::transport
