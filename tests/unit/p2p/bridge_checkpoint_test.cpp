// A bridge between two jobs through a checkpoint of their spawn tree, rank
// side, without processes: two p2p engines in this process (jobs "jobA" and
// "jobB", one rank each, world transport self), joined by a Bridge over tcp
// on this host, and a fake pair of launchers that answers BRIDGE_FENCE.
// Covered: the markers of the in-band drain (p2p/protocol.h kMarker: past
// held sends, not counted, recorded per peer), the drain itself
// (runtime/cr/bridge_drain.h: both sides, a lone side that times out naming
// its peer, a marker of an earlier round that must not count, bookmarks that
// disagree, a lost peer), and the bridge's release and re-opening
// (Engine::checkpoint_transports, resume_transports, reconnect_bridges): the
// fence key, new host and job id, a member whose job ended, a failed table.
// The launchers' side and the CR service around it are the multi-process
// tests'.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <thread>

#include "bootstrap/bootstrap.h"
#include "cr/bridge_drain.h"
#include "lazarus/auth.h"
#include "lazarus/registry.h"
#include "p2p/bridge.h"
#include "p2p/engine.h"
#include "p2p/params.h"
#include "p2p/protocol.h"

namespace lz::rt {
namespace {

using namespace std::chrono_literals;

char* kNoEnv[] = {nullptr};

// The launchers of the tree, as the ranks see them: a BRIDGE_TABLE once every
// member of the key sent its BRIDGE_FENCE (members in `gone` never come: their
// entry is empty), or `error` in every table.
class FakeLaunchers {
 public:
  std::set<uint32_t> gone;
  std::string error;

  StatusOr<std::vector<oob::BridgeTableMsg>> fence(const std::vector<oob::BridgeFenceMsg>& fences, double timeout_s) {
    std::unique_lock<std::mutex> lock(mu_);
    for (const auto& f : fences) {
      auto& slot = keys_[f.key];
      slot.resize(f.members);
      slot[f.member] = f.entries;
      seen_.push_back(f);
    }
    cv_.notify_all();
    auto complete = [&] {
      for (const auto& f : fences) {
        const auto& slot = keys_[f.key];
        for (uint32_t m = 0; m < slot.size(); ++m)
          if (!slot[m] && gone.count(m) == 0) return false;
      }
      return true;
    };
    if (!cv_.wait_for(lock, std::chrono::duration<double>(timeout_s), complete))
      return Timeout("fake launchers: the bridge fence is incomplete");
    std::vector<oob::BridgeTableMsg> out;
    for (const auto& f : fences) {
      oob::BridgeTableMsg t;
      t.key = f.key;
      t.error = error;
      if (error.empty())
        for (const auto& e : keys_[f.key]) t.entries.push_back(e.value_or(""));
      out.push_back(std::move(t));
    }
    return out;
  }
  std::vector<oob::BridgeFenceMsg> seen() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::vector<std::optional<std::string>>> keys_;
  std::vector<oob::BridgeFenceMsg> seen_;
};

// A one-rank job's bootstrap: an in-memory modex, the fake launchers.
class TestBoot final : public Bootstrap {
 public:
  TestBoot(const std::string& job, FakeLaunchers* launchers) : launchers_(launchers) {
    job_.job_id = job;
    job_.hostname = "h";
    job_.node_id = 1;
    job_.node_of_rank = {1};
    job_.hostname_of_rank = {"h"};
    secret_ = auth::new_secret();
  }
  // A restart: a new job id, maybe another host.
  void move_to(const std::string& job, const std::string& host) {
    job_.job_id = job;
    job_.hostname = host;
    job_.hostname_of_rank = {host};
  }

  const JobInfo& job() const override { return job_; }
  const std::string& secret() const override { return secret_; }
  Status put(std::string_view key, std::string_view value) override {
    pending_[std::string(key)] = std::string(value);
    return Status::Ok();
  }
  Status fence() override {
    for (auto& [k, v] : pending_) published_[k] = v;
    pending_.clear();
    return Status::Ok();
  }
  StatusOr<std::string> get(int rank, std::string_view key) const override {
    auto it = published_.find(std::string(key));
    if (rank != 0 || it == published_.end()) return NotFound("no " + std::string(key));
    return it->second;
  }
  Status barrier() override { return Status::Ok(); }
  Status abort(int, std::string_view) override { return Status::Ok(); }
  Status finalize() override { return Status::Ok(); }
  int control_fd() const override { return -1; }
  bool connected() const override { return true; }
  StatusOr<std::vector<oob::BridgeTableMsg>> bridge_fence(const std::vector<oob::BridgeFenceMsg>& fences,
                                                          double timeout_s) override {
    return launchers_->fence(fences, timeout_s);
  }

