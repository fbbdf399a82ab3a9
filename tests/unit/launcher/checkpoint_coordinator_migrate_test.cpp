// A migration round (runtime/launcher/checkpoint_coordinator_migrate.cpp)
// whose moved rank answers DONE while Host::restore_rank is still running.
// A restore through another host's helper runs the event loop while it
// waits, and the restored rank may reconnect and answer there. The round
// must end once restore_rank returned: ending it inside (before 48b65a7)
// destroyed the Migration restore_moving still wrote to (heap corruption).
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "launcher/checkpoint_coordinator.h"
#include "temp_dir.h"

namespace lz::launcher {
namespace {

constexpr int kNp = 2;
constexpr int kMover = 1;  // on node-b, moves to node-a where rank 0 stays

// The Job's side: ranks on two hosts, every frame sent, and one ordered
// record of what was said and when the restore began and returned.
class FakeJob : public CheckpointCoordinator::Host {
 public:
  FakeJob() : ranks_(kNp) {
    for (int i = 0; i < kNp; ++i) {
      ranks_[i].rank = i;
      ranks_[i].pid = 100 + i;
      ranks_[i].place.host = i == kMover ? "node-b" : "node-a";
      ranks_[i].connected = ranks_[i].ever_connected = true;
    }
  }
  int size() const override { return kNp; }
  const RankProcess& rank(int i) const override { return ranks_[static_cast<size_t>(i)]; }
  void send(int rank, oob::MsgType type, const std::string& payload) override {
    sent[rank].push_back({static_cast<uint16_t>(type), payload});
  }
  void broadcast(oob::MsgType type, const std::string& payload) override {
    for (int i = 0; i < kNp; ++i) send(i, type, payload);
  }
  void say(const std::string& line) const override { events.push_back("say: " + line); }
  bool stopping() const override { return false; }
  void fail(int, const std::string& message) override { events.push_back("fail: " + message); }
  void stop_after_checkpoint() override { events.push_back("stop_after_checkpoint"); }
  void reap() override {}
  bool has_transient_children() const override { return false; }
  void job_file_changed() override {}
  Status can_restore_on(const std::string&) const override { return Status::Ok(); }
  Status restore_rank(int rank, const std::string& host, const std::string&) override {
    events.push_back("restore of rank " + std::to_string(rank) + " on " + host + " begins");
    if (while_restoring) while_restoring(rank);
    events.push_back("restore returns");
    return restore_result;
  }
  void announce_move(int, const std::string&) override {}

  std::function<void(int)> while_restoring;
  Status restore_result = Status::Ok();
  mutable std::vector<std::string> events;
  std::vector<oob::Frame> sent[kNp];

 private:
  std::vector<RankProcess> ranks_;
};

class MigrateWhileRestoring : public ::testing::Test {
 protected:
  MigrateWhileRestoring() {
    spec_.job_id = "job1";
    spec_.cr_component = "criu";
    spec_.snapshot_root = dir_.path();
    // The restore's wait for its helper, as RemoteStarter's: a nested loop
    // in which the restored rank reconnects and answers DONE (restarted).
    job_.while_restoring = [this](int rank) {
      bool answered = false;
      const uint64_t t = loop_.add_timer(oob::deadline_in(0.001), [&, rank] {
        cr_.on_rank_connected(rank, true);
        deliver(rank, oob::MsgType::kCheckpointDone, oob::encode_cr_done({seq_, oob::kCrOutcomeRestarted, 0}));
        answered = true;
      });
      const Status s = loop_.run_until([&] { return answered; }, oob::deadline_in(5));
      if (!answered) loop_.cancel_timer(t);
      ASSERT_TRUE(s.ok()) << s.to_string();
    };
  }

  void deliver(int rank, oob::MsgType type, const std::string& payload) {
    oob::Frame f{static_cast<uint16_t>(type), payload};
    cr_.on_frame(rank, f);
  }
  // Every rank got `type` as its last frame.
  void expect_last_sent(oob::MsgType type) {
    for (int i = 0; i < kNp; ++i) {
      ASSERT_FALSE(job_.sent[i].empty()) << "rank " << i;
      ASSERT_EQ(job_.sent[i].back().type, static_cast<uint16_t>(type)) << "rank " << i;
    }
  }

