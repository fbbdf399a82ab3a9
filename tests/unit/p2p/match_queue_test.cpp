// MPI matching of unexpected messages (runtime/p2p/match_queue.h): a
// receive from one source takes that source's oldest message of its tag,
// whatever other sources sent in between; MPI_ANY_SOURCE takes the oldest
// of all; replayed messages (prepend) come before every arrival; removal by
// any path leaves both orders intact.
#include "p2p/match_queue.h"

#include <gtest/gtest.h>

#include <vector>

namespace lz::rt {
namespace {

// Appends a message (src, tag) whose sreq numbers its arrival.
Unexpected* arrive(MatchQueue* q, int src, int tag, uint64_t seq) {
  Unexpected* u = q->new_unexpected();
  u->src = src;
  u->tag = tag;
  u->world_src = src;
  u->sreq = seq;
  q->append(u);
  return u;
}

uint64_t take(MatchQueue* q, int src, int tag) {
  Unexpected* u = q->find_unexpected(src, tag, true);
  if (u == nullptr) return UINT64_MAX;
  const uint64_t seq = u->sreq;
  q->recycle(u);
  return seq;
}

std::vector<uint64_t> arrival_order(const MatchQueue& q) {
  std::vector<uint64_t> v;
  for (Unexpected* u = q.unexpected_head(); u != nullptr; u = u->next) v.push_back(u->sreq);
  return v;
}

TEST(MatchQueue, AReceiveFromOneSourceTakesItsOldestMessagePastOthers) {
  MatchQueue q;
  // Source 3 runs far ahead of source 1.
  for (uint64_t i = 0; i < 1000; ++i) arrive(&q, 3, 7, i);
  arrive(&q, 1, 7, 1000);
  arrive(&q, 1, 7, 1001);
  EXPECT_EQ(take(&q, 1, 7), 1000u);
  EXPECT_EQ(take(&q, 1, 7), 1001u);
  EXPECT_EQ(take(&q, 1, 7), UINT64_MAX);
  EXPECT_EQ(take(&q, 3, 7), 0u);
  EXPECT_EQ(take(&q, 2, 7), UINT64_MAX);  // a source that sent nothing (and past the list's size)
  EXPECT_EQ(take(&q, 100, 7), UINT64_MAX);
}

TEST(MatchQueue, TagsOfOneSourceKeepTheirOrder) {
  MatchQueue q;
  arrive(&q, 2, 5, 0);
  arrive(&q, 2, 6, 1);
  arrive(&q, 2, 5, 2);
  EXPECT_EQ(take(&q, 2, 6), 1u);
  EXPECT_EQ(take(&q, 2, MPI_ANY_TAG), 0u);
  EXPECT_EQ(take(&q, 2, 5), 2u);
}

TEST(MatchQueue, AnySourceTakesTheOldestOfAll) {
  MatchQueue q;
  arrive(&q, 4, 1, 0);
  arrive(&q, 0, 2, 1);
  arrive(&q, 4, 2, 2);
  EXPECT_EQ(take(&q, MPI_ANY_SOURCE, 2), 1u);
  EXPECT_EQ(take(&q, MPI_ANY_SOURCE, MPI_ANY_TAG), 0u);
  // What the wildcard took is gone from its source's list too.
  EXPECT_EQ(take(&q, 0, 2), UINT64_MAX);
  EXPECT_EQ(take(&q, 4, MPI_ANY_TAG), 2u);
  EXPECT_TRUE(q.empty());
}

TEST(MatchQueue, ReplayedMessagesComeFirstForTheirSource) {
  MatchQueue q;
  arrive(&q, 1, 3, 10);
  Unexpected* old = q.new_unexpected();
  old->src = 1;
  old->tag = 3;
  old->sreq = 9;
  q.prepend(old);
  EXPECT_EQ(arrival_order(q), (std::vector<uint64_t>{9, 10}));
  EXPECT_EQ(take(&q, 1, 3), 9u);
  EXPECT_EQ(take(&q, 1, 3), 10u);
}

TEST(MatchQueue, WithdrawnAndRemovedMessagesLeaveBothOrdersIntact) {
  MatchQueue q;
  for (uint64_t i = 0; i < 6; ++i) arrive(&q, static_cast<int>(i % 2), 0, i);
  Unexpected* w = q.withdraw(/*world_src=*/1, /*sreq=*/3);
  ASSERT_NE(w, nullptr);
  q.recycle(w);
  Unexpected* head = q.unexpected_head();
  q.remove_unexpected(head);  // message 0, as a hand-over takes them
  q.recycle(head);
  EXPECT_EQ(arrival_order(q), (std::vector<uint64_t>{1, 2, 4, 5}));
  EXPECT_EQ(take(&q, 1, 0), 1u);
  EXPECT_EQ(take(&q, 1, 0), 5u);
  EXPECT_EQ(take(&q, 0, 0), 2u);
  EXPECT_EQ(take(&q, 0, 0), 4u);
  EXPECT_TRUE(q.empty());
  // Recycled entries serve new arrivals with fresh links.
  arrive(&q, 0, 0, 20);
  EXPECT_EQ(take(&q, 0, 0), 20u);
}

}  // namespace
}  // namespace lz::rt