 private:
  FakeLaunchers* launchers_;
  JobInfo job_;
  std::string secret_;
  std::map<std::string, std::string> pending_, published_;
};

// One process of one job.
struct Side {
  Registry reg;
  std::unique_ptr<TestBoot> boot;
  Engine eng;
  Bridge* bridge = nullptr;  // owned by eng once adopted
};

constexpr int kPeer = 1;  // each engine's number of the other job's process

class BridgeCheckpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    for (auto* s : {&a_, &b_}) {
      *s = std::make_unique<Side>();
      ASSERT_TRUE(register_p2p_params((*s)->reg).ok());
      ConfigOptions o;
      o.read_default_file = false;
      o.read_user_file = false;
      o.envp = kNoEnv;
      o.load_plugins = false;
      o.mca = {{"transport", "self"},
               {"dpm_transport", "tcp"},
               {"transport_tcp_checkpoint_timeout", "2"},
               {"transport_tcp_connect_timeout", "5"}};
      Status c = (*s)->reg.configure(o);
      ASSERT_TRUE(c.ok()) << c.message();
      (*s)->boot = std::make_unique<TestBoot>(s == &a_ ? "jobA" : "jobB", &launchers_);
      Status i = (*s)->eng.init(*(*s)->boot, (*s)->reg);
      ASSERT_TRUE(i.ok()) << i.message();
    }
    // The join's exchange: both processes' entries, by member index.
    std::mutex mu;
    std::condition_variable cv;
    std::optional<std::string> entries[2];
    auto exchange = [&](int me) {
      return [&, me](const std::string& mine) -> StatusOr<std::vector<std::string>> {
        std::unique_lock<std::mutex> lock(mu);
        entries[me] = mine;
        cv.notify_all();
        if (!cv.wait_for(lock, 10s, [&] { return entries[0] && entries[1]; })) return Timeout("join exchange");
        return std::vector<std::string>{*entries[0], *entries[1]};
      };
    };
    const std::vector<ProcessName> members = {{"jobA", 0, "h"}, {"jobB", 0, "h"}};
    const std::string secret = auth::new_secret();
    std::optional<StatusOr<std::unique_ptr<Bridge>>> opened[2];
    std::thread t([&] { opened[1].emplace(Bridge::open(b_->eng, b_->reg, members, 1, secret, exchange(1))); });
    opened[0].emplace(Bridge::open(a_->eng, a_->reg, members, 0, secret, exchange(0)));
    t.join();
    for (int m = 0; m < 2; ++m) {
      ASSERT_TRUE(opened[m]->ok()) << opened[m]->status().message();
      Side& s = m == 0 ? *a_ : *b_;
      s.bridge = opened[m]->value().get();
      auto index = s.eng.adopt_bridge(std::move(opened[m]->value()));
      ASSERT_TRUE(index.ok()) << index.status().message();
      ASSERT_EQ((*index)[1 - m], kPeer);
    }
  }

  void TearDown() override {
    if (!a_ || !b_) return;
    // Both at once: a tcp connection closes in order, each side waiting for the other.
    std::thread t([&] { b_->eng.finalize().ignore(); });
    a_->eng.finalize().ignore();
    t.join();
  }

  // Progresses both engines until `done` (false after 10 s).
  bool pump(const std::function<bool()>& done) {
    const auto until = std::chrono::steady_clock::now() + 10s;
    while (!done()) {
      if (std::chrono::steady_clock::now() > until) return false;
      a_->eng.progress();
      b_->eng.progress();
    }
    return true;
  }

  // `f` on both sides at once (b's on a thread); a's status, b's status.
  std::pair<Status, Status> both(const std::function<Status(Side&)>& f) {
    Status sb;
    std::thread t([&] { sb = f(*b_); });
    Status sa = f(*a_);
    t.join();
    return {sa, sb};
  }

  static Status drain(Side& s, std::chrono::milliseconds timeout) {
    s.eng.hold_sends(true);  // as the CR service does before it drains
    Status r = BridgeDrain(s.eng, timeout).run(-1, nullptr);
    s.eng.hold_sends(false);
    return r;
  }

  // A checkpoint of the tree, as CrService runs it: the drain (unless the
  // other side takes no part), GO, release, continue or restart, fences.
  static Status checkpoint_round(Side& s, bool restarted, bool with_drain = true) {
    s.eng.hold_sends(true);
    Status r = with_drain ? BridgeDrain(s.eng, 10s).run(-1, nullptr) : Status::Ok();
    if (r.ok()) r = s.eng.checkpoint_transports(5000);
    if (r.ok()) r = s.eng.resume_transports(restarted);
    if (r.ok()) r = s.eng.reconnect_transports();
    if (r.ok()) r = s.eng.reconnect_bridges(10);
    s.eng.hold_sends(false);
    return r;
  }

