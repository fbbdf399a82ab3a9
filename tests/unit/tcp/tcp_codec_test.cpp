// transport/tcp pieces in one process: frame reader bounds, handshake codec,
// configuration and interface selection, and a peer that authenticates and
// then breaks the framing.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <map>
#include <thread>

#include "fake_host.h"
#include "lazarus/auth.h"
#include "lazarus/param_store.h"
#include "lazarus/strings.h"
#include "tcp_config.h"
#include "socket_pair.h"
#include "tcp_frame.h"
#include "tcp_frame_reader.h"
#include "tcp_handshake.h"
#include "tcp_interfaces.h"
#include "tcp_send_queue.h"
#include "tcp_transport.h"
#include "test_modex.h"

namespace lz::transport::tcp {
namespace {

using lz::test::FakeHost;
using lz::test::TestModex;

void write_header(int fd, uint32_t h) {
  unsigned char b[4];
  encode_frame_header(h, b);
  ASSERT_EQ(::write(fd, b, 4), 4);
}

TEST(TcpFrameReader, DeliversFramesSplitAnywhere) {
  SocketPair sp;
  TcpFrameReader rd(1000);
  std::string wire;
  for (uint32_t len : {0u, 1u, 999u, 1000u, 5u}) {
    unsigned char h[4];
    encode_frame_header(len, h);
    wire.append(reinterpret_cast<char*>(h), 4);
    wire.append(len, static_cast<char>('a' + len % 26));
  }
  std::vector<size_t> got;
  for (size_t off = 0; off < wire.size(); off += 7) {
    const size_t n = std::min<size_t>(7, wire.size() - off);
    ASSERT_EQ(::write(sp.a, wire.data() + off, n), static_cast<ssize_t>(n));
    bool drained = false;
    int err = 0;
    ASSERT_EQ(rd.fill(sp.b, &drained, &err), TcpFrameReader::FillResult::kData);
    for (;;) {
      Status why;
      auto it = rd.next(&why);
      if (it.kind == TcpFrameReader::Item::kNone) break;
      ASSERT_EQ(it.kind, TcpFrameReader::Item::kData) << why.to_string();
      for (size_t i = 0; i < it.len; ++i) ASSERT_EQ(it.data[i], static_cast<char>('a' + it.len % 26));
      got.push_back(it.len);
    }
  }
  EXPECT_EQ(got, (std::vector<size_t>{0, 1, 999, 1000, 5}));
}

TEST(TcpFrameReader, RejectsLengthAboveMaxFrameBeforeAllocating) {
  SocketPair sp;
  TcpFrameReader rd(4096);
  write_header(sp.a, 0x7fffffffu);  // 2 GiB claimed
  bool drained;
  int err;
  ASSERT_EQ(rd.fill(sp.b, &drained, &err), TcpFrameReader::FillResult::kData);
  Status why;
  auto it = rd.next(&why);
  EXPECT_EQ(it.kind, TcpFrameReader::Item::kBad);
  EXPECT_EQ(why.code(), Code::kProtocol);
  EXPECT_NE(why.message().find("exceeds max_frame"), std::string::npos);
}

TEST(TcpFrameReader, UnknownControlFrameIsAProtocolError) {
  SocketPair sp;
  TcpFrameReader rd(4096);
  write_header(sp.a, kControlBit | 77);
  write_header(sp.a, kControlBit | kBye);
  bool drained;
  int err;
  ASSERT_EQ(rd.fill(sp.b, &drained, &err), TcpFrameReader::FillResult::kData);
  Status why;
  EXPECT_EQ(rd.next(&why).kind, TcpFrameReader::Item::kBad);
}

TEST(TcpFrameReader, CheckpointControlFrameIsLetThrough) {
  SocketPair sp;
  TcpFrameReader rd(4096);
  write_header(sp.a, kControlBit | kCheckpoint);
  bool drained;
  int err;
  ASSERT_EQ(rd.fill(sp.b, &drained, &err), TcpFrameReader::FillResult::kData);
  Status why;
  const auto it = rd.next(&why);
  EXPECT_EQ(it.kind, TcpFrameReader::Item::kControl);
  EXPECT_EQ(it.code, kCheckpoint);
}

TEST(TcpFrameReader, ReportsEof) {
  SocketPair sp;
  TcpFrameReader rd(4096);
  ::close(sp.a);
  sp.a = ::dup(sp.b);
  ::shutdown(sp.b, SHUT_RDWR);
  bool drained;
  int err;
  EXPECT_EQ(rd.fill(sp.b, &drained, &err), TcpFrameReader::FillResult::kEof);
}

// A frame the socket took only part of: the queue keeps exactly its bytes
// from `skip` on (header, then the iovecs, an empty one included), after what
// was queued before it.
TEST(TcpSendQueue, AppendFrameKeepsTheUnsentTailFromAnyByte) {
  std::string a = "abc", c = "defgh";
  const iovec iov[] = {{a.data(), a.size()}, {nullptr, 0}, {c.data(), c.size()}};
  unsigned char hdr[kFrameHeaderBytes];
  encode_frame_header(0x1234567u, hdr);
  const std::string whole = std::string(reinterpret_cast<char*>(hdr), sizeof hdr) + a + c;
  for (size_t skip = 0; skip <= whole.size() + 1; ++skip) {
    TcpSendQueue q;
    q.append("xy", 2);
    q.append_frame(0x1234567u, iov, 3, skip);
    const std::string want = "xy" + (skip < whole.size() ? whole.substr(skip) : "");
    EXPECT_EQ(std::string(q.data(), q.size()), want) << "skip " << skip;
  }
}

TEST(TcpHandshake, RoundTripAndTamperDetection) {
  const std::string secret = auth::new_secret();
  const auth::Nonce server = auth::random_nonce(), client = auth::random_nonce();
  const auto hello = encode_hello(server);
  auto n = decode_hello(hello.data());
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, server);

