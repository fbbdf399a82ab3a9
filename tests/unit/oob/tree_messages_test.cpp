// The spawn tree's messages (runtime/oob/tree_messages.h): BRIDGE_FENCE,
// BRIDGE_TABLE, the TREE_* round and TREE_DONE. Round trips of every field,
// and the decoders' refusals of truncated, oversized, trailing and
// meaningless payloads.
#include "oob/tree_messages.h"

#include <gtest/gtest.h>

#include "oob/frame.h"
#include "oob/wire.h"

namespace lz::oob {
namespace {

BridgeFenceMsg a_fence() {
  BridgeFenceMsg m;
  m.key = "0123456789abcdef0123456789abcdef/3";
  m.member = 2;
  m.members = 5;
  m.entries = std::string("\0\0\0\1binary\0entries", 18);
  m.gone = {0, 4};
  return m;
}

BridgeTableMsg a_table() {
  BridgeTableMsg m;
  m.key = "k/1";
  m.entries = {"first", "", std::string("\xff\x00\x01", 3)};
  return m;
}

// Every prefix of `whole` shorter than it fails with kProtocol naming `what`.
template <typename Msg>
void expect_every_truncation_refused(const std::string& whole, Status (*decode)(std::string_view, Msg*),
                                     const char* what) {
  for (size_t n = 0; n < whole.size(); ++n) {
    Msg m;
    Status s = decode(std::string_view(whole).substr(0, n), &m);
    ASSERT_EQ(s.code(), Code::kProtocol) << what << " truncated to " << n;
    EXPECT_NE(s.message().find(what), std::string::npos) << s.message();
  }
}

TEST(TreeMessages, BridgeFenceRoundTripsEveryField) {
  const BridgeFenceMsg m = a_fence();
  BridgeFenceMsg got;
  ASSERT_TRUE(decode_bridge_fence(encode_bridge_fence(m), &got).ok());
  EXPECT_EQ(got.key, m.key);
  EXPECT_EQ(got.member, 2u);
  EXPECT_EQ(got.members, 5u);
  EXPECT_EQ(got.entries, m.entries);  // binary, with NULs
  EXPECT_EQ(got.gone, (std::vector<uint32_t>{0, 4}));
}

TEST(TreeMessages, BridgeFenceRefusesAGoneMemberOutOfRangeOrItself) {
  for (uint32_t bad : {5u, 2u}) {  // 5 members; the sender is member 2
    BridgeFenceMsg m = a_fence();
    m.gone = {bad};
    BridgeFenceMsg got;
    Status s = decode_bridge_fence(encode_bridge_fence(m), &got);
    EXPECT_EQ(s.code(), Code::kProtocol) << bad;
    EXPECT_NE(s.message().find("is gone"), std::string::npos) << s.message();
  }
}

TEST(TreeMessages, BridgeTableRoundTripsEntriesAndError) {
  BridgeTableMsg got;
  ASSERT_TRUE(decode_bridge_table(encode_bridge_table(a_table()), &got).ok());
  EXPECT_EQ(got.key, "k/1");
  EXPECT_EQ(got.error, "");
  ASSERT_EQ(got.entries.size(), 3u);
  EXPECT_EQ(got.entries[0], "first");
  EXPECT_EQ(got.entries[1], "");  // a member that did not re-open
  EXPECT_EQ(got.entries[2], std::string("\xff\x00\x01", 3));

  BridgeTableMsg failed;
  failed.key = "k/2";
  failed.error = "job 7 ended before its bridge re-opened";
  ASSERT_TRUE(decode_bridge_table(encode_bridge_table(failed), &got).ok());
  EXPECT_EQ(got.key, "k/2");
  EXPECT_EQ(got.error, failed.error);
  EXPECT_TRUE(got.entries.empty());
}

TEST(TreeMessages, TreeRoundAndDoneRoundTrip) {
  TreeRoundMsg r;
  ASSERT_TRUE(decode_tree_round(encode_tree_round({0xFFFFFFFFFFull, 1u << 5}), &r).ok());
  EXPECT_EQ(r.round, 0xFFFFFFFFFFull);
  EXPECT_EQ(r.flags, 1u << 5);

  TreeDoneMsg d;
  ASSERT_TRUE(decode_tree_done(encode_tree_done({4, 1, "/store/job-b/4", ""}), &d).ok());
  EXPECT_EQ(d.round, 4u);
  EXPECT_EQ(d.ok, 1);
  EXPECT_EQ(d.snapshot, "/store/job-b/4");
  EXPECT_EQ(d.reason, "");
  ASSERT_TRUE(decode_tree_done(encode_tree_done({5, 0, "", "rank 1 of job b: drain timed out"}), &d).ok());
  EXPECT_EQ(d.ok, 0);
  EXPECT_EQ(d.reason, "rank 1 of job b: drain timed out");
}

TEST(TreeMessages, EveryTruncationIsAProtocolErrorNamingTheMessage) {
  expect_every_truncation_refused(encode_bridge_fence(a_fence()), &decode_bridge_fence, "BRIDGE_FENCE");
  expect_every_truncation_refused(encode_bridge_table(a_table()), &decode_bridge_table, "BRIDGE_TABLE");
  expect_every_truncation_refused(encode_tree_round({1, 2}), &decode_tree_round, "TREE round");
  expect_every_truncation_refused(encode_tree_done({1, 1, "snap", "why"}), &decode_tree_done, "TREE_DONE");
}

TEST(TreeMessages, TrailingBytesAreRefused) {
  BridgeFenceMsg f;
  EXPECT_EQ(decode_bridge_fence(encode_bridge_fence(a_fence()) + "x", &f).code(), Code::kProtocol);
  BridgeTableMsg t;
  EXPECT_EQ(decode_bridge_table(encode_bridge_table(a_table()) + "x", &t).code(), Code::kProtocol);
  TreeRoundMsg r;
  EXPECT_EQ(decode_tree_round(encode_tree_round({1, 0}) + "x", &r).code(), Code::kProtocol);
  TreeDoneMsg d;
  EXPECT_EQ(decode_tree_done(encode_tree_done({1, 0, "", ""}) + "x", &d).code(), Code::kProtocol);
}

TEST(TreeMessages, AFenceMemberOutsideItsBridgeIsRefusedNamingBoth) {
  BridgeFenceMsg m = a_fence();
  BridgeFenceMsg got;
  m.member = 5;  // == members
  Status s = decode_bridge_fence(encode_bridge_fence(m), &got);
  EXPECT_EQ(s.code(), Code::kProtocol);
  EXPECT_NE(s.message().find("member 5 of 5"), std::string::npos) << s.message();
  m.member = 0;
  m.members = 0;
  EXPECT_EQ(decode_bridge_fence(encode_bridge_fence(m), &got).code(), Code::kProtocol);
  m.members = kMaxBridgeMembers + 1;
  EXPECT_EQ(decode_bridge_fence(encode_bridge_fence(m), &got).code(), Code::kProtocol);
  m.members = kMaxBridgeMembers;
  m.member = kMaxBridgeMembers - 1;
  EXPECT_TRUE(decode_bridge_fence(encode_bridge_fence(m), &got).ok());
  // Nothing of the refused ones reached the output.
  EXPECT_EQ(got.member, kMaxBridgeMembers - 1);
}

TEST(TreeMessages, OversizedFieldsAreRefused) {
  BridgeFenceMsg f = a_fence();
  BridgeFenceMsg fgot;
  f.key = std::string(kMaxBridgeKeyBytes, 'k');
  EXPECT_TRUE(decode_bridge_fence(encode_bridge_fence(f), &fgot).ok());
  f.key += 'k';
  EXPECT_EQ(decode_bridge_fence(encode_bridge_fence(f), &fgot).code(), Code::kProtocol);
  f = a_fence();
  f.entries = std::string(kMaxBridgeEntryBytes + 1, 'e');
  EXPECT_EQ(decode_bridge_fence(encode_bridge_fence(f), &fgot).code(), Code::kProtocol);

  BridgeTableMsg t = a_table();
  BridgeTableMsg tgot;
  t.key = std::string(kMaxBridgeKeyBytes + 1, 'k');
  EXPECT_EQ(decode_bridge_table(encode_bridge_table(t), &tgot).code(), Code::kProtocol);
  t = a_table();
  t.error = std::string(kMaxTreeTextBytes + 1, 'e');
  EXPECT_EQ(decode_bridge_table(encode_bridge_table(t), &tgot).code(), Code::kProtocol);
  t = a_table();
  t.entries = {std::string(kMaxBridgeEntryBytes + 1, 'e')};
  EXPECT_EQ(decode_bridge_table(encode_bridge_table(t), &tgot).code(), Code::kProtocol);

  TreeDoneMsg dgot;
  EXPECT_EQ(decode_tree_done(encode_tree_done({1, 1, std::string(kMaxTreeTextBytes + 1, 's'), ""}), &dgot).code(),
            Code::kProtocol);
  EXPECT_EQ(decode_tree_done(encode_tree_done({1, 0, "", std::string(kMaxTreeTextBytes + 1, 'r')}), &dgot).code(),
            Code::kProtocol);
}

TEST(TreeMessages, AHugeEntryCountIsRefusedBeforeAnythingIsReserved) {
  WireWriter w;
  w.str("k/1");
  w.str("");
  w.u32(0xFFFFFFFFu);
  BridgeTableMsg t;
  EXPECT_EQ(decode_bridge_table(w.take(), &t).code(), Code::kProtocol);
  // Within kMaxBridgeMembers, but more than the payload could hold.
  WireWriter v;
  v.str("k/1");
  v.str("");
  v.u32(kMaxBridgeMembers);
  v.u32(0);
  EXPECT_EQ(decode_bridge_table(v.take(), &t).code(), Code::kProtocol);
}

TEST(TreeMessages, ADoneIsCommittedOrFailed) {
  TreeDoneMsg d;
  Status s = decode_tree_done(encode_tree_done({1, 2, "", ""}), &d);
  EXPECT_EQ(s.code(), Code::kProtocol);
  EXPECT_NE(s.message().find("ok 2"), std::string::npos) << s.message();
  EXPECT_EQ(decode_tree_done(encode_tree_done({1, -1, "", ""}), &d).code(), Code::kProtocol);
}

TEST(TreeMessages, TypesHaveNamesAndStayInTheDynamicProcessRange) {
  const std::pair<MsgType, const char*> names[] = {
      {MsgType::kBridgeFence, "BRIDGE_FENCE"}, {MsgType::kBridgeTable, "BRIDGE_TABLE"},
      {MsgType::kTreeCheckpoint, "TREE_CHECKPOINT"}, {MsgType::kTreeDrained, "TREE_DRAINED"},
      {MsgType::kTreeGo, "TREE_GO"}, {MsgType::kTreeAbort, "TREE_ABORT"}, {MsgType::kTreeDone, "TREE_DONE"}};
  for (const auto& [type, name] : names) {
    EXPECT_EQ(msg_type_name(static_cast<uint16_t>(type)), name);
    EXPECT_GT(static_cast<uint16_t>(type), static_cast<uint16_t>(MsgType::kSpawnReply)) << name;
    EXPECT_LE(static_cast<uint16_t>(type), static_cast<uint16_t>(MsgType::kDpmReservedLast)) << name;
  }
  EXPECT_EQ(static_cast<uint16_t>(MsgType::kBridgeFence), 130);
  EXPECT_EQ(static_cast<uint16_t>(MsgType::kBridgeTable), 131);
}

}  // namespace
}  // namespace lz::oob