  // Sends a marker from `from` to its peer, however long the transport needs.
  Status send_marker(Side& from, uint32_t gen, uint32_t echo) {
    Status s;
    pump([&] {
      s = from.eng.send_marker(kPeer, gen, echo);
      return s.code() != Code::kWouldBlock;
    });
    return s;
  }

  FakeLaunchers launchers_;
  std::unique_ptr<Side> a_, b_;
};

TEST_F(BridgeCheckpoint, AMarkerPassesHeldSendsAndIsRecordedNotCounted) {
  a_->eng.hold_sends(true);
  ASSERT_TRUE(send_marker(*a_, 7, 3).ok());
  ASSERT_TRUE(pump([&] { return b_->eng.marker(kPeer).gen_in == 7; }));
  const BridgeMarker& m = b_->eng.marker(kPeer);
  EXPECT_EQ(m.echo_in, 3u);
  EXPECT_EQ(m.value_in, a_->eng.sent_to(kPeer));
  EXPECT_EQ(a_->eng.sent_to(kPeer), crcp::Bookmark{});
  EXPECT_EQ(b_->eng.received_from(kPeer), crcp::Bookmark{});
  a_->eng.hold_sends(false);
  // Only to a peer of another job.
  EXPECT_EQ(a_->eng.send_marker(0, 1, 0).code(), Code::kInvalidArgument);
}

TEST_F(BridgeCheckpoint, BothSidesDrainRoundAfterRound) {
  EXPECT_EQ(a_->eng.transports_without_checkpoint(), "");
  for (int round = 1; round <= 3; ++round) {
    auto [sa, sb] = both([](Side& s) { return drain(s, 10s); });
    EXPECT_TRUE(sa.ok()) << "round " << round << ": " << sa.message();
    EXPECT_TRUE(sb.ok()) << "round " << round << ": " << sb.message();
    EXPECT_EQ(a_->eng.marker(kPeer).gen_out, static_cast<uint32_t>(round));
    EXPECT_EQ(b_->eng.marker(kPeer).echo_in, static_cast<uint32_t>(round));
  }
  // Nothing a marker carried reached the bookmarks.
  EXPECT_EQ(a_->eng.received_from(kPeer), crcp::Bookmark{});
  EXPECT_EQ(b_->eng.received_from(kPeer), crcp::Bookmark{});
}

