// SPAWN_REQUEST / SPAWN_REPLY (runtime/oob/spawn_messages.h): round trips,
// and the decoders' refusals of truncated, oversized and meaningless payloads.
#include "oob/spawn_messages.h"

#include <gtest/gtest.h>

#include "oob/frame.h"
#include "oob/wire.h"

namespace lz::oob {
namespace {

SpawnRequestMsg two_apps() {
  SpawnRequestMsg m;
  m.seq = 7;
  SpawnApp a;
  a.command = "./worker";
  a.argv = {"-v", "", "x y"};
  a.maxprocs = 3;
  a.host = "n1:2,n2";
  a.wdir = "/tmp/w";
  a.path = "/opt/bin:/usr/local/bin";
  SpawnApp b;
  b.command = "manager";
  b.maxprocs = 1;
  b.hostfile = "/etc/hosts.txt";
  m.apps = {a, b};
  m.env = {"LZ_SPAWN_PARENT=host:1234", "EMPTY="};
  return m;
}

TEST(SpawnMessages, RequestRoundTripsEveryField) {
  const SpawnRequestMsg m = two_apps();
  SpawnRequestMsg got;
  ASSERT_TRUE(decode_spawn_request(encode_spawn_request(m), &got).ok());
  EXPECT_EQ(got.seq, 7u);
  ASSERT_EQ(got.apps.size(), 2u);
  EXPECT_EQ(got.apps[0].command, "./worker");
  EXPECT_EQ(got.apps[0].argv, (std::vector<std::string>{"-v", "", "x y"}));
  EXPECT_EQ(got.apps[0].maxprocs, 3);
  EXPECT_EQ(got.apps[0].host, "n1:2,n2");
  EXPECT_EQ(got.apps[0].hostfile, "");
  EXPECT_EQ(got.apps[0].wdir, "/tmp/w");
  EXPECT_EQ(got.apps[0].path, "/opt/bin:/usr/local/bin");
  EXPECT_EQ(got.apps[1].command, "manager");
  EXPECT_TRUE(got.apps[1].argv.empty());
  EXPECT_EQ(got.apps[1].hostfile, "/etc/hosts.txt");
  EXPECT_EQ(got.env, m.env);
}

TEST(SpawnMessages, ReplyRoundTrips) {
  SpawnReplyMsg got;
  ASSERT_TRUE(decode_spawn_reply(encode_spawn_reply({9, 0, "command 'nosuch' not found"}), &got).ok());
  EXPECT_EQ(got.seq, 9u);
  EXPECT_EQ(got.ok, 0);
  EXPECT_EQ(got.message, "command 'nosuch' not found");
  ASSERT_TRUE(decode_spawn_reply(encode_spawn_reply({10, 1, ""}), &got).ok());
  EXPECT_EQ(got.ok, 1);
}

TEST(SpawnMessages, EveryTruncationIsAProtocolErrorNamingTheMessage) {
  const std::string req = encode_spawn_request(two_apps());
  for (size_t n = 0; n < req.size(); ++n) {
    SpawnRequestMsg m;
    Status s = decode_spawn_request(std::string_view(req).substr(0, n), &m);
    ASSERT_EQ(s.code(), Code::kProtocol) << "truncated to " << n;
    EXPECT_NE(s.message().find("SPAWN_REQUEST"), std::string::npos) << s.message();
  }
  const std::string rep = encode_spawn_reply({1, 0, "why"});
  for (size_t n = 0; n < rep.size(); ++n) {
    SpawnReplyMsg m;
    Status s = decode_spawn_reply(std::string_view(rep).substr(0, n), &m);
    ASSERT_EQ(s.code(), Code::kProtocol) << "truncated to " << n;
    EXPECT_NE(s.message().find("SPAWN_REPLY"), std::string::npos) << s.message();
  }
}

TEST(SpawnMessages, TrailingBytesAreRefused) {
  SpawnRequestMsg m;
  EXPECT_EQ(decode_spawn_request(encode_spawn_request(two_apps()) + "x", &m).code(), Code::kProtocol);
  SpawnReplyMsg r;
  EXPECT_EQ(decode_spawn_reply(encode_spawn_reply({1, 1, ""}) + "x", &r).code(), Code::kProtocol);
}

TEST(SpawnMessages, AHugeAppCountIsRefusedBeforeAnythingIsReserved) {
  WireWriter w;
  w.u64(1);
  w.u32(0xFFFFFFFFu);
  SpawnRequestMsg m;
  EXPECT_EQ(decode_spawn_request(w.take(), &m).code(), Code::kProtocol);
  // Within kMaxSpawnApps, but more than the payload could hold.
  WireWriter v;
  v.u64(1);
  v.u32(kMaxSpawnApps);
  v.u32(0);
  EXPECT_EQ(decode_spawn_request(v.take(), &m).code(), Code::kProtocol);
}

TEST(SpawnMessages, ValuesAreTheLaunchersToJudgeNotTheDecoders) {
  // No app, an empty command, maxprocs 0: a request the launcher refuses
  // (SPAWN_REPLY ok 0, launcher/spawned_jobs.h), not a broken protocol.
  SpawnRequestMsg r;
  r.seq = 3;
  SpawnRequestMsg m;
  ASSERT_TRUE(decode_spawn_request(encode_spawn_request(r), &m).ok());
  EXPECT_TRUE(m.apps.empty());
  r.apps.push_back({});
  r.apps[0].maxprocs = -2;
  ASSERT_TRUE(decode_spawn_request(encode_spawn_request(r), &m).ok());
  EXPECT_EQ(m.apps[0].maxprocs, -2);
  EXPECT_EQ(m.apps[0].command, "");
}

TEST(SpawnMessages, AnOversizedStringIsRefused) {
  SpawnRequestMsg r = two_apps();
  r.apps[0].command = std::string(kMaxPathBytes + 1, 'c');
  SpawnRequestMsg m;
  EXPECT_EQ(decode_spawn_request(encode_spawn_request(r), &m).code(), Code::kProtocol);
  SpawnReplyMsg rep;
  EXPECT_EQ(decode_spawn_reply(encode_spawn_reply({1, 0, std::string(kMaxSpawnMessageBytes + 1, 'm')}), &rep).code(),
            Code::kProtocol);
}

TEST(SpawnMessages, AReplyIsOkOrRefused) {
  SpawnReplyMsg rep;
  Status s = decode_spawn_reply(encode_spawn_reply({1, 2, ""}), &rep);
  EXPECT_EQ(s.code(), Code::kProtocol);
  EXPECT_NE(s.message().find("ok 2"), std::string::npos) << s.message();
}

TEST(SpawnMessages, TypesHaveNames) {
  EXPECT_EQ(msg_type_name(static_cast<uint16_t>(MsgType::kSpawnRequest)), "SPAWN_REQUEST");
  EXPECT_EQ(msg_type_name(static_cast<uint16_t>(MsgType::kSpawnReply)), "SPAWN_REPLY");
  EXPECT_EQ(static_cast<uint16_t>(MsgType::kSpawnRequest), 128);
  EXPECT_EQ(static_cast<uint16_t>(MsgType::kSpawnReply), 129);
  EXPECT_EQ(static_cast<uint16_t>(MsgType::kDpmReservedLast), 143);
}

}  // namespace
}  // namespace lz::oob
