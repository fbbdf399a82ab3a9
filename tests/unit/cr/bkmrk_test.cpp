// crcp/bkmrk against a fake coordinator: the drain ends when every received
// bookmark equals what the peer says it sent, a drain that cannot complete
// times out naming the peers, held sends are released by resume().
#include <gtest/gtest.h>

#include <vector>

#include "bkmrk_module.h"

namespace lz::crcp {
namespace {

class FakeCoordinator final : public Coordinator {
 public:
  explicit FakeCoordinator(int n) : sent(n), received(n), theirs(n), arrivals(n) {}
  int rank() const override { return 0; }
  int size() const override { return static_cast<int>(sent.size()); }
  Bookmark sent_to(int p) const override { return sent[static_cast<size_t>(p)]; }
  Bookmark received_from(int p) const override { return received[static_cast<size_t>(p)]; }
  StatusOr<std::vector<Bookmark>> exchange(const std::vector<Bookmark>& mine) override {
    exchanged = mine;
    held_at_exchange = held;
    if (abort) return Status(Code::kAborted, "aborted by the launcher");
    return theirs;
  }
  // Each turn delivers at most one pending frame per peer.
  Status progress_receives(std::chrono::milliseconds) override {
    ++turns;
    for (size_t p = 0; p < arrivals.size(); ++p) {
      if (arrivals[p].empty()) continue;
      received[p].messages += 1;
      received[p].bytes += arrivals[p].back();
      arrivals[p].pop_back();
    }
    return Status::Ok();
  }
  void hold_sends(bool h) override { held = h; }

  std::vector<Bookmark> sent, received, theirs, exchanged;
  std::vector<std::vector<uint64_t>> arrivals;  // per peer: frame sizes still in flight
  bool held = false, held_at_exchange = false, abort = false;
  int turns = 0;
};

TEST(BkmrkTest, DrainsUntilEveryBookmarkMatches) {
  FakeCoordinator c(3);
  c.sent = {{0, 0}, {2, 100}, {1, 60}};
  c.theirs = {{0, 0}, {3, 150}, {2, 120}};
  c.received = {{0, 0}, {1, 50}, {1, 60}};
  c.arrivals[1] = {50, 50};
  c.arrivals[2] = {60};
  bkmrk::BkmrkModule m(std::chrono::milliseconds(60000));
  ASSERT_TRUE(m.quiesce(c).ok());
  EXPECT_TRUE(c.held_at_exchange) << "sends must be held before the bookmarks are taken";
  EXPECT_TRUE(c.held);
  EXPECT_EQ(c.exchanged, c.sent);
  for (int p = 0; p < 3; ++p) EXPECT_EQ(c.received[static_cast<size_t>(p)], c.theirs[static_cast<size_t>(p)]);
  ASSERT_TRUE(m.resume(c, false).ok());
  EXPECT_FALSE(c.held) << "resume releases held sends";
}

TEST(BkmrkTest, NothingInFlightNeedsNoProgress) {
  FakeCoordinator c(2);
  c.theirs = {{0, 0}, {4, 400}};
  c.received = {{0, 0}, {4, 400}};
  bkmrk::BkmrkModule m(std::chrono::milliseconds(60000));
  ASSERT_TRUE(m.quiesce(c).ok());
  EXPECT_EQ(c.turns, 0);
}

TEST(BkmrkTest, TimeoutNamesThePeersAndTheirCounts) {
  FakeCoordinator c(4);
  c.theirs = {{0, 0}, {1, 10}, {5, 500}, {0, 0}};
  c.received = {{0, 0}, {1, 10}, {3, 300}, {0, 0}};  // rank 2's last two frames never arrive
  bkmrk::BkmrkModule m(std::chrono::milliseconds(20));
  Status s = m.quiesce(c);
  ASSERT_EQ(s.code(), Code::kTimeout) << s.to_string();
  EXPECT_NE(s.message().find("rank 2"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("3 of 5"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("rank 1"), std::string::npos) << s.message();
  ASSERT_TRUE(m.resume(c, false).ok());
  EXPECT_FALSE(c.held);
}

TEST(BkmrkTest, MoreReceivedThanSentIsAnError) {
  FakeCoordinator c(2);
  c.theirs = {{0, 0}, {1, 10}};
  c.received = {{0, 0}, {2, 20}};
  bkmrk::BkmrkModule m(std::chrono::milliseconds(60000));
  Status s = m.quiesce(c);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("rank 1"), std::string::npos) << s.message();
}

TEST(BkmrkTest, AbortedExchangeIsReturnedAndResumeReleases) {
  FakeCoordinator c(2);
  c.abort = true;
  bkmrk::BkmrkModule m(std::chrono::milliseconds(60000));
  Status s = m.quiesce(c);
  EXPECT_EQ(s.code(), Code::kAborted);
  EXPECT_TRUE(c.held);
  ASSERT_TRUE(m.resume(c, false).ok());
  EXPECT_FALSE(c.held);
}

}  // namespace
}  // namespace lz::crcp
