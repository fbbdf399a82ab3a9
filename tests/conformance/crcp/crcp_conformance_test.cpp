// crcp conformance: written once, instantiated over every crcp component the
// Registry knows (built-in or plugin), crcp/none being the reference. The
// runtime's side of the protocol is a fake coordinator whose bookmarks and
// in-flight frames each test sets; what is checked is crcp.h's contract:
// sends held before the bookmarks are taken, the drain ends exactly when every
// "received" bookmark matches the peer's "sent" one, a bounded drain names the
// peers that never matched, resume() releases held sends. A protocol without
// kCapDrain is skipped with that reason for multi-rank scenarios, and must
// then refuse them. A protocol with kCapMessageLog (crcp/c3) is driven as two
// ranks across a line and a restart: a late message logged and replayed once,
// an early one suppressed once when re-sent, a line with messages in flight
// refused on another rank count. A protocol that works only with one kind of
// cr back end (c3: cr=app) is tested with the first cr component it accepts.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "cr/cr_params.h"
#include "lazarus/frameworks/crcp.h"
#include "lazarus/param_store.h"
#include "lazarus/registry.h"
#include "temp_dir.h"

namespace lz::conformance {
namespace {

using crcp::Bookmark;

class FakeCoordinator final : public crcp::Coordinator {
 public:
  explicit FakeCoordinator(int n) : sent(n), received(n), theirs(n), arrivals(n) {}
  int rank() const override { return 0; }
  int size() const override { return static_cast<int>(sent.size()); }
  Bookmark sent_to(int p) const override { return sent[static_cast<size_t>(p)]; }
  Bookmark received_from(int p) const override { return received[static_cast<size_t>(p)]; }
  StatusOr<std::vector<Bookmark>> exchange(const std::vector<Bookmark>& mine) override {
    exchanged = mine;
    held_at_exchange = held;
    ++exchanges;
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
  int turns = 0, exchanges = 0;
};

std::vector<std::string> registered_crcp() {
  Registry reg;  // built-in components; configure() adds plugins from component_path
  ConfigOptions o;
  o.read_user_file = false;
  if (!reg.configure(o).ok()) {
    Registry plain;  // a broken user/environment setting must not hide the built-in list
    return plain.framework("crcp")->component_names();
  }
  return reg.framework("crcp")->component_names();
}

class CrcpConformance : public ::testing::TestWithParam<std::string> {
 protected:
  // Selects GetParam() with the runtime's cr_drain_timeout at `drain_seconds`
  // (the bound quiesce() must keep).
  void Configure(double drain_seconds) {
    reg_ = std::make_unique<Registry>();
    ASSERT_TRUE(rt::register_cr_params(*reg_).ok());
    ConfigOptions o;
    o.read_user_file = false;
    o.mca = {{"crcp", GetParam()}, {rt::kParamCrDrainTimeout, std::to_string(drain_seconds)}};
    Status s = reg_->configure(o);
    ASSERT_TRUE(s.ok()) << s.to_string();
    auto picked = reg_->framework("crcp")->select(reg_->query_context());
    if (!picked.ok()) {
      // Declined with the default cr back end: the first one it works with.
      for (const std::string& cr : reg_->framework("cr")->component_names()) {
        auto reg = std::make_unique<Registry>();
        ASSERT_TRUE(rt::register_cr_params(*reg).ok());
        ConfigOptions with = o;
        with.mca.push_back({"cr", cr});
        if (!reg->configure(with).ok()) continue;
        auto again = reg->framework("crcp")->select(reg->query_context());
        if (!again.ok()) continue;
        reg_ = std::move(reg);
        cr_ = cr;
        picked = std::move(again);
        break;
      }
    }
    if (!picked.ok()) GTEST_SKIP() << "crcp/" << GetParam() << " cannot run here: " << picked.status().message();
    ASSERT_FALSE(picked->empty());
    module_.reset(dynamic_cast<crcp::Module*>(picked->front().module.release()));
    ASSERT_NE(module_, nullptr) << "crcp/" << GetParam() << "'s module is not a crcp::Module";
  }
  // Another module of GetParam() with the same configuration (another rank,
  // or the same rank after a restart).
  std::unique_ptr<crcp::Module> Another() {
    auto picked = reg_->framework("crcp")->select(reg_->query_context());
    if (!picked.ok() || picked->empty()) return nullptr;
    return std::unique_ptr<crcp::Module>(dynamic_cast<crcp::Module*>(picked->front().module.release()));
  }
  void SetUp() override { Configure(60); }

