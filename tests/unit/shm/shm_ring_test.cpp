// The SPSC ring in one process: record layout, padding at the end of the
// ring, full/empty, the sentinel on later laps, corrupt-record detection.
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shm_layout.h"
#include "shm_ring.h"

namespace lz::transport::shm {
namespace {

struct LocalRing {
  explicit LocalRing(uint64_t bytes) : mem(kControlBytes + bytes + kCacheLine), size(bytes) {
    base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(mem.data()) + kCacheLine - 1) &
                                      ~uintptr_t{kCacheLine - 1});
    ctl = new (base) RingControl();
  }
  RingProducer producer() { return RingProducer(ctl, base + kControlBytes, size); }
  RingConsumer consumer() { return RingConsumer(ctl, base + kControlBytes, size); }
  uint8_t* data() { return base + kControlBytes; }

  std::vector<uint8_t> mem;
  uint8_t* base;
  RingControl* ctl;
  uint64_t size;
};

std::string pattern(uint64_t seq, size_t len) {
  std::string s(len, '\0');
  for (size_t i = 0; i < len; ++i) s[i] = static_cast<char>((seq * 131 + i * 7) & 0xff);
  return s;
}

TEST(ShmRing, RecordBytesAreCacheLineMultiples) {
  EXPECT_EQ(record_bytes(0), 64u);
  EXPECT_EQ(record_bytes(56), 64u);
  EXPECT_EQ(record_bytes(57), 128u);
  EXPECT_EQ(max_payload_for_ring(8192), 4088u);
  EXPECT_LE(2 * record_bytes(max_payload_for_ring(8192)), 8192u);
}

TEST(ShmRing, EmptyRingHasNothing) {
  LocalRing r(8192);
  RingConsumer rx = r.consumer();
  uint64_t len = 0;
  EXPECT_EQ(rx.peek(&len), nullptr);
  EXPECT_FALSE(rx.pending());
  EXPECT_FALSE(rx.corrupt());
}

// Random sizes over many laps, producer and consumer interleaved at random:
// every frame comes out once, in order, intact; a full ring refuses, and
// space comes back once the consumer publishes.
TEST(ShmRing, RandomSizesManyLapsInOrder) {
  constexpr uint64_t kBytes = 16384;
  LocalRing r(kBytes);
  RingProducer tx = r.producer();
  RingConsumer rx = r.consumer();
  std::mt19937_64 rng(42);
  std::deque<std::string> expected;
  uint64_t next_seq = 0, got = 0, fulls = 0;
  while (got < 50000) {
    if (rng() % 3 != 0) {
      const size_t len = rng() % 5 == 0 ? rng() % (max_payload_for_ring(kBytes) + 1) : rng() % 200;
      uint8_t* p = tx.reserve(len);
      if (p == nullptr) {
        ++fulls;
        rx.publish();
        continue;
      }
      std::string s = pattern(next_seq++, len);
      std::memcpy(p, s.data(), len);
      tx.commit();
      expected.push_back(std::move(s));
    } else {
      uint64_t len = 0;
      const uint8_t* p = rx.peek(&len);
      if (p == nullptr) {
        ASSERT_FALSE(rx.corrupt());
        ASSERT_TRUE(expected.empty()) << "a committed frame is not visible";
        continue;
      }
      ASSERT_FALSE(expected.empty());
      ASSERT_EQ(len, expected.front().size()) << "frame " << got;
      ASSERT_EQ(std::memcmp(p, expected.front().data(), len), 0) << "frame " << got;
      expected.pop_front();
      rx.pop();
      ++got;
      if (rng() % 4 == 0) rx.publish();
    }
  }
  EXPECT_GT(fulls, 0u) << "the test never filled the ring";
  EXPECT_GT(tx.tail(), 10 * kBytes) << "the test did not go around the ring";
}

TEST(ShmRing, FullRingRefusesUntilConsumerPublishes) {
  constexpr uint64_t kBytes = 8192;
  LocalRing r(kBytes);
  RingProducer tx = r.producer();
  RingConsumer rx = r.consumer();
  int n = 0;
  while (uint8_t* p = tx.reserve(1000)) {
    std::memset(p, n, 1000);
    tx.commit();
    ++n;
  }
  EXPECT_EQ(n, 7);  // 8 records of 1024 bytes minus the sentinel's line
  uint64_t len;
  ASSERT_NE(rx.peek(&len), nullptr);
  rx.pop();
  EXPECT_EQ(tx.reserve(1000), nullptr) << "space reused before the consumer published it";
  rx.publish();
  EXPECT_NE(tx.reserve(1000), nullptr);
  EXPECT_FALSE(tx.consumed());
}

// The largest frame always fits in an empty ring, wherever the head is.
TEST(ShmRing, MaxFrameFitsAtEveryOffset) {
  constexpr uint64_t kBytes = 8192;
  const uint64_t max = max_payload_for_ring(kBytes);
  for (uint64_t shift = 0; shift < kBytes; shift += kCacheLine) {
    LocalRing r(kBytes);
    RingProducer tx = r.producer();
    RingConsumer rx = r.consumer();
    uint64_t len;
    for (uint64_t moved = 0; moved < shift; moved += kCacheLine) {
      ASSERT_NE(tx.reserve(0), nullptr);
      tx.commit();
      ASSERT_NE(rx.peek(&len), nullptr);
      rx.pop();
    }
    rx.publish();
    uint8_t* p = tx.reserve(max);
    ASSERT_NE(p, nullptr) << "at offset " << shift;
    std::memset(p, 0xab, max);
    tx.commit();
    const uint8_t* q = rx.peek(&len);
    ASSERT_NE(q, nullptr);
    EXPECT_EQ(len, max);
    EXPECT_EQ(q[0], 0xab);
    EXPECT_EQ(q[max - 1], 0xab);
    rx.pop();
    rx.publish();
    EXPECT_TRUE(tx.consumed());
  }
}

TEST(ShmRing, CorruptHeaderIsDetectedNotFollowed) {
  LocalRing r(8192);
  RingConsumer rx = r.consumer();
  // A length that would run past the end of the ring.
  reinterpret_cast<std::atomic<uint64_t>*>(r.data())->store(kRecordValid | 9000);
  uint64_t len;
  EXPECT_EQ(rx.peek(&len), nullptr);
  EXPECT_TRUE(rx.corrupt());

  LocalRing r2(8192);
  RingConsumer rx2 = r2.consumer();
  // Padding that does not end at the end of the ring.
  reinterpret_cast<std::atomic<uint64_t>*>(r2.data())->store(kRecordValid | kRecordPad | 64);
  EXPECT_EQ(rx2.peek(&len), nullptr);
  EXPECT_TRUE(rx2.corrupt());
}

}  // namespace
}  // namespace lz::transport::shm