  auto msg = encode_auth(secret, 3, 5, server, client);
  auto a = decode_auth(msg.data());
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->rank, 3u);
  EXPECT_EQ(a->target, 5u);
  EXPECT_TRUE(verify_auth(secret, server, *a));
  EXPECT_FALSE(verify_auth(auth::new_secret(), server, *a));
  EXPECT_FALSE(verify_auth(secret, auth::random_nonce(), *a));  // replay under another challenge
  msg[8] ^= 1;  // claim another rank with the same MAC
  EXPECT_FALSE(verify_auth(secret, server, *decode_auth(msg.data())));

  const auto v = encode_verdict(secret, Verdict::kDuplicate, 5, client);
  auto d = decode_verdict(v.data());
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->verdict, Verdict::kDuplicate);
  EXPECT_TRUE(verify_verdict(secret, client, *d));
  EXPECT_FALSE(verify_verdict(secret, server, *d));

  const unsigned char junk[kAuthBytes] = {'G', 'E', 'T', ' '};
  EXPECT_FALSE(handshake_prefix_ok(HsKind::kAuth, junk, 4));
  EXPECT_FALSE(decode_auth(junk).ok());
  EXPECT_FALSE(decode_hello(msg.data()).ok());  // an AUTH is not a HELLO
}

// ---- configuration ------------------------------------------------------------------

StatusOr<TcpConfig> config_with(std::map<std::string, std::string> settings) {
  static ParamStore* ps = nullptr;
  delete ps;
  ps = new ParamStore;
  for (size_t i = 0; i < kNumTcpParams; ++i)
    EXPECT_TRUE(ps->register_param(std::string("transport_tcp_") + kTcpParams[i].name, kTcpParams[i], "transport/tcp").ok());
  for (auto& [k, v] : settings) ps->set("transport_tcp_" + k, v, {SourceKind::kApi, "test"});
  Status s = ps->resolve();
  if (!s.ok()) return s;
  return load_config(*ps, "transport_tcp_");
}