  // Multi-rank scenarios need kCapDrain; without it the protocol must refuse.
  void RequireDrain() {
    if (module_->capabilities() & crcp::kCapDrain) return;
    FakeCoordinator c(2);
    Status s = module_->quiesce(c);
    EXPECT_FALSE(s.ok()) << "crcp/" << GetParam() << " lacks kCapDrain but quiesced a 2-rank job";
    EXPECT_FALSE(s.message().empty());
    EXPECT_TRUE(module_->resume(c, false).ok());
    GTEST_SKIP() << "crcp/" << GetParam() << " lacks the capability `drain` (it refuses multi-rank jobs: "
                 << s.message() << ")";
  }

  std::unique_ptr<Registry> reg_;
  std::unique_ptr<crcp::Module> module_;
  std::string cr_;  // the cr component it needed, when not the default
};

TEST_P(CrcpConformance, DescriptorIsSane) {
  const ComponentEntry* e = reg_->framework("crcp")->find(GetParam());
  ASSERT_NE(e, nullptr);
  const ComponentDescriptor* d = e->desc;
  EXPECT_EQ(d->magic, kComponentMagic);
  EXPECT_EQ(d->abi_version, kComponentAbiVersion);
  EXPECT_STREQ(d->framework, "crcp");
  EXPECT_EQ(GetParam(), d->name);
  EXPECT_EQ(d->interface_version, crcp::kInterfaceVersion);
  EXPECT_TRUE(d->version != nullptr && *d->version);
  EXPECT_TRUE(d->description != nullptr && *d->description);
  EXPECT_NE(d->query, nullptr);
  EXPECT_TRUE(reg_->params().is_registered("crcp_" + GetParam() + "_priority"));
  for (size_t i = 0; i < d->num_params; ++i) {
    const ParamSpec& p = d->params[i];
    EXPECT_TRUE(p.help != nullptr && *p.help) << p.name << " has no help";
    EXPECT_TRUE(reg_->params().is_registered("crcp_" + GetParam() + "_" + p.name)) << p.name;
  }
}

TEST_P(CrcpConformance, QueryGivesAModuleOrAReason) {
  for (const QueryResult& q : reg_->framework("crcp")->query_all(reg_->query_context(true))) {
    if (GetParam() != q.entry->desc->name) continue;
    if (q.module) EXPECT_NE(dynamic_cast<crcp::Module*>(q.module.get()), nullptr);
    else EXPECT_FALSE(q.declined.ok() || q.declined.message().empty()) << "declined without a reason";
    return;
  }
  ADD_FAILURE() << "query_all() did not answer for crcp/" << GetParam();
}

TEST_P(CrcpConformance, OneRankJobQuiescesAndResumes) {
  FakeCoordinator c(1);
  Status s = module_->quiesce(c);
  ASSERT_TRUE(s.ok()) << s.to_string();
  ASSERT_TRUE(module_->resume(c, false).ok());
  EXPECT_FALSE(c.held) << "resume() must release held sends";
}

TEST_P(CrcpConformance, DrainsUntilEveryBookmarkMatches) {
  RequireDrain();
  if (IsSkipped()) return;
  FakeCoordinator c(3);
  c.sent = {{0, 0}, {2, 100}, {1, 60}};
  c.theirs = {{0, 0}, {3, 150}, {2, 120}};
  c.received = {{0, 0}, {1, 50}, {1, 60}};
  c.arrivals[1] = {50, 50};
  c.arrivals[2] = {60};
  ASSERT_TRUE(module_->quiesce(c).ok());
  EXPECT_TRUE(c.held_at_exchange) << "sends must be held before the bookmarks are taken";
  EXPECT_TRUE(c.held) << "sends stay held until resume()";
  EXPECT_EQ(c.exchanged, c.sent);
  for (size_t p = 0; p < 3; ++p) EXPECT_EQ(c.received[p], c.theirs[p]) << "peer " << p;
  ASSERT_TRUE(module_->resume(c, true).ok());
  EXPECT_FALSE(c.held) << "resume() releases held sends";
}

TEST_P(CrcpConformance, NothingInFlightNeedsNoProgress) {
  RequireDrain();
  if (IsSkipped()) return;
  FakeCoordinator c(2);
  c.theirs = {{0, 0}, {4, 400}};
  c.received = {{0, 0}, {4, 400}};
  ASSERT_TRUE(module_->quiesce(c).ok());
  EXPECT_EQ(c.turns, 0);
  ASSERT_TRUE(module_->resume(c, false).ok());
}

TEST_P(CrcpConformance, BoundedDrainNamesOnlyThePeersBehind) {
  Configure(0.02);
  if (IsSkipped()) return;
  RequireDrain();
  if (IsSkipped()) return;
  FakeCoordinator c(4);
  c.theirs = {{0, 0}, {1, 10}, {5, 500}, {0, 0}};
  c.received = {{0, 0}, {1, 10}, {3, 300}, {0, 0}};  // rank 2's last two frames never arrive
  Status s = module_->quiesce(c);
  ASSERT_EQ(s.code(), Code::kTimeout) << s.to_string();
  EXPECT_NE(s.message().find("rank 2"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("rank 1"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("rank 3"), std::string::npos) << s.message();
  ASSERT_TRUE(module_->resume(c, false).ok());
  EXPECT_FALSE(c.held);
}

TEST_P(CrcpConformance, MoreReceivedThanSentIsAnErrorNamingThePeer) {
  RequireDrain();
  if (IsSkipped()) return;
  FakeCoordinator c(2);
  c.theirs = {{0, 0}, {1, 10}};
  c.received = {{0, 0}, {2, 20}};
  Status s = module_->quiesce(c);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("rank 1"), std::string::npos) << s.message();
  ASSERT_TRUE(module_->resume(c, false).ok());
}

TEST_P(CrcpConformance, AbortedExchangeIsReturnedAndResumeReleases) {
  RequireDrain();
  if (IsSkipped()) return;
  FakeCoordinator c(2);
  c.abort = true;
  Status s = module_->quiesce(c);
  EXPECT_EQ(s.code(), Code::kAborted) << s.to_string();
  EXPECT_TRUE(c.held) << "sends stay held after a failed quiesce(), until resume()";
  ASSERT_TRUE(module_->resume(c, false).ok());
  EXPECT_FALSE(c.held);
}

// Two ranks of a job across one line and a restart. Rank 0 sends L before its
// line and E after it; rank 1 matches E before its own line (early) and L
// after it (late).
TEST_P(CrcpConformance, MessageLogCarriesALineAcrossARestart) {
  if (!(module_->capabilities() & crcp::kCapMessageLog))
    GTEST_SKIP() << "crcp/" << GetParam() << " lacks the capability `message-log` (no application-level protocol)";
  SCOPED_TRACE(cr_.empty() ? "default cr" : "with cr " + cr_);
  lz::test::TempDir scratch;
  const std::string dir = scratch.path();

  std::unique_ptr<crcp::Module> r0 = std::move(module_), r1 = Another();
  ASSERT_NE(r1, nullptr);
  ASSERT_TRUE(r0->attach(0, 2).ok());
  ASSERT_TRUE(r1->attach(1, 2).ok());
  crcp::MessageLog *log0 = r0->message_log(), *log1 = r1->message_log();
  crcp::LineProtocol *line0 = r0->line_protocol(), *line1 = r1->line_protocol();
  ASSERT_TRUE(log0 && log1 && line0 && line1) << "kCapMessageLog without message_log() and line_protocol()";

  uint64_t late = 0, early = 0;
  ASSERT_TRUE(log0->stamp_send(1, &late));
  const std::vector<uint64_t> sent0 = line0->begin_line();
  ASSERT_EQ(sent0.size(), 2u);
  EXPECT_EQ(sent0[1], 1u) << "rank 0 sent one message to rank 1 before its line";
  ASSERT_TRUE(log0->stamp_send(1, &early));
  EXPECT_GT(crcp::stamp_epoch(early), crcp::stamp_epoch(late)) << "a send after the line must carry the new epoch";

  const crcp::Matched me{0, 7, 0, 11, early}, ml{0, 7, 0, 10, late};
  EXPECT_FALSE(log1->on_match(me)) << "an early message is not logged";
  const std::vector<uint64_t> sent1 = line1->begin_line();
  EXPECT_FALSE(line1->line_complete()) << "complete before it knows what rank 0 sent";
  line1->expect({sent0[1], 0});
  line0->expect({0, sent1[0]});
  EXPECT_TRUE(line0->line_complete());
  EXPECT_FALSE(line1->line_complete()) << "complete with the late message not yet logged";
  ASSERT_TRUE(log1->on_match(ml)) << "a message sent before the sender's line and matched after the receiver's is late";
  log1->log_payload(ml, "late!", 5);
  EXPECT_TRUE(line1->line_complete());

  for (int r = 0; r < 2; ++r) {
    const std::string rank_dir = dir + "/rank." + std::to_string(r);
    ASSERT_EQ(mkdir(rank_dir.c_str(), 0700), 0);
    auto bytes = (r == 0 ? line0 : line1)->save_line({rank_dir, "conformance", r, 1, 5});
    ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  }

  // The restart on the same two ranks.
  std::unique_ptr<crcp::Module> n0 = Another(), n1 = Another();
  ASSERT_TRUE(n0 && n1);
  ASSERT_TRUE(n0->attach(0, 2).ok());
  ASSERT_TRUE(n1->attach(1, 2).ok());
  Status s0 = n0->line_protocol()->load_line(dir, 0, 2, 2), s1 = n1->line_protocol()->load_line(dir, 1, 2, 2);
  ASSERT_TRUE(s0.ok()) << s0.to_string();
  ASSERT_TRUE(s1.ok()) << s1.to_string();
  std::vector<crcp::Replayed> replay = n1->message_log()->take_replay();
  ASSERT_EQ(replay.size(), 1u) << "the late message must be replayed once";
  EXPECT_EQ(replay[0].payload, "late!");
  EXPECT_EQ(replay[0].m.stamp, late);
  EXPECT_EQ(replay[0].m.tag, 10);
  EXPECT_TRUE(n1->message_log()->take_replay().empty()) << "the replay is taken once";
  EXPECT_TRUE(n0->message_log()->take_replay().empty());
  uint64_t again = 0;
  EXPECT_FALSE(n0->message_log()->stamp_send(1, &again)) << "the early message, sent again, must be suppressed";
  EXPECT_EQ(again, early);
  EXPECT_TRUE(n0->message_log()->stamp_send(1, &again)) << "only that one message is suppressed";

  // Messages in flight at the line: not restartable on another rank count.
  std::unique_ptr<crcp::Module> m3 = Another();
  ASSERT_TRUE(m3 && m3->attach(0, 3).ok());
  Status s3 = m3->line_protocol()->load_line(dir, 0, 3, 2);
  EXPECT_FALSE(s3.ok()) << "a line with a late message was loaded on 3 ranks";
  EXPECT_NE(s3.message().find("rank"), std::string::npos) << s3.to_string();
}

// A restart on the same ranks where rank 0 restores first and sends at
// once (a window's fence count): rank 1 matches that message before its
// own restore. It still counts, or rank 1's next line waits for it forever
// as a late message.
TEST_P(CrcpConformance, MessageLogCountsAMessageMatchedBeforeItsRestore) {
  if (!(module_->capabilities() & crcp::kCapMessageLog))
    GTEST_SKIP() << "crcp/" << GetParam() << " lacks the capability `message-log` (no application-level protocol)";
  lz::test::TempDir scratch;
  const std::string dir = scratch.path();
  std::unique_ptr<crcp::Module> r0 = std::move(module_), r1 = Another();
  ASSERT_NE(r1, nullptr);
  ASSERT_TRUE(r0->attach(0, 2).ok());
  ASSERT_TRUE(r1->attach(1, 2).ok());
  std::vector<crcp::LineProtocol*> lines = {r0->line_protocol(), r1->line_protocol()};
  ASSERT_TRUE(lines[0] && lines[1]);
  for (crcp::LineProtocol* l : lines) l->begin_line();
  for (crcp::LineProtocol* l : lines) {
    l->expect({0, 0});
    ASSERT_TRUE(l->line_complete());
  }
  for (int r = 0; r < 2; ++r) {
    const std::string rank_dir = dir + "/rank." + std::to_string(r);
    ASSERT_EQ(mkdir(rank_dir.c_str(), 0700), 0);
    ASSERT_TRUE(lines[static_cast<size_t>(r)]->save_line({rank_dir, "conformance", r, 1, 5}).ok());
  }

  std::unique_ptr<crcp::Module> n0 = Another(), n1 = Another();
  ASSERT_TRUE(n0 && n1);
  ASSERT_TRUE(n0->attach(0, 2).ok());
  ASSERT_TRUE(n1->attach(1, 2).ok());
  ASSERT_TRUE(n0->line_protocol()->load_line(dir, 0, 2, 2).ok());
  uint64_t stamp = 0;
  ASSERT_TRUE(n0->message_log()->stamp_send(1, &stamp));
  n1->message_log()->on_match({0, 7, 0, 3, stamp});  // rank 1 has not restored yet
  ASSERT_TRUE(n1->line_protocol()->load_line(dir, 1, 2, 2).ok());

  const std::vector<uint64_t> sent0 = n0->line_protocol()->begin_line(), sent1 = n1->line_protocol()->begin_line();
  EXPECT_EQ(sent0[1], 1u) << "rank 0 sent one message since its restore";
  n1->line_protocol()->expect({sent0[1], 0});
  n0->line_protocol()->expect({0, sent1[0]});
  EXPECT_TRUE(n0->line_protocol()->line_complete());
  EXPECT_TRUE(n1->line_protocol()->line_complete())
      << "rank 1 waits for a message it matched before its restore, as if it were late";
}

// A rank moved to a new process at a safe point (cr=app migration): the
// counters carry over, so its stamps go on where the old process stopped
// and its peers' late/early bookkeeping stays right.
TEST_P(CrcpConformance, MessageLogCountersContinueInANewProcess) {
  if (!(module_->capabilities() & crcp::kCapMessageLog))
    GTEST_SKIP() << "crcp/" << GetParam() << " lacks the capability `message-log` (no application-level protocol)";
  std::unique_ptr<crcp::Module> old = std::move(module_), fresh = Another(), other = Another();
  ASSERT_TRUE(fresh && other);
  ASSERT_TRUE(old->attach(0, 2).ok());
  ASSERT_TRUE(fresh->attach(0, 2).ok());
  ASSERT_TRUE(other->attach(0, 3).ok());
  crcp::MessageLog* log = old->message_log();
  crcp::LineProtocol* line = old->line_protocol();
  ASSERT_TRUE(log && line);
  uint64_t stamp = 0, last = 0;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(log->stamp_send(1, &stamp));
  EXPECT_FALSE(log->on_match({1, 7, 1, 0, 0})) << "an intra-epoch message is not late";

  // A line under way: its log would be lost with the old process.
  line->begin_line();
  auto refused = line->export_counters();
  EXPECT_FALSE(refused.ok()) << "counters exported while a line is incomplete";
  line->expect({0, 0});
  ASSERT_TRUE(line->line_complete());
  ASSERT_TRUE(log->stamp_send(1, &last));

  auto blob = line->export_counters();
  ASSERT_TRUE(blob.ok()) << blob.status().to_string();
  ASSERT_TRUE(fresh->line_protocol()->import_counters(*blob).ok());
  uint64_t next = 0, again = 0;
  ASSERT_TRUE(fresh->message_log()->stamp_send(1, &next));
  ASSERT_TRUE(log->stamp_send(1, &again));
  EXPECT_EQ(next, again) << "the new process's next stamp must be the one the old process would have given";
  EXPECT_EQ(crcp::stamp_epoch(next), crcp::stamp_epoch(last));
  EXPECT_EQ(crcp::stamp_index(next), crcp::stamp_index(last) + 1);
  const std::vector<uint64_t> sent = fresh->line_protocol()->begin_line();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[1], 5u) << "cumulative sends to rank 1 go on across the move";

  Status wrong = other->line_protocol()->import_counters(*blob);
  EXPECT_FALSE(wrong.ok()) << "counters of a 2-rank job taken by a 3-rank one";
  EXPECT_FALSE(fresh->line_protocol()->import_counters(blob->substr(0, blob->size() / 2)).ok()) << "a truncated blob";
}

// A spawn tree under cr=app: peers numbered after the world are processes
// of another job. A spawned job starts in its parent's epoch; what such a
// peer sent before its line comes from the peer (expect_peer), and its late
// messages are logged and replayed like the world's; an early one is
// counted for the app service to drop the line.
TEST_P(CrcpConformance, PeersOfAnotherJobCountInBandAndReplay) {
  if (!(module_->capabilities() & crcp::kCapMessageLog))
    GTEST_SKIP() << "crcp/" << GetParam() << " lacks the capability `message-log` (no application-level protocol)";
  lz::test::TempDir scratch;
  const std::string dir = scratch.path();
  // Job A's only rank, and the only rank of job B that it spawned in its
  // epoch 2: each is the other's peer 1.
  std::unique_ptr<crcp::Module> a = std::move(module_), b = Another(), b2 = Another();
  ASSERT_TRUE(b && b2);
  ASSERT_TRUE(a->attach(0, 1).ok() && b->attach(0, 1).ok() && b2->attach(0, 1).ok());
  crcp::LineProtocol *la = a->line_protocol(), *lb = b->line_protocol();
  for (int i = 0; i < 2; ++i) (void)la->begin_line(), la->expect({0});
  ASSERT_EQ(la->epoch(), 2u);
  lb->start_epoch(la->epoch());
  b2->line_protocol()->start_epoch(la->epoch());
  EXPECT_EQ(lb->epoch(), 2u) << "a spawned job starts in the epoch of the rank that spawned it";

  uint64_t late = 0, early = 0;
  ASSERT_TRUE(a->message_log()->stamp_send(1, &late));
  const std::vector<uint64_t> sent_a = la->begin_line();
  ASSERT_EQ(sent_a.size(), 2u) << "the line counts what went to the peer of the other job";
  EXPECT_EQ(sent_a[1], 1u);
  ASSERT_TRUE(a->message_log()->stamp_send(1, &early));

  (void)lb->begin_line();
  lb->await_peers({1});
  lb->expect({0});
  EXPECT_FALSE(lb->line_complete()) << "complete before the other job's peer said what it sent";
  lb->expect_peer(1, sent_a[1]);
  EXPECT_FALSE(lb->line_complete()) << "complete with the late message from the other job not logged";
  const crcp::Matched ml{1, 9, 0, 4, late};
  ASSERT_TRUE(b->message_log()->on_match(ml)) << "a message of the other job sent before its line is late";
  b->message_log()->log_payload(ml, "task", 4);
  EXPECT_TRUE(lb->line_complete());
  EXPECT_EQ(lb->early_count(1), 0u);

  // b2 receives the message a sent after its line before its own line: early.
  EXPECT_FALSE(b2->message_log()->on_match({1, 9, 0, 4, early}));
  (void)b2->line_protocol()->begin_line();
  EXPECT_EQ(b2->line_protocol()->early_count(1), 1u) << "an early message from the other job's peer is counted";
  EXPECT_EQ(b2->line_protocol()->early_count(2), 0u) << "only from peers numbered from first_peer";

  // b's line saved and loaded: the other job's late message comes back.
  const std::string rank_dir = dir + "/rank.0";
  ASSERT_EQ(mkdir(rank_dir.c_str(), 0700), 0);
  ASSERT_TRUE(lb->save_line({rank_dir, "conformance", 0, 1, 30}).ok());
  std::unique_ptr<crcp::Module> nb = Another();
  ASSERT_TRUE(nb && nb->attach(0, 1).ok());
  Status s = nb->line_protocol()->load_line(dir, 0, 1, 1);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_EQ(nb->line_protocol()->epoch(), 3u);
  std::vector<crcp::Replayed> replay = nb->message_log()->take_replay();
  ASSERT_EQ(replay.size(), 1u);
  EXPECT_EQ(replay[0].m.world_src, 1);
  EXPECT_EQ(replay[0].payload, "task");
}

INSTANTIATE_TEST_SUITE_P(All, CrcpConformance, ::testing::ValuesIn(registered_crcp()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace lz::conformance