  // `lazarus migrate job1 --rank 1 --to node-a` up to the mover's end after
  // GO, then the loop until the round is over (its restore runs from a timer).
  void migrate() {
    cr_.on_control(1, R"({"op":"migrate","ranks":[1],"to":"node-a","wait":true})");
    ASSERT_TRUE(cr_.in_progress()) << (job_.events.empty() ? "" : job_.events.back());
    for (int i = 0; i < kNp; ++i) deliver(i, oob::MsgType::kCrReady, oob::encode_seq({0}));
    expect_last_sent(oob::MsgType::kCheckpointRequest);
    for (int i = 0; i < kNp; ++i) {
      oob::CrRequestMsg req;
      ASSERT_TRUE(oob::decode_cr_request(job_.sent[i].back().payload, &req).ok());
      seq_ = req.seq;
      EXPECT_EQ((req.flags & oob::kCrTerminate) != 0, i == kMover) << "only the mover writes an image and ends";
    }
    for (int i = 0; i < kNp; ++i)
      deliver(i, oob::MsgType::kCheckpointReady, oob::encode_cr_bookmarks({seq_, std::vector<oob::CrBookmark>(kNp)}));
    expect_last_sent(oob::MsgType::kCheckpointDrain);
    for (int i = 0; i < kNp; ++i) deliver(i, oob::MsgType::kCheckpointDrained, oob::encode_seq({seq_}));
    expect_last_sent(oob::MsgType::kCheckpointGo);
    deliver(0, oob::MsgType::kCheckpointDone, oob::encode_cr_done({seq_, oob::kCrOutcomeContinued, 0}));
    ASSERT_TRUE(cr_.expects_exit(kMover));
    cr_.on_rank_lost(kMover, "rank 1 (pid 101 on node-b) was killed by signal 9 (SIGKILL)");
    ASSERT_TRUE(loop_.run_until([&] { return !cr_.in_progress(); }, oob::deadline_in(10)).ok());
  }

  // Indices of the events that contain `text`.
  std::vector<size_t> find(const std::string& text) const {
    std::vector<size_t> at;
    for (size_t i = 0; i < job_.events.size(); ++i)
      if (job_.events[i].find(text) != std::string::npos) at.push_back(i);
    return at;
  }
  std::string all_events() const {
    std::string s;
    for (const auto& e : job_.events) s += "\n  " + e;
    return s;
  }

  test::TempDir dir_;
  JobSpec spec_;
  EventLoop loop_;
  FakeJob job_;
  CheckpointCoordinator cr_{spec_, loop_, job_};
  uint64_t seq_ = 0;
};

TEST_F(MigrateWhileRestoring, DoneDuringTheRestoreEndsTheRoundOnceTheRestoreReturned) {
  migrate();
  EXPECT_FALSE(cr_.in_progress());
  const auto done = find("say: migration of rank 1 to host node-a done");
  ASSERT_EQ(done.size(), 1u) << all_events();
  const auto returned = find("restore returns");
  ASSERT_EQ(returned.size(), 1u) << all_events();
  EXPECT_GT(done[0], returned[0]) << "the round ended inside restore_rank:" << all_events();
  EXPECT_TRUE(find("failed").empty() && find("aborted").empty() && find("fail: ").empty()) << all_events();
  // Neither figure may come out negative, as 'reconnect -1.199 s' did when
  // the nested restores were summed.
  const std::string& line = job_.events[done[0]];
  ASSERT_NE(line.find(", restore "), std::string::npos) << line;
  double restore = -1, reconnect = -1;
  ASSERT_EQ(std::sscanf(line.substr(line.find(", restore ")).c_str(), ", restore %lf s, reconnect %lf s", &restore,
                        &reconnect),
            2)
      << line;
  EXPECT_GE(restore, 0) << line;
  EXPECT_GE(reconnect, 0) << line;
}

TEST_F(MigrateWhileRestoring, DoneDuringARestoreThatFailsEndsTheRoundAsFailedOnce) {
  job_.restore_result = IoError("the helper on node-a lost the restored process");
  migrate();
  EXPECT_FALSE(cr_.in_progress());
  EXPECT_TRUE(find(" done: ").empty()) << all_events();
  const auto failed = find("say: migration of rank 1 to host node-a failed: cannot restore rank 1 on node-a");
  ASSERT_EQ(failed.size(), 1u) << all_events();
  EXPECT_GT(failed[0], find("restore returns").at(0)) << all_events();
  EXPECT_EQ(find("say: ").size(), 1u) << "one outcome, said once:" << all_events();
  EXPECT_EQ(find("fail: cannot restore rank 1 on node-a").size(), 1u) << "the job cannot go on:" << all_events();
}

}  // namespace
}  // namespace lz::launcher