TEST(TcpConfig, DefaultsAndValidation) {
  auto c = config_with({});
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->max_frame, 512u * 1024);
  EXPECT_TRUE(c->if_include.empty());
  EXPECT_EQ(config_with({{"if_include", "lo"}, {"if_exclude", "eth0"}}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(config_with({{"max_frame", "100"}}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(config_with({{"max_frame", "2g"}}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(config_with({{"connect_timeout", "0"}}).status().code(), Code::kInvalidArgument);
  auto ok = config_with({{"if_include", "lo,10.0.0.0/8"}, {"max_frame", "1m"}});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->if_include, (std::vector<std::string>{"lo", "10.0.0.0/8"}));
  EXPECT_EQ(ok->max_frame, 1u << 20);
}

// The struct has no defaults of its own: default_config() reads the table.
TEST(TcpConfig, DefaultConfigIsTheTable) {
  auto c = config_with({});
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  const TcpConfig d = default_config();
  EXPECT_EQ(d.max_frame, c->max_frame);
  EXPECT_EQ(d.send_queue_limit, c->send_queue_limit);
  EXPECT_EQ(d.sndbuf, c->sndbuf);
  EXPECT_EQ(d.rcvbuf, c->rcvbuf);
  EXPECT_EQ(d.connect_timeout, c->connect_timeout);
  EXPECT_EQ(d.handshake_timeout, c->handshake_timeout);
  EXPECT_EQ(d.max_pending_accepts, c->max_pending_accepts);
  EXPECT_EQ(d.checkpoint_timeout, c->checkpoint_timeout);
  EXPECT_EQ(d.max_frame, 512u * 1024);
  EXPECT_EQ(d.send_queue_limit, size_t{8} << 20);
}

TEST(TcpInterfaces, IncludeByNameAndCidrExclude) {
  auto lo = select_interfaces({"lo"}, {});
  ASSERT_TRUE(lo.ok()) << lo.status().to_string();
  for (auto& i : *lo) EXPECT_EQ(i.name, "lo");
  auto cidr = select_interfaces({"127.0.0.0/8"}, {});
  ASSERT_TRUE(cidr.ok());
  ASSERT_EQ(cidr->size(), 1u);
  EXPECT_EQ(cidr->front().addr.to_string(), "127.0.0.1:0");
  auto no_lo = select_interfaces({}, {"lo"});
  if (no_lo.ok()) {
    for (auto& i : *no_lo) EXPECT_FALSE(i.addr.is_loopback()) << i.name;
  }
  EXPECT_EQ(select_interfaces({"no_such_if0"}, {}).status().code(), Code::kUnavailable);
  EXPECT_EQ(select_interfaces({"10.0.0.0/99"}, {}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(select_interfaces({"bogus/8"}, {}).status().code(), Code::kInvalidArgument);
}

TEST(TcpSockAddr, ParseAndFormat) {
  for (const char* t : {"127.0.0.1:80", "[::1]:65535", "[fd00::2]:1234", "192.0.2.2:1"}) {
    auto a = SockAddr::parse(t);
    ASSERT_TRUE(a.ok()) << t;
    EXPECT_EQ(a->to_string(), t);
  }
  for (const char* t : {"", ":", "1.2.3.4", "1.2.3.4:", "1.2.3.4:0", "1.2.3.4:65536", "host:80", "[::1:80",
                        "1.2.3.4:8x", "::1:80"})
    EXPECT_FALSE(SockAddr::parse(t).ok()) << t;
}

// ---- an authenticated peer that breaks the framing -----------------------------------

// Rank 0 in this process; rank 1 is played by the test.
struct OneRank {
  lz::test::TestModex modex{0};
  lz::test::FakeHost host{0, 2, modex, auth::new_secret()};
  std::vector<int> delivered;
  OneRank() {
    host.on_deliver = [this](int src, const void*, size_t) { delivered.push_back(src); };
  }
};

TEST(TcpTransportInProcess, OversizedFrameFromAuthenticatedPeerIsReported) {
  TcpConfig cfg = default_config();
  cfg.if_include = {"lo"};
  cfg.max_frame = 4096;
  TcpTransport t(cfg);
  OneRank me;
  ASSERT_TRUE(t.init(me.host).ok());
  // Rank 1 is played by this test; its address is never used (rank 0 does not send).
  me.modex.set(1, kModexKey, "127.0.0.1:9");
  ASSERT_TRUE(t.connect().ok());
  EXPECT_EQ(t.capabilities() & kCapWaitFd, kCapWaitFd);
  EXPECT_EQ(t.capabilities() & kCapCheckpoint, kCapCheckpoint);
  EXPECT_GE(t.wait_fd(), 0);
  const std::string published = *me.modex.get(0, kModexKey);
  auto addr = SockAddr::parse(str::split(published, ',').front());
  ASSERT_TRUE(addr.ok()) << published;

  std::atomic<int> stage{0};
  std::thread peer([&] {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{60, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (::connect(fd, addr->sa(), addr->len) != 0) return;
    unsigned char hello[kHelloBytes];
    if (::recv(fd, hello, sizeof hello, MSG_WAITALL) != sizeof hello) return;
    const auto msg = encode_auth(me.host.job_secret(), 1, 0, *decode_hello(hello), auth::random_nonce());
    (void)::send(fd, msg.data(), msg.size(), 0);
    unsigned char verdict[kVerdictBytes];
    if (::recv(fd, verdict, sizeof verdict, MSG_WAITALL) != sizeof verdict) return;
    stage = 1;
    unsigned char frame[4 + 3] = {};
    encode_frame_header(3, frame);
    (void)::send(fd, frame, sizeof frame, 0);  // one good frame
    unsigned char bad[4];
    encode_frame_header(1u << 20, bad);        // then a length above max_frame
    (void)::send(fd, bad, sizeof bad, 0);
    char sink[64];
    while (::recv(fd, sink, sizeof sink, 0) > 0) {
    }
    ::close(fd);
    stage = 2;
  });
  for (int i = 0; i < 60000 && me.host.failures.empty(); ++i) {
    if (t.progress() == 0) {
      pollfd p{t.wait_fd(), POLLIN, 0};
      ::poll(&p, 1, 10);
    }
  }
  peer.join();
  ASSERT_EQ(me.host.failures.size(), 1u);
  EXPECT_EQ(me.host.failures[0].first, 1);
  EXPECT_EQ(me.host.failures[0].second.code(), Code::kProtocol);
  EXPECT_EQ(me.delivered, std::vector<int>{1});  // the good frame before it
  EXPECT_EQ(t.stats().accepted, 1u);
  for (int i = 0; i < 10; ++i) t.progress();
  EXPECT_EQ(me.host.failures.size(), 1u);  // reported once
  EXPECT_TRUE(t.finalize().ok());
}

// Two modules in one process, sharing a modex: rank 1's published list starts
// with a dead address, which rank 0 must skip; then rank 1 vanishes without a
// bye and rank 0 reports it once.
// One rank of a two-rank job living in this process; both share one modex table.
struct PairRank {
  PairRank(TestModex::Entries* table, int r, const std::string& secret) : modex(r, table), host(r, 2, modex, secret) {
    host.on_deliver = [this](int, const void* d, size_t n) { frames.emplace_back(static_cast<const char*>(d), n); };
  }
  TestModex modex;
  FakeHost host;
  std::vector<std::string> frames;
};

// A port nothing listens on (bound, never listened: connect is refused).
int dead_port(int* keep_fd) {
  *keep_fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(*keep_fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  ::getsockname(*keep_fd, reinterpret_cast<sockaddr*>(&a), &len);
  return ntohs(a.sin_port);
}

TEST(TcpTransportInProcess, SkipsDeadAddressThenReportsVanishedPeerOnce) {
  TestModex::Entries table;
  const std::string secret = auth::new_secret();
  PairRank r0(&table, 0, secret), r1(&table, 1, secret);
  TcpConfig cfg = default_config();
  cfg.if_include = {"lo"};
  auto t0 = std::make_unique<TcpTransport>(cfg);
  auto t1 = std::make_unique<TcpTransport>(cfg);
  ASSERT_TRUE(t0->init(r0.host).ok());
  ASSERT_TRUE(t1->init(r1.host).ok());
  int keep = -1;
  const int port = dead_port(&keep);
  std::string& addr1 = r0.modex.at(1, kModexKey);
  addr1 = "127.0.0.1:" + std::to_string(port) + "," + addr1;
  ASSERT_TRUE(t0->connect().ok());
  ASSERT_TRUE(t1->connect().ok());
  ASSERT_TRUE(t0->reaches(1));
  ASSERT_FALSE(t0->reaches(0));

  const char msg[] = "hello";
  struct iovec v{const_cast<char*>(msg), 5};
  ASSERT_TRUE(t0->send(1, &v, 1).ok());
  for (int i = 0; i < 200000 && r1.frames.empty(); ++i) {
    t0->progress();
    t1->progress();
  }
  ASSERT_EQ(r1.frames, std::vector<std::string>{"hello"});
  EXPECT_TRUE(r0.host.failures.empty());
  EXPECT_EQ(t0->stats().connected, 1u);

  // Rank 1 disappears without finalize (destroying the module closes its
  // sockets without a bye, as a crash would).
  t1.reset();
  for (int i = 0; i < 200000 && r0.host.failures.empty(); ++i) {
    if (t0->progress() == 0) {
      pollfd p{t0->wait_fd(), POLLIN, 0};
      ::poll(&p, 1, 10);
    }
  }
  ASSERT_EQ(r0.host.failures.size(), 1u);
  EXPECT_EQ(r0.host.failures[0].first, 1);
  for (int i = 0; i < 10; ++i) t0->progress();
  EXPECT_EQ(r0.host.failures.size(), 1u);
  EXPECT_FALSE(t0->send(1, &v, 1).ok());
  EXPECT_TRUE(t0->finalize().ok());
  ::close(keep);
}

// The hooks in one process: out of order they are refused; on_checkpoint()
// closes the listener (nothing accepts at the old address), keeps wait_fd();
// on_continue() publishes a new listener; connect() ends the suspended state.
TEST(TcpTransportInProcess, CheckpointHooksCloseAndReopenTheListener) {
  TcpConfig cfg = default_config();
  cfg.if_include = {"lo"};
  TcpTransport t(cfg);
  OneRank me;
  ASSERT_TRUE(t.init(me.host).ok());
  me.modex.set(1, kModexKey, "127.0.0.1:9");
  ASSERT_TRUE(t.connect().ok());
  EXPECT_EQ(t.on_continue().code(), Code::kInternal);
  EXPECT_EQ(t.on_restart().code(), Code::kInternal);
  const std::string before = *me.modex.get(0, kModexKey);
  const int wfd = t.wait_fd();
  ASSERT_TRUE(t.on_checkpoint().ok());
  EXPECT_TRUE(t.checkpointed());
  EXPECT_FALSE(t.listener().is_open());
  EXPECT_EQ(t.on_checkpoint().code(), Code::kInternal);
  EXPECT_EQ(t.wait_fd(), wfd);
  char byte = 'x';
  iovec one{&byte, 1};
  EXPECT_EQ(t.send(1, &one, 1).code(), Code::kWouldBlock) << "no frame moves before connect()";
  auto old_addr = SockAddr::parse(str::split(before, ',').front());
  ASSERT_TRUE(old_addr.ok());
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  EXPECT_NE(::connect(fd, old_addr->sa(), old_addr->len), 0) << "the old listener still accepts";
  ::close(fd);
  ASSERT_TRUE(t.on_continue().ok());
  EXPECT_TRUE(t.listener().is_open());
  const std::string after = *me.modex.get(0, kModexKey);
  EXPECT_NE(after, "");
  ASSERT_TRUE(t.connect().ok());
  EXPECT_FALSE(t.checkpointed());
  EXPECT_EQ(t.peer_state(1), TcpEndpoint::State::kIdle);
  EXPECT_TRUE(t.finalize().ok());
}

}  // namespace
}  // namespace lz::transport::tcp
