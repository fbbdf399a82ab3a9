// The launcher's fence/barrier rounds (runtime/launcher/modex_server.h).
#include "launcher/modex_server.h"

#include <gtest/gtest.h>

#include "oob/frame.h"
#include "oob/messages.h"

namespace lz::launcher {
namespace {

std::string fence(uint64_t seq, std::vector<std::pair<std::string, std::string>> entries = {}) {
  return oob::encode_fence({seq, std::move(entries)});
}
std::string barrier(uint64_t seq) { return oob::encode_seq({seq}); }

TEST(ModexServer, FenceCompletesWithEveryRanksEntriesWhenTheLastArrives) {
  ModexServer m(3, false);
  for (int r : {2, 0}) {
    auto done = m.on_fence(r, false, fence(1, {{"addr", "r" + std::to_string(r)}}));
    ASSERT_TRUE(done.ok()) << done.status().to_string();
    EXPECT_FALSE(done->has_value());
  }
  auto done = m.on_fence(1, false, fence(1, {{"addr", "r1"}}));
  ASSERT_TRUE(done.ok() && done->has_value());
  oob::FenceDoneMsg msg;
  ASSERT_TRUE(oob::decode_fence_done(**done, 3, &msg).ok());
  EXPECT_EQ(msg.seq, 1u);
  ASSERT_EQ(msg.entries.size(), 3u);
  // The next round starts empty and is number 2.
  ASSERT_TRUE(m.on_fence(0, false, fence(2)).ok());
  ASSERT_TRUE(m.on_fence(1, false, fence(2)).ok());
  done = m.on_fence(2, false, fence(2));
  ASSERT_TRUE(done.ok() && done->has_value());
  ASSERT_TRUE(oob::decode_fence_done(**done, 3, &msg).ok());
  EXPECT_EQ(msg.seq, 2u);
  EXPECT_TRUE(msg.entries.empty());
}

TEST(ModexServer, CountsCompletedRoundsForAJoiningRank) {
  ModexServer m(2, false);
  EXPECT_EQ(m.fences_done(), 0u);
  ASSERT_TRUE(m.on_fence(0, false, fence(1)).ok());
  EXPECT_EQ(m.fences_done(), 0u);  // round 1 is not complete yet
  ASSERT_TRUE(m.on_fence(1, false, fence(1)).ok());
  EXPECT_EQ(m.fences_done(), 1u);
  ASSERT_TRUE(m.on_barrier(1, false, barrier(1)).ok());
  ASSERT_TRUE(m.on_barrier(0, false, barrier(1)).ok());
  EXPECT_EQ(m.barriers_done(), 1u);
  EXPECT_EQ(m.fences_done(), 1u);
  // A process that takes rank 1's place numbers its next fence fences_done() + 1.
  ASSERT_TRUE(m.on_fence(0, false, fence(m.fences_done() + 1)).ok());
  auto done = m.on_fence(1, false, fence(m.fences_done() + 1));
  ASSERT_TRUE(done.ok() && done->has_value()) << done.status().to_string();
  EXPECT_EQ(m.fences_done(), 2u);
}

TEST(ModexServer, OutOfSequenceIsAProtocolErrorNamingTheRound) {
  ModexServer m(2, false);
  auto skip = m.on_fence(0, false, fence(2));
  ASSERT_FALSE(skip.ok());
  EXPECT_EQ(skip.status().code(), Code::kProtocol);
  EXPECT_NE(skip.status().message().find("FENCE 2 out of sequence (the job is at FENCE 1)"), std::string::npos)
      << skip.status().message();
  ASSERT_TRUE(m.on_barrier(0, false, barrier(1)).ok());
  auto again = m.on_barrier(0, false, barrier(1));  // the same rank twice in one round
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), Code::kProtocol);
  auto garbage = m.on_barrier(1, false, "x");
  EXPECT_FALSE(garbage.ok());
}

TEST(ModexServer, BarrierAndFenceCountSeparately) {
  ModexServer m(2, false);
  ASSERT_FALSE(*m.on_barrier(0, false, barrier(1)));
  auto b = m.on_barrier(1, false, barrier(1));
  ASSERT_TRUE(b.ok() && b->has_value());
  oob::SeqMsg s;
  ASSERT_TRUE(oob::decode_seq(**b, &s).ok());
  EXPECT_EQ(s.seq, 1u);
  ASSERT_FALSE(*m.on_fence(1, false, fence(1)));  // fences still at 1
  EXPECT_TRUE(m.on_fence(0, false, fence(1))->has_value());
}

TEST(ModexServer, RestoredJobAdoptsTheRoundItsRanksCarry) {
  ModexServer m(2, true);
  // Saved after fence 6: the restored ranks' first fence is 7.
  ASSERT_FALSE(*m.on_fence(1, true, fence(7)));
  auto done = m.on_fence(0, true, fence(7));
  ASSERT_TRUE(done.ok() && done->has_value());
  ASSERT_FALSE(*m.on_fence(0, true, fence(8)));
  EXPECT_FALSE(m.on_fence(1, true, fence(9)).ok());  // and then the count holds
}

TEST(ModexServer, FenceLargerThanAnOobFrameIsRefused) {
  ModexServer m(2, false);
  const std::string big(40u << 20, 'x');  // two ranks of 40 MiB: over the 64 MiB frame limit
  ASSERT_TRUE(m.on_fence(0, false, fence(1, {{"k", big}})).ok());
  auto done = m.on_fence(1, false, fence(1, {{"k", big}}));
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(done.status().code(), Code::kInvalidArgument);
  EXPECT_NE(done.status().message().find("exceeds the OOB frame limit"), std::string::npos);
}

}  // namespace
}  // namespace lz::launcher
