// transport/tcp in real multi-process jobs: ordering, sizes, bulk data with a
// checksum, simultaneous connects, back-pressure, strangers on the listener,
// a peer killed mid-stream, orderly finalize. No wall-clock assertions: the
// timeouts only keep a broken build from hanging.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>

#include "lazarus/auth.h"
#include "lazarus/strings.h"
#include "tcp_handshake.h"
#include "tcp_interfaces.h"
#include "tcp_socket.h"
#include "tcp_test_job.h"

namespace lz::test::tcp {
namespace {

using transport::tcp::TcpEndpoint;

uint64_t fnv1a(uint64_t h, const void* p, size_t n) {
  const unsigned char* c = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ull;
  return h;
}
constexpr uint64_t kFnvInit = 1469598103934665603ull;

// Deterministic payload byte `i` of frame `seq`.
inline unsigned char pattern(uint64_t seq, size_t i) { return static_cast<unsigned char>(seq * 131 + i * 7 + (i >> 8)); }

void fill_frame(std::vector<unsigned char>& buf, uint64_t seq, size_t len) {
  buf.resize(len);
  for (size_t i = 0; i < len; ++i) buf[i] = pattern(seq, i);
  if (len >= 8) std::memcpy(buf.data(), &seq, 8);
}

bool check_frame(const void* data, size_t len, uint64_t seq) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  if (len >= 8) {
    uint64_t got;
    std::memcpy(&got, p, 8);
    if (got != seq) return false;
  }
  for (size_t i = 8; i < len; ++i)
    if (p[i] != pattern(seq, i)) return false;
  if (len < 8)
    for (size_t i = 0; i < len; ++i)
      if (p[i] != pattern(seq, i)) return false;
  return true;
}

const char kAck[] = "ack";
bool is_ack(const void* d, size_t n) { return n == 3 && std::memcmp(d, kAck, 3) == 0; }

// ---- 100k frames in order, with sequence numbers ------------------------------

TEST(TcpJob, HundredThousandFramesInOrder) {
  constexpr uint64_t kFrames = 100000;
  auto r = run_job(2, {}, [](Rank& me) {
    uint64_t next = 0;
    bool acked = false;
    me.host().on_deliver = [&](int src, const void* d, size_t n) {
      if (me.rank == 0) {
        TCP_CHECK(src == 1 && is_ack(d, n), "rank 0 expected only an ack");
        acked = true;
        return;
      }
      TCP_CHECK(src == 0, "frame from %d", src);
      TCP_CHECK(n == 8 + next % 57, "frame %llu has %zu bytes", (unsigned long long)next, n);
      uint64_t seq;
      std::memcpy(&seq, d, 8);
      TCP_CHECK(seq == next, "expected frame %llu, got %llu", (unsigned long long)next, (unsigned long long)seq);
      ++next;
    };
    me.start();
    if (me.rank == 0) {
      std::vector<unsigned char> buf;
      for (uint64_t s = 0; s < kFrames; ++s) {
        fill_frame(buf, s, 8 + s % 57);
        me.send_blocking(1, buf.data(), buf.size());
        if (s % 64 == 0) me.module().progress();
      }
      me.progress_until([&] { return acked; }, "ack");
    } else {
      me.progress_until([&] { return next == kFrames; }, "100k frames");
      me.send_blocking(0, kAck, 3);
    }
    me.progress_until([] { return true; }, "nothing");
    me.finish();
    return 0;
  });
  EXPECT_TRUE(r.ok()) << r.report;
}

// ---- every size class from 0 to max_frame, multi-piece iovecs ------------------

constexpr size_t kMax = 64 * 1024;

TEST(TcpJob, SizesFromZeroToMaxFrame) {
  JobOptions opt;
  opt.mca = {{"transport_tcp_max_frame", "64k"}};
  auto r = run_job(2, opt, [](Rank& me) {
    std::vector<size_t> sizes;
    for (size_t s = 0; s <= 1100; ++s) sizes.push_back(s);
    for (size_t p = 2048; p <= kMax; p *= 2)
      for (size_t d : {p - 1, p, p + 1})
        if (d <= kMax) sizes.push_back(d);
    for (size_t s = 1200; s < kMax; s += 4093) sizes.push_back(s);
    sizes.push_back(kMax);
    size_t got = 0;
    bool acked = false;
    me.host().on_deliver = [&](int, const void* d, size_t n) {
      if (me.rank == 0) {
        acked = is_ack(d, n);
        return;
      }
      TCP_CHECK(got < sizes.size(), "too many frames");
      TCP_CHECK(n == sizes[got], "frame %zu: %zu bytes, expected %zu", got, n, sizes[got]);
      TCP_CHECK(check_frame(d, n, got), "frame %zu (%zu bytes) corrupted", got, n);
      ++got;
    };
    me.start();
    TCP_CHECK(me.module().max_frame() == kMax, "max_frame() = %zu", me.module().max_frame());
    if (me.rank == 0) {
      std::vector<unsigned char> too_big(kMax + 1);
      struct iovec v{too_big.data(), too_big.size()};
      Status s = me.module().send(1, &v, 1);
      TCP_CHECK(s.code() == Code::kInvalidArgument, "oversized frame: %s", s.to_string().c_str());
      std::vector<unsigned char> buf;
      for (size_t i = 0; i < sizes.size(); ++i) {
        fill_frame(buf, i, sizes[i]);
        // Three pieces (some empty) to exercise the iovec path.
        const size_t a = buf.size() / 3, b = buf.size() / 2;
        struct iovec iov[3] = {{buf.data(), a}, {buf.data() + a, b - a}, {buf.data() + b, buf.size() - b}};
        me.send_blocking(1, iov, 3);
      }
      me.progress_until([&] { return acked; }, "ack");
    } else {
      me.progress_until([&] { return got == sizes.size(); }, "all sizes");
      me.send_blocking(0, kAck, 3);
    }
    me.finish();
    return 0;
  });
  EXPECT_TRUE(r.ok()) << r.report;
}

// ---- 16 MiB in max_frame pieces with a checksum -------------------------------------

TEST(TcpJob, SixteenMiBInMaxFramePiecesWithChecksum) {
  auto r = run_job(2, {}, [](Rank& me) {
    constexpr size_t kTotal = size_t{16} << 20;
    uint64_t sum = kFnvInit;
    size_t received = 0;
    uint64_t sender_sum = 0;
    bool have_sum = false, acked = false;
    me.host().on_deliver = [&](int, const void* d, size_t n) {
      if (me.rank == 0) {
        acked = is_ack(d, n);
        return;
      }
      if (received == kTotal) {
        TCP_CHECK(n == 8, "checksum frame has %zu bytes", n);
        std::memcpy(&sender_sum, d, 8);
        have_sum = true;
        return;
      }
      TCP_CHECK(n == me.module().max_frame() || received + n == kTotal, "piece of %zu bytes", n);
      sum = fnv1a(sum, d, n);
      received += n;
    };
    me.start();
    if (me.rank == 0) {
      std::vector<unsigned char> data(kTotal);
      std::mt19937_64 rng(42);
      for (auto& b : data) b = static_cast<unsigned char>(rng());
      const uint64_t total_sum = fnv1a(kFnvInit, data.data(), data.size());
      const size_t piece = me.module().max_frame();
      for (size_t off = 0; off < kTotal; off += piece)
        me.send_blocking(1, data.data() + off, std::min(piece, kTotal - off));
      me.send_blocking(1, &total_sum, 8);
      me.progress_until([&] { return acked; }, "ack");
    } else {
      me.progress_until([&] { return have_sum; }, "16 MiB");
      TCP_CHECK(sum == sender_sum, "checksum mismatch: %llx vs %llx", (unsigned long long)sum,
                (unsigned long long)sender_sum);
      me.send_blocking(0, kAck, 3);
    }
    me.finish();
    return 0;
  });
  EXPECT_TRUE(r.ok()) << r.report;
}

// ---- everyone sends first to everyone: one connection per pair -------------------

TEST(TcpJob, BothDirectionsAtOnceOneConnectionPerPair) {
  for (int round = 0; round < 3; ++round) {
    auto r = run_job(4, {}, [](Rank& me) {
      constexpr uint64_t kPerPeer = 5000;
      std::vector<uint64_t> next(me.size, 0);
      std::vector<bool> acked(me.size, false);
      uint64_t done_peers = 0;
      me.host().on_deliver = [&](int src, const void* d, size_t n) {
        if (is_ack(d, n)) {
          acked[src] = true;
          return;
        }
        uint64_t seq;
        TCP_CHECK(n >= 8, "short frame");
        std::memcpy(&seq, d, 8);
        TCP_CHECK(seq == next[src], "from %d: expected %llu got %llu", src, (unsigned long long)next[src],
                  (unsigned long long)seq);
        TCP_CHECK(check_frame(d, n, seq), "corrupted frame");
        if (++next[src] == kPerPeer) ++done_peers;
      };
      me.start();
      me.barrier();  // everyone starts sending at the same moment
      std::vector<unsigned char> buf;
      for (uint64_t s = 0; s < kPerPeer; ++s)
        for (int p = 0; p < me.size; ++p) {
          if (p == me.rank) continue;
          fill_frame(buf, s, 8 + (s * 13 + p) % 300);
          me.send_blocking(p, buf.data(), buf.size());
        }
      me.progress_until([&] { return done_peers == static_cast<uint64_t>(me.size - 1); }, "all frames");
      for (int p = 0; p < me.size; ++p)
        if (p != me.rank) me.send_blocking(p, kAck, 3);
      me.progress_until(
          [&] {
            for (int p = 0; p < me.size; ++p)
              if (p != me.rank && !acked[p]) return false;
            return true;
          },
          "acks");
      const auto& st = me.tcp().stats();
      // Exactly one connection per pair: every peer was reached by exactly
      // one connection, either ours or theirs, and none was ever replaced.
      TCP_CHECK(st.accepted + st.connected == static_cast<uint64_t>(me.size - 1),
                "accepted %llu + connected %llu != %d", (unsigned long long)st.accepted,
                (unsigned long long)st.connected, me.size - 1);
      for (int p = 0; p < me.size; ++p)
        if (p != me.rank)
          TCP_CHECK(me.tcp().peer_state(p) == TcpEndpoint::State::kConnected, "pair with %d is %s", p,
                    TcpEndpoint::state_name(me.tcp().peer_state(p)));
      std::fprintf(stderr, "rank %d: accepted %llu connected %llu races settled %llu\n", me.rank,
                   (unsigned long long)st.accepted, (unsigned long long)st.connected,
                   (unsigned long long)st.duplicates_refused);
      me.finish();
      return 0;
    });
    EXPECT_TRUE(r.ok()) << r.report;
  }
}

// ---- back-pressure: queue bound -> kWouldBlock, then progress drains it ------------

TEST(TcpJob, QueueBoundGivesWouldBlockThenDrains) {
  JobOptions opt;
  opt.mca = {{"transport_tcp_max_frame", "16k"}, {"transport_tcp_send_queue_limit", "64k"}};
  auto r = run_job(2, opt, [](Rank& me) {
    constexpr size_t kFrame = 16 * 1024;
    uint64_t got = 0;
    uint64_t total = 0;  // frames the sender sent, announced at the end
    bool have_total = false, acked = false;
    me.host().on_deliver = [&](int, const void* d, size_t n) {
      if (me.rank == 0) {
        acked = is_ack(d, n);
        return;
      }
      if (n == 8 + 1) {  // the announcement
        std::memcpy(&total, d, 8);
        have_total = true;
        return;
      }
      TCP_CHECK(n == kFrame && check_frame(d, n, got), "frame %llu bad", (unsigned long long)got);
      ++got;
    };
    me.start();
    if (me.rank == 0) {
      std::vector<unsigned char> buf;
      // Warm up so the connection is established.
      fill_frame(buf, 0, kFrame);
      me.send_blocking(1, buf.data(), buf.size());
      uint64_t sent = 1;
      // Rank 1 is not progressing (it waits in the barrier below): the
      // socket buffers fill, then the queue, then send() must say would-block.
      bool blocked = false;
      for (int i = 0; i < 1000000 && !blocked; ++i) {
        fill_frame(buf, sent, kFrame);
        struct iovec v{buf.data(), buf.size()};
        Status s = me.module().send(1, &v, 1);
        if (s.code() == Code::kWouldBlock) {
          blocked = true;
          break;
        }
        TCP_CHECK(s.ok(), "send: %s", s.to_string().c_str());
        ++sent;
      }
      TCP_CHECK(blocked, "the queue bound never gave kWouldBlock");
      me.barrier();
      for (int i = 0; i < 200; ++i, ++sent) {
        fill_frame(buf, sent, kFrame);
        me.send_blocking(1, buf.data(), buf.size());
      }
      unsigned char ann[9] = {};
      std::memcpy(ann, &sent, 8);
      me.send_blocking(1, ann, 9);
      me.progress_until([&] { return acked; }, "ack");
    } else {
      me.barrier();
      me.progress_until([&] { return have_total && got == total; }, "every frame");
      me.send_blocking(0, kAck, 3);
    }
    me.finish();
    return 0;
  });
  EXPECT_TRUE(r.ok()) << r.report;
}

// ---- strangers on the listener while two ranks exchange traffic -----------------------

// Connects to the first address rank 0 published (blocking socket).
int connect_to_rank0(const std::string& dir) {
  const std::string key = FileModex::path(dir, 0, transport::tcp::kModexKey);
  std::string text;
  for (int i = 0; i < 6000 && text.empty(); ++i) {
    std::ifstream in(key);
    std::getline(in, text);
    if (text.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (text.empty()) return -1;
  auto addr = SockAddr::parse(str::split(text, ',').front());
  if (!addr.ok()) return -1;
  int fd = ::socket(addr->family(), SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (::connect(fd, addr->sa(), addr->len) != 0) {
    ::close(fd);
    return -1;
  }
  timeval tv{120, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

// Reads until EOF or reset; returns the number of bytes read (-1 on timeout).
long read_until_closed(int fd) {
  long total = 0;
  char buf[256];
  for (;;) {
    ssize_t r = ::recv(fd, buf, sizeof buf, 0);
    if (r > 0) {
      total += r;
      continue;
    }
    if (r == 0 || errno == ECONNRESET) return total;
    return -1;
  }
}

TEST(TcpJob, StrangersAreRefusedAndLoggedWhileTrafficFlows) {
  JobOptions opt;
  opt.mca = {{"transport_tcp_handshake_timeout", "1"}};
  HelperFn garbage = [](const std::string& dir) {
    int fd = connect_to_rank0(dir);
    if (fd < 0) return 2;
    const char junk[] = "GET / HTTP/1.0\r\n\r\n\xff\xfe garbage garbage";
    if (::send(fd, junk, sizeof junk, MSG_NOSIGNAL) < 0) return 3;
    long n = read_until_closed(fd);  // HELLO (40 bytes) at most, then closed
    ::close(fd);
    return n >= 0 && n <= 40 ? 0 : 4;
  };
  HelperFn wrong_mac = [](const std::string& dir) {
    int fd = connect_to_rank0(dir);
    if (fd < 0) return 2;
    unsigned char hello[transport::tcp::kHelloBytes];
    if (::recv(fd, hello, sizeof hello, MSG_WAITALL) != sizeof hello) return 3;
    auto nonce = transport::tcp::decode_hello(hello);
    if (!nonce.ok()) return 4;
    // Claims to be the real rank 1, with a MAC made from another secret.
    const auto msg = transport::tcp::encode_auth(auth::new_secret(), 1, 0, *nonce, auth::random_nonce());
    if (::send(fd, msg.data(), msg.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(msg.size())) return 5;
    long n = read_until_closed(fd);  // no verdict: just closed
    ::close(fd);
    return n == 0 ? 0 : 6;
  };
  HelperFn silent = [](const std::string& dir) {
    int fd = connect_to_rank0(dir);
    if (fd < 0) return 2;
    long n = read_until_closed(fd);  // HELLO, then closed at the handshake deadline
    ::close(fd);
    return n == 40 ? 0 : 3;
  };
  auto r = run_job(
      2, opt,
      [](Rank& me) {
        constexpr uint64_t kFrames = 30000;
        uint64_t next = 0;
        bool acked = false;
        me.host().on_deliver = [&](int src, const void* d, size_t n) {
          if (me.rank == 1) {
            acked = is_ack(d, n);
            return;
          }
          TCP_CHECK(src == 1, "frame from %d", src);
          TCP_CHECK(check_frame(d, n, next), "frame %llu corrupted", (unsigned long long)next);
          ++next;
        };
        me.start();
        if (me.rank == 1) {
          std::vector<unsigned char> buf;
          for (uint64_t s = 0; s < kFrames; ++s) {
            fill_frame(buf, s, 8 + s % 700);
            me.send_blocking(0, buf.data(), buf.size());
          }
          me.progress_until([&] { return acked; }, "ack");
        } else {
          // The silent one is closed at the deadline without a warning: a
          // rank busy outside MPI looks the same, and it connects again.
          me.progress_until(
              [&] { return next == kFrames && me.tcp().stats().refused >= 2 && me.tcp().stats().silent_closed >= 1; },
              "traffic, two refusals and a silent connection closed");
          me.send_blocking(1, kAck, 3);
          const std::string log = me.stderr_text();
          size_t count = 0;
          for (size_t pos = 0; (pos = log.find("refused unauthenticated tcp connection from", pos)) != std::string::npos;
               ++pos)
            ++count;
          TCP_CHECK(count == 2, "expected 2 refusals in the log, found %zu:\n%s", count, log.c_str());
          TCP_CHECK(me.tcp().stats().accepted + me.tcp().stats().connected == 1, "one real connection");
        }
        me.finish();
        return 0;
      },
      {garbage, wrong_mac, silent});
  EXPECT_TRUE(r.ok()) << r.report;
}

// ---- a peer killed with SIGKILL mid-stream ----------------------------------------------

TEST(TcpJob, PeerKilledMidStreamIsReportedOnce) {
  auto r = run_job(3, {}, [](Rank& me) {
    // Rank 1 streams to rank 0 and receives from rank 2; rank 0 has it killed.
    int failures = 0;
    Status why;
    uint64_t from1 = 0;
    bool got_hello = false;
    me.host().on_failed = [&](int rank, const Status& s) {
      TCP_CHECK(rank == 1, "peer_failed(%d)", rank);
      ++failures;
      why = s;
    };
    me.host().on_deliver = [&](int src, const void* d, size_t n) {
      if (src == 1) {
        TCP_CHECK(check_frame(d, n, from1), "frame %llu corrupted", (unsigned long long)from1);
        ++from1;
      } else if (is_ack(d, n)) {
        got_hello = true;
      }
    };
    me.start();
    std::vector<unsigned char> buf;
    if (me.rank == 1) {
      for (uint64_t s = 0;; ++s) {  // until killed
        fill_frame(buf, s, 8 + s % 1000);
        me.send_blocking(0, buf.data(), buf.size());
        me.module().progress();
      }
    }
    if (me.rank == 0) {
      me.progress_until([&] { return from1 >= 2000; }, "frames from rank 1");
      me.kill_rank(1);
    } else {
      // Rank 2 keeps sending to rank 1 until the failure shows.
      for (uint64_t s = 0; failures == 0; ++s) {
        fill_frame(buf, s, 512);
        struct iovec v{buf.data(), buf.size()};
        Status st = me.module().send(1, &v, 1);
        TCP_CHECK(st.ok() || st.code() == Code::kWouldBlock || failures > 0 || st.code() == Code::kAborted,
                  "send to the dying rank: %s", st.to_string().c_str());
        me.module().progress();
        if (st.code() == Code::kAborted) break;
      }
    }
    me.progress_until([&] { return failures > 0; }, "peer_failed(1)");
    TCP_CHECK(!why.ok(), "failure without a reason");
    // A send to the dead rank is now a final error, and nothing more is reported.
    struct iovec v{buf.data(), 8};
    Status st = me.module().send(1, &v, 1);
    TCP_CHECK(!st.ok() && st.code() != Code::kWouldBlock, "send to a dead rank: %s", st.to_string().c_str());
    // The survivors still talk.
    const int other = me.rank == 0 ? 2 : 0;
    me.send_blocking(other, kAck, 3);
    me.progress_until([&] { return got_hello; }, "survivor's frame");
    for (int i = 0; i < 100; ++i) me.module().progress();
    TCP_CHECK(failures == 1, "peer_failed called %d times", failures);
    me.finish();
    return 0;
  });
  EXPECT_TRUE(r.ok()) << r.report;
}

// ---- orderly finalize is not a failure --------------------------------------------------------

TEST(TcpJob, FinalizeOfAPeerIsNotAFailure) {
  auto r = run_job(2, {}, [](Rank& me) {
    bool got = false;
    me.host().on_deliver = [&](int, const void*, size_t) { got = true; };
    me.start();
    me.send_blocking(1 - me.rank, kAck, 3);
    me.progress_until([&] { return got; }, "frame");
    me.barrier();
    if (me.rank == 0) {
      Status s = me.module().finalize();  // returns once rank 1 closed too
      TCP_CHECK(s.ok(), "finalize: %s", s.to_string().c_str());
    } else {
      me.progress_until([&] { return me.tcp().peer_state(0) == TcpEndpoint::State::kPeerFinalized; },
                        "rank 0's bye");
      struct iovec v{const_cast<char*>(kAck), 3};
      Status s = me.module().send(0, &v, 1);
      TCP_CHECK(s.code() == Code::kAborted, "send to a finalized rank: %s", s.to_string().c_str());
      s = me.module().finalize();
      TCP_CHECK(s.ok(), "finalize: %s", s.to_string().c_str());
    }
    return 0;  // the default on_failed fails the rank on any peer_failed
  });
  EXPECT_TRUE(r.ok()) << r.report;
}

}  // namespace
}  // namespace lz::test::tcp

namespace lz::test::tcp {
namespace {

// Both ranks send 2000 frames to each other and check them; the published
// addresses must all satisfy `allowed`.
int exchange_over(Rank& me, bool (*allowed)(const SockAddr&)) {
  constexpr uint64_t kFrames = 2000;
  uint64_t next = 0;
  bool acked = false;
  me.host().on_deliver = [&](int, const void* d, size_t n) {
    if (is_ack(d, n)) {
      acked = true;
      return;
    }
    TCP_CHECK(check_frame(d, n, next), "frame %llu corrupted", (unsigned long long)next);
    ++next;
  };
  me.start();
  auto published = me.host().modex().get(1 - me.rank, transport::tcp::kModexKey);
  TCP_CHECK(published.ok(), "no address");
  for (const auto& item : str::split(*published, ',')) {
    auto a = SockAddr::parse(item);
    TCP_CHECK(a.ok() && allowed(*a), "published %s", item.c_str());
  }
  std::vector<unsigned char> buf;
  for (uint64_t s = 0; s < kFrames; ++s) {
    fill_frame(buf, s, 8 + s % 2000);
    me.send_blocking(1 - me.rank, buf.data(), buf.size());
  }
  me.progress_until([&] { return next == kFrames; }, "frames");
  me.send_blocking(1 - me.rank, kAck, 3);
  me.progress_until([&] { return acked; }, "ack");
  me.finish();
  return 0;
}

TEST(TcpJob, WorksWithoutLoopback) {
  auto itfs = transport::tcp::select_interfaces({}, {"lo"});
  if (!itfs.ok()) GTEST_SKIP() << "no interface besides loopback here: " << itfs.status().to_string();
  JobOptions opt;
  opt.mca = {{"transport_tcp_if_exclude", "lo"}};
  auto r = run_job(2, opt, [](Rank& me) {
    return exchange_over(me, [](const SockAddr& a) { return !a.is_loopback(); });
  });
  EXPECT_TRUE(r.ok()) << r.report;
}

TEST(TcpJob, WorksOverIpv6) {
  auto itfs = transport::tcp::select_interfaces({"::1/128"}, {});
  if (!itfs.ok()) GTEST_SKIP() << "no IPv6 loopback here: " << itfs.status().to_string();
  JobOptions opt;
  opt.mca = {{"transport_tcp_if_include", "::1/128"}};
  auto r = run_job(2, opt, [](Rank& me) {
    return exchange_over(me, [](const SockAddr& a) { return a.family() == AF_INET6; });
  });
  EXPECT_TRUE(r.ok()) << r.report;
}

}  // namespace
}  // namespace lz::test::tcp
