// The OOB wire format: framing limits and bounds-checked decoders. Hostile
// input must produce kProtocol errors, never a crash or an oversized buffer.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "oob/frame.h"
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
  WelcomeMsg w{"job", 2, {0, 0}, {"h0", "h1"}};
  WelcomeMsg w2;
  ASSERT_TRUE(decode_welcome(encode_welcome(w), &w2).ok());
  EXPECT_EQ(w2.hostname_of_rank, w.hostname_of_rank);
  FenceDoneMsg d{1, {{1, "k", "v"}}};
  FenceDoneMsg d2;
  ASSERT_TRUE(decode_fence_done(encode_fence_done(d), 2, &d2).ok());
  EXPECT_FALSE(decode_fence_done(encode_fence_done(d), 1, &d2).ok());  // rank 1 outside a job of 1
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

}  // namespace
}  // namespace lz::oob
