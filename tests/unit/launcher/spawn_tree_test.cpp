// SpawnTree (runtime/launcher/spawn_tree.cpp): the routing of a bridge's
// address exchange through the tree of launchers, and the tree's checkpoint
// messages to the handler, over real socketpairs and a real event loop. The
// other launchers are played by this test through the far ends.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "launcher/spawn_tree.h"
#include "oob/frame.h"
#include "oob/tree_messages.h"

namespace lz::launcher {
namespace {

using oob::MsgType;

struct Pair {
  oob::Fd near, far;
};
Pair socket_pair() {
  int sv[2];
  EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  return {oob::Fd(sv[0]), oob::Fd(sv[1])};
}

void write_frame(int fd, MsgType t, const std::string& payload) {
  const std::string f = oob::encode_frame(t, payload);
  ASSERT_TRUE(oob::write_all(fd, f.data(), f.size(), oob::deadline_in(5)).ok());
}

// The next frame on `fd`, while `loop` turns (the tree writes from it).
oob::Frame read_frame(EventLoop& loop, int fd) {
  oob::FrameDecoder dec;
  oob::Frame f;
  Status s = loop.run_until(
      [&] {
        char buf[4096];
        const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) dec.feed(buf, static_cast<size_t>(n));
        auto got = dec.next(&f);
        return got.ok() && *got;
      },
      oob::deadline_in(5));
  EXPECT_TRUE(s.ok()) << s.message();
  return f;
}

struct Recorder : SpawnTree::Handler {
  std::vector<std::string> events;
  void on_tree_checkpoint(const oob::TreeRoundMsg& m) override { events.push_back("checkpoint " + std::to_string(m.round)); }
  void on_tree_go(uint64_t round) override { events.push_back("go " + std::to_string(round)); }
  void on_tree_abort(uint64_t round, const std::string& why) override {
    events.push_back("abort " + std::to_string(round) + ": " + why);
  }
  void on_child_drained(pid_t c, uint64_t round) override {
    events.push_back("drained " + std::to_string(c) + " " + std::to_string(round));
  }
  void on_child_done(pid_t c, const oob::TreeDoneMsg& m) override {
    events.push_back("done " + std::to_string(c) + " " + std::to_string(m.round) + " " + m.snapshot);
  }
  void on_child_lost(pid_t c, const std::string&) override { events.push_back("lost " + std::to_string(c)); }
};

struct Fixture {
  EventLoop loop;
  std::map<int, std::vector<oob::Frame>> to_rank;
  std::vector<std::string> failures;
  SpawnTree tree{loop, [this](int r, MsgType t, const std::string& p) { to_rank[r].push_back({static_cast<uint16_t>(t), p}); },
                 [this](const std::string& why) { failures.push_back(why); }};
};

std::string fence(const std::string& key, uint32_t member, uint32_t members, const std::string& entries,
                  std::vector<uint32_t> gone = {}) {
  return oob::encode_bridge_fence({key, member, members, entries, std::move(gone)});
}

TEST(SpawnTree, TheRootAnswersOnceEveryMemberContributed) {
  Fixture fx;
  Pair child = socket_pair();
  fx.tree.add_child(4242, std::move(child.near));
  fx.tree.on_rank_fence(0, fence("k/1", 0, 3, "zero"));
  write_frame(child.far.get(), MsgType::kBridgeFence, fence("k/1", 2, 3, "two"));
  write_frame(child.far.get(), MsgType::kBridgeFence, fence("k/1", 1, 3, "one"));
  oob::Frame f = read_frame(fx.loop, child.far.get());
  ASSERT_EQ(f.type, static_cast<uint16_t>(MsgType::kBridgeTable));
  oob::BridgeTableMsg t;
  ASSERT_TRUE(oob::decode_bridge_table(f.payload, &t).ok());
  EXPECT_EQ(t.key, "k/1");
  EXPECT_EQ(t.error, "");
  EXPECT_EQ(t.entries, (std::vector<std::string>{"zero", "one", "two"}));  // by member, not by arrival
  ASSERT_EQ(fx.to_rank[0].size(), 1u);
  EXPECT_EQ(fx.to_rank[0][0].payload, f.payload);
  EXPECT_TRUE(fx.failures.empty());
}

TEST(SpawnTree, MembersFoundGoneGetAnEmptyEntryOnceTheOthersFenced) {
  Fixture fx;
  // Members 2 and 3 (a spawned job that ended) never fence; member 1 found both gone, member 0 only 3.
  fx.tree.on_rank_fence(0, fence("k/3", 0, 4, "zero", {3}));
  EXPECT_TRUE(fx.to_rank[0].empty());  // member 2 may still come as far as member 0 knows
  fx.tree.on_rank_fence(1, fence("k/3", 1, 4, "one", {2, 3}));
  ASSERT_EQ(fx.to_rank[0].size(), 1u);
  ASSERT_EQ(fx.to_rank[1].size(), 1u);
  oob::BridgeTableMsg t;
  ASSERT_TRUE(oob::decode_bridge_table(fx.to_rank[1][0].payload, &t).ok());
  EXPECT_EQ(t.entries, (std::vector<std::string>{"zero", "one", "", ""}));
}

TEST(SpawnTree, MembersThatDisagreeOnTheSizeGetAnError) {
  Fixture fx;
  fx.tree.on_rank_fence(0, fence("k/1", 0, 3, "a"));
  fx.tree.on_rank_fence(1, fence("k/1", 1, 4, "b"));
  ASSERT_EQ(fx.to_rank[1].size(), 1u);
  oob::BridgeTableMsg t;
  ASSERT_TRUE(oob::decode_bridge_table(fx.to_rank[1][0].payload, &t).ok());
  EXPECT_NE(t.error.find("3 and 4"), std::string::npos) << t.error;
}

TEST(SpawnTree, ANonRootForwardsUpAndHandsTheTableDown) {
  Pair parent = socket_pair();
  setenv(oob::kSpawnLinkFdEnv, std::to_string(parent.near.release()).c_str(), 1);
  Fixture fx;
  ASSERT_TRUE(fx.tree.adopt_parent_from_env().ok());
  EXPECT_EQ(std::getenv(oob::kSpawnLinkFdEnv), nullptr);  // nothing this launcher starts inherits it
  EXPECT_TRUE(fx.tree.has_parent());
  const std::string mine = fence("k/2", 1, 2, "entries of member 1");
  fx.tree.on_rank_fence(3, mine);
  oob::Frame up = read_frame(fx.loop, parent.far.get());
  EXPECT_EQ(up.type, static_cast<uint16_t>(MsgType::kBridgeFence));
  EXPECT_EQ(up.payload, mine);
  EXPECT_TRUE(fx.to_rank[3].empty());  // a non-root never answers by itself
  const std::string table = oob::encode_bridge_table({"k/2", "", {"m0", "entries of member 1"}});
  write_frame(parent.far.get(), MsgType::kBridgeTable, table);
  ASSERT_TRUE(fx.loop.run_until([&] { return !fx.to_rank[3].empty(); }, oob::deadline_in(5)).ok());
  EXPECT_EQ(fx.to_rank[3][0].payload, table);
}

TEST(SpawnTree, TheTreesCheckpointMessagesReachTheHandler) {
  Pair parent = socket_pair();
  setenv(oob::kSpawnLinkFdEnv, std::to_string(parent.near.release()).c_str(), 1);
  Fixture fx;
  Recorder rec;
  fx.tree.set_handler(&rec);
  ASSERT_TRUE(fx.tree.adopt_parent_from_env().ok());
  Pair child = socket_pair();
  fx.tree.add_child(77, std::move(child.near));
  write_frame(parent.far.get(), MsgType::kTreeCheckpoint, oob::encode_tree_round({5, 0}));
  write_frame(child.far.get(), MsgType::kTreeDrained, oob::encode_tree_round({5, 0}));
  write_frame(parent.far.get(), MsgType::kTreeGo, oob::encode_tree_round({5, 0}));
  write_frame(child.far.get(), MsgType::kTreeDone, oob::encode_tree_done({5, 1, "/snap/7", ""}));
  ASSERT_TRUE(fx.loop.run_until([&] { return rec.events.size() >= 4; }, oob::deadline_in(5)).ok());
  child.far.reset();  // the child's launcher ended
  ASSERT_TRUE(fx.loop.run_until([&] { return rec.events.size() >= 5; }, oob::deadline_in(5)).ok());
  std::vector<std::string> sorted = rec.events;
  EXPECT_NE(std::find(sorted.begin(), sorted.end(), "checkpoint 5"), sorted.end());
  EXPECT_NE(std::find(sorted.begin(), sorted.end(), "drained 77 5"), sorted.end());
  EXPECT_NE(std::find(sorted.begin(), sorted.end(), "go 5"), sorted.end());
  EXPECT_NE(std::find(sorted.begin(), sorted.end(), "done 77 5 /snap/7"), sorted.end());
  EXPECT_EQ(sorted.back(), "lost 77");
  EXPECT_TRUE(fx.tree.children().empty());
  EXPECT_TRUE(fx.failures.empty());
}

TEST(SpawnTree, AFrameOutOfTheProtocolFailsTheJob) {
  Fixture fx;
  Pair child = socket_pair();
  fx.tree.add_child(9, std::move(child.near));
  write_frame(child.far.get(), MsgType::kTreeGo, oob::encode_tree_round({1, 0}));  // only a parent says GO
  ASSERT_TRUE(fx.loop.run_until([&] { return !fx.failures.empty(); }, oob::deadline_in(5)).ok());
  EXPECT_NE(fx.failures[0].find("TREE_GO"), std::string::npos) << fx.failures[0];
}

}  // namespace
}  // namespace lz::launcher