TEST_F(BridgeCheckpoint, ALoneDrainTimesOutNamingItsPeer) {
  Status s = drain(*b_, 300ms);
  EXPECT_EQ(s.code(), Code::kTimeout);
  EXPECT_NE(s.message().find("rank 0 of job jobA"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("its marker not received"), std::string::npos) << s.message();
}

TEST_F(BridgeCheckpoint, AMarkerOfAnEarlierRoundDoesNotCount) {
  // Round 1 fails on both sides, one after the other: a's markers of it
  // (generation 1, the second echoing b's) wait unread at b.
  ASSERT_EQ(drain(*b_, 300ms).code(), Code::kTimeout);
  ASSERT_EQ(drain(*a_, 300ms).code(), Code::kTimeout);
  // Round 2 at b alone: a is not draining, so nothing of it may count.
  Status s = drain(*b_, 300ms);
  EXPECT_EQ(s.code(), Code::kTimeout) << s.message();
  EXPECT_NE(s.message().find("its marker not received"), std::string::npos) << s.message();
  // And a round both take part in still ends.
  auto [sa, sb] = both([](Side& x) { return drain(x, 10s); });
  EXPECT_TRUE(sa.ok()) << sa.message();
  EXPECT_TRUE(sb.ok()) << sb.message();
}

TEST_F(BridgeCheckpoint, MoreThanTheMarkerSaysIsAnInconsistency) {
  // A frame that reaches b without a's engine counting it (its transport directly).
  wire::Header h{};
  h.version = wire::kVersion;
  h.type = wire::kEager;
  h.tag = 5;
  iovec iov{&h, sizeof h};
  ASSERT_TRUE(pump([&] { return a_->bridge->modules()[0]->send(1, &iov, 1).code() != Code::kWouldBlock; }));
  ASSERT_TRUE(pump([&] { return b_->eng.received_from(kPeer).messages == 1; }));
  auto [sa, sb] = both([](Side& s) { return drain(s, 3s); });
  (void)sa;
  EXPECT_EQ(sb.code(), Code::kInternal) << sb.message();
  EXPECT_NE(sb.message().find("received more from rank 0 of job jobA"), std::string::npos) << sb.message();
}

TEST_F(BridgeCheckpoint, ALostPeerIsSkipped) {
  b_->eng.peer_failed(kPeer, Status(Code::kAborted, "killed by the test"));
  Status s = drain(*b_, 300ms);
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST_F(BridgeCheckpoint, ACheckpointClosesAndReopensTheBridge) {
  ASSERT_TRUE(send_marker(*a_, 100, 0).ok());  // a connection to close in order
  ASSERT_TRUE(pump([&] { return b_->eng.marker(kPeer).gen_in == 100; }));
  auto [sa, sb] = both([](Side& s) { return checkpoint_round(s, false); });
  ASSERT_TRUE(sa.ok()) << sa.message();
  ASSERT_TRUE(sb.ok()) << sb.message();
  const auto fences = launchers_.seen();
  ASSERT_EQ(fences.size(), 2u);
  EXPECT_EQ(fences[0].key, fences[1].key);
  EXPECT_TRUE(std::regex_match(fences[0].key, std::regex("[0-9a-f]{32}/1"))) << fences[0].key;
  EXPECT_EQ(fences[0].members, 2u);
  EXPECT_EQ(fences[0].member + fences[1].member, 1u);
  EXPECT_EQ(a_->bridge->epoch(), 1u);
  // The bridge carries frames again, to the new addresses.
  ASSERT_TRUE(send_marker(*a_, 200, 0).ok());
  EXPECT_TRUE(pump([&] { return b_->eng.marker(kPeer).gen_in == 200; }));
  ASSERT_TRUE(send_marker(*b_, 300, 0).ok());
  EXPECT_TRUE(pump([&] { return a_->eng.marker(kPeer).gen_in == 300; }));
}

TEST_F(BridgeCheckpoint, ARestartGivesThePeersTheirNewNamesAndHosts) {
  a_->boot->move_to("jobA-2", "h2");
  b_->boot->move_to("jobB-2", "h2");
  auto [sa, sb] = both([](Side& s) { return checkpoint_round(s, true); });
  ASSERT_TRUE(sa.ok()) << sa.message();
  ASSERT_TRUE(sb.ok()) << sb.message();
  const ProcessName at_b = b_->eng.process_name(kPeer);
  EXPECT_EQ(at_b.job, "jobA-2");
  EXPECT_EQ(at_b.host, "h2");
  EXPECT_EQ(a_->eng.process_name(kPeer).job, "jobB-2");
  EXPECT_EQ(a_->eng.index_of({"jobB-2", 0, ""}), kPeer);
  EXPECT_EQ(a_->bridge->peer(1).host, "h2");
  EXPECT_EQ(a_->bridge->peer(0).host, "h2");  // itself, moved too
  ASSERT_TRUE(send_marker(*a_, 200, 0).ok());
  EXPECT_TRUE(pump([&] { return b_->eng.marker(kPeer).gen_in == 200; }));
  // A second checkpoint: the next epoch, the same bridge.
  auto [sa2, sb2] = both([](Side& s) { return checkpoint_round(s, false); });
  ASSERT_TRUE(sa2.ok()) << sa2.message();
  ASSERT_TRUE(sb2.ok()) << sb2.message();
  const auto fences = launchers_.seen();
  ASSERT_EQ(fences.size(), 4u);
  EXPECT_EQ(fences[2].key.substr(0, 33), fences[0].key.substr(0, 33));
  EXPECT_EQ(fences[2].key.substr(33), "2");
}

TEST_F(BridgeCheckpoint, AMemberWhoseJobEndedIsALostPeerAfterTheFence) {
  launchers_.gone = {1};  // jobB's process never fences
  Status s = checkpoint_round(*a_, false, false);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(a_->eng.peer_lost(kPeer));
  EXPECT_FALSE(a_->bridge->has_entries(1));
}

TEST_F(BridgeCheckpoint, AFailedTableNamesTheBridge) {
  launchers_.error = "the launcher of jobB is gone";
  launchers_.gone = {1};
  Status s = checkpoint_round(*a_, false, false);
  EXPECT_EQ(s.code(), Code::kUnavailable);
  EXPECT_NE(s.message().find("bridge to job jobB"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("the launcher of jobB is gone"), std::string::npos) << s.message();
}

TEST_F(BridgeCheckpoint, TheJoinsExchangeIsNotUsedAfterOpen) {
  Status s = a_->bridge->fence();
  EXPECT_EQ(s.code(), Code::kInternal);
  EXPECT_NE(s.message().find("re-opens through the launchers"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace lz::rt
