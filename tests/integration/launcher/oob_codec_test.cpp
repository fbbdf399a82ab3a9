// The OOB wire format: framing limits and bounds-checked decoders. Hostile
// input must produce kProtocol errors, never a crash or an oversized buffer.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>

#include "oob/frame.h"
#include "oob/helper_messages.h"
#include "oob/messages.h"
#include "oob/wire.h"

namespace lz::oob {
namespace {

TEST(OobFrame, RoundTripsInPieces) {
  std::string bytes = encode_frame(MsgType::kBarrier, encode_seq({42})) + encode_frame(MsgType::kFinalize, "");
  FrameDecoder dec;
  std::vector<Frame> got;
  for (char c : bytes) {  // one byte at a time, as a slow socket would deliver them
    dec.feed(&c, 1);
    Frame f;
    auto r = dec.next(&f);
    ASSERT_TRUE(r.ok());
    if (*r) got.push_back(f);
  }
  ASSERT_EQ(got.size(), 2u);
  SeqMsg s;
  ASSERT_TRUE(decode_seq(got[0].payload, &s).ok());
  EXPECT_EQ(s.seq, 42u);
  EXPECT_EQ(got[1].type, static_cast<uint16_t>(MsgType::kFinalize));
  EXPECT_EQ(dec.buffered(), 0u);
}

TEST(OobFrame, RejectsBadMagicVersionAndLength) {
  auto check = [](std::string bytes, const char* what) {
    FrameDecoder dec;
    dec.feed(bytes.data(), bytes.size());
    Frame f;
    auto r = dec.next(&f);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kProtocol);
    EXPECT_NE(r.status().message().find(what), std::string::npos) << r.status().message();
  };
  check("GET / HTTP/1.0\r\n", "magic");
  std::string v2 = encode_frame(MsgType::kFinalize, "");
  v2[5] = 2;
  check(v2, "version");
  WireWriter w;
  w.u32(kMagic);
  w.u16(kProtocolVersion);
  w.u16(static_cast<uint16_t>(MsgType::kFence));
  w.u32(kMaxPayload + 1);
  check(w.take(), "exceeds");
}

TEST(OobMessages, RoundTrip) {
  FenceMsg f{3, {{"a", "1"}, {"key", std::string(1000, 'v')}}};
  FenceMsg f2;
  ASSERT_TRUE(decode_fence(encode_fence(f), &f2).ok());
  EXPECT_EQ(f2.seq, 3u);
  EXPECT_EQ(f2.entries, f.entries);
  WelcomeMsg w{"job", 2, {0, 0}, {"h0", "h1"}, 7, 3};
  WelcomeMsg w2;
  ASSERT_TRUE(decode_welcome(encode_welcome(w), &w2).ok());
  EXPECT_EQ(w2.hostname_of_rank, w.hostname_of_rank);
  EXPECT_EQ(w2.fences_done, 7u);  // a joining rank numbers its rounds from these
  EXPECT_EQ(w2.barriers_done, 3u);
  const std::string wp = encode_welcome(w);
  for (size_t n = 0; n < wp.size(); ++n) EXPECT_EQ(decode_welcome(wp.substr(0, n), &w2).code(), Code::kProtocol) << n;
  FenceDoneMsg d{1, {{1, "k", "v"}}};
  FenceDoneMsg d2;
  ASSERT_TRUE(decode_fence_done(encode_fence_done(d), 2, &d2).ok());
  EXPECT_FALSE(decode_fence_done(encode_fence_done(d), 1, &d2).ok());  // rank 1 outside a job of 1
}

// cr_seq_of: one decoder of a round's seq for both ends of the exchange.
TEST(OobMessages, CrSeqOfEveryCheckpointMessage) {
  constexpr uint32_t kSize = 3;
  CrBookmarksMsg bookmarks;
  bookmarks.seq = 11;
  bookmarks.peers.resize(kSize);
  const std::pair<MsgType, std::string> cases[] = {
      {MsgType::kCheckpointReady, encode_cr_bookmarks(bookmarks)},
      {MsgType::kCheckpointDrain, encode_cr_bookmarks(bookmarks)},
      {MsgType::kCheckpointDrained, encode_seq({11})},
      {MsgType::kCheckpointGo, encode_seq({11})},
      {MsgType::kCheckpointDone, encode_cr_done({11, kCrOutcomeRestarted, 4096})},
      {MsgType::kCheckpointFailed, encode_cr_reason({11, "disk full"})},
      {MsgType::kCheckpointAbort, encode_cr_reason({11, "rank 2 died"})},
  };
  for (const auto& [type, payload] : cases) {
    SCOPED_TRACE(msg_type_name(static_cast<uint16_t>(type)));
    EXPECT_EQ(cr_seq_of(static_cast<uint16_t>(type), payload, kSize), std::optional<uint64_t>(11));
    // A payload that does not decode gives nothing.
    EXPECT_EQ(cr_seq_of(static_cast<uint16_t>(type), payload + "x", kSize), std::nullopt);
  }
  // READY/DRAIN hold exactly `size` entries.
  EXPECT_EQ(cr_seq_of(static_cast<uint16_t>(MsgType::kCheckpointReady), encode_cr_bookmarks(bookmarks), kSize + 1),
            std::nullopt);
  // Another type, even with a payload that decodes as a seq, is no round's.
  EXPECT_EQ(cr_seq_of(static_cast<uint16_t>(MsgType::kBarrier), encode_seq({11}), kSize), std::nullopt);
  EXPECT_EQ(cr_seq_of(static_cast<uint16_t>(MsgType::kCrReady), encode_seq({11}), kSize), std::nullopt);
}

TEST(OobMessages, TruncationsAndLiesAreProtocolErrors) {
  std::string p = encode_fence({1, {{"key", "value"}}});
  FenceMsg m;
  for (size_t n = 0; n < p.size(); ++n) EXPECT_EQ(decode_fence(p.substr(0, n), &m).code(), Code::kProtocol) << n;
  EXPECT_EQ(decode_fence(p + "x", &m).code(), Code::kProtocol);
  // A count far beyond the payload must not reserve memory for it.
  WireWriter w;
  w.u64(1);
  w.u32(0xFFFFFFFFu);
  EXPECT_EQ(decode_fence(w.data(), &m).code(), Code::kProtocol);
  WireWriter ww;
  ww.str("job");
  ww.u32(0xFFFFFFFFu);
  WelcomeMsg wm;
  EXPECT_EQ(decode_welcome(ww.data(), &wm).code(), Code::kProtocol);
}

TEST(OobMessages, RandomBytesNeverCrashDecoders) {
  std::mt19937 rng(7);
  for (int i = 0; i < 20000; ++i) {
    std::string p(rng() % 64, '\0');
    for (auto& c : p) c = static_cast<char>(rng());
    HelloMsg h;
    AuthMsg a;
    WelcomeMsg w;
    FenceMsg f;
    FenceDoneMsg d;
    AbortMsg ab;
    ErrorMsg e;
    decode_hello(p, &h).ignore();
    decode_auth(p, &a).ignore();
    decode_welcome(p, &w).ignore();
    decode_fence(p, &f).ignore();
    decode_fence_done(p, 8, &d).ignore();
    decode_abort(p, &ab).ignore();
    decode_error(p, &e).ignore();
    FrameDecoder dec;
    dec.feed(p.data(), p.size());
    Frame fr;
    dec.next(&fr).status().ignore();
  }
}

// The launcher <-> per-host helper messages (oob/helper_messages.h).
TEST(OobHelperMessages, RoundTrip) {
  HelperStartMsg s{3, 0, {"./ring", "a b"}, {"PATH=/bin", "X="}, "/work/dir", {0, 5}};
  HelperStartMsg s2;
  ASSERT_TRUE(decode_helper_start(encode_helper_start(s), &s2).ok());
  EXPECT_EQ(s2.rank, 3u);
  EXPECT_EQ(s2.argv, s.argv);
  EXPECT_EQ(s2.env, s.env);
  EXPECT_EQ(s2.cwd, "/work/dir");
  EXPECT_EQ(s2.cpus, s.cpus);
  HelperStartedMsg ok{3, 4242, 0, ""}, ok2;
  ASSERT_TRUE(decode_helper_started(encode_helper_started(ok), &ok2).ok());
  EXPECT_EQ(ok2.pid, 4242);
  HelperStartedMsg no{3, -1, 2, "cannot execute './x'"}, no2;
  ASSERT_TRUE(decode_helper_started(encode_helper_started(no), &no2).ok());
  EXPECT_EQ(no2.error, 2);
  EXPECT_EQ(no2.reason, no.reason);
  HelperSignalMsg g{1, 15}, g2;
  ASSERT_TRUE(decode_helper_signal(encode_helper_signal(g), &g2).ok());
  EXPECT_EQ(g2.signal, 15);
  HelperOutputMsg o{2, kHelperStderr, std::string("x\0y", 3)}, o2;
  ASSERT_TRUE(decode_helper_output(encode_helper_output(o), &o2).ok());
  EXPECT_EQ(o2.stream, kHelperStderr);
  EXPECT_EQ(o2.data, o.data);
  HelperExitMsg x{2, 9}, x2;
  ASSERT_TRUE(decode_helper_exit(encode_helper_exit(x), &x2).ok());
  EXPECT_EQ(x2.wait_status, 9);
  EXPECT_EQ(msg_type_name(static_cast<uint16_t>(MsgType::kHelperStart)), "HELPER_START");
  HelperRestoreMsg rs{2, 0, 7, "/snap/job.1/7/rank.2", {"cr=criu", "transport=tcp,self"}, {"LZ_JOB_ID=ab"}}, rs2;
  ASSERT_TRUE(decode_helper_restore(encode_helper_restore(rs), &rs2).ok());
  EXPECT_EQ(rs2.rank, 2u);
  EXPECT_EQ(rs2.seq, 7u);
  EXPECT_EQ(rs2.dir, rs.dir);
  EXPECT_EQ(rs2.params, rs.params);
  EXPECT_EQ(rs2.env, rs.env);
  EXPECT_EQ(msg_type_name(static_cast<uint16_t>(MsgType::kHelperRestore)), "HELPER_RESTORE");
}

TEST(OobHelperMessages, RejectsMalformedAndTruncated) {
  std::string p = encode_helper_start({1, 0, {"prog"}, {"A=1"}, "/", {1}});
  HelperStartMsg m;
  for (size_t n = 0; n < p.size(); ++n)
    EXPECT_EQ(decode_helper_start(p.substr(0, n), &m).code(), Code::kProtocol) << n;
  EXPECT_EQ(decode_helper_start(p + "x", &m).code(), Code::kProtocol);
  // No program; an argument count far beyond the payload (nothing reserved).
  EXPECT_EQ(decode_helper_start(encode_helper_start({1, 0, {}, {}, "", {}}), &m).code(), Code::kProtocol);
  WireWriter w;
  w.u32(1);
  w.u32(0);
  w.u32(0xFFFFFFFFu);
  EXPECT_EQ(decode_helper_start(w.data(), &m).code(), Code::kProtocol);
  HelperStartedMsg st;
  EXPECT_EQ(decode_helper_started(encode_helper_started({1, 0, 0, ""}), &st).code(), Code::kProtocol);
  HelperSignalMsg sg;
  EXPECT_EQ(decode_helper_signal(encode_helper_signal({1, 0}), &sg).code(), Code::kProtocol);
  EXPECT_EQ(decode_helper_signal(encode_helper_signal({1, 99}), &sg).code(), Code::kProtocol);
  HelperOutputMsg o;
  EXPECT_EQ(decode_helper_output(encode_helper_output({1, 3, "x"}), &o).code(), Code::kProtocol);
  std::string big = encode_helper_output({1, kHelperStdout, std::string(kMaxOutputChunk + 1, 'x')});
  EXPECT_EQ(decode_helper_output(big, &o).code(), Code::kProtocol);
  // HELPER_RESTORE: every truncation, a trailing byte, no directory.
  std::string rp = encode_helper_restore({1, 0, 3, "/s/3/rank.1", {"cr=criu"}, {"A=1"}});
  HelperRestoreMsg rm;
  for (size_t n = 0; n < rp.size(); ++n)
    EXPECT_EQ(decode_helper_restore(rp.substr(0, n), &rm).code(), Code::kProtocol) << n;
  EXPECT_EQ(decode_helper_restore(rp + "x", &rm).code(), Code::kProtocol);
  EXPECT_EQ(decode_helper_restore(encode_helper_restore({1, 0, 3, "", {}, {}}), &rm).code(), Code::kProtocol);
  std::mt19937 rng(13);
  for (int i = 0; i < 20000; ++i) {
    std::string r(rng() % 64, '\0');
    for (auto& c : r) c = static_cast<char>(rng());
    HelperExitMsg x;
    decode_helper_start(r, &m).ignore();
    decode_helper_started(r, &st).ignore();
    decode_helper_signal(r, &sg).ignore();
    decode_helper_output(r, &o).ignore();
    decode_helper_exit(r, &x).ignore();
    decode_helper_restore(r, &rm).ignore();
  }
}

}  // namespace
}  // namespace lz::oob
