// transport/tcp in real multi-process jobs (tests/support/transport_job.h),
// for what is tcp's own: one connection per pair when everyone connects at
// once (the race rule), the send-queue bound, strangers and silent sockets on
// the listener (counted and logged), a killed peer reported exactly once with
// the survivors still talking, the peer-finalized state, and interface
// selection (no loopback, IPv6). Ordering, sizes, bulk data and generic peer
// death are the transport conformance suite's, for every transport. No
// wall-clock assertions: the timeouts only keep a broken build from hanging.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "lazarus/auth.h"
#include "lazarus/net.h"
#include "lazarus/strings.h"
#include "tcp_handshake.h"
#include "tcp_interfaces.h"
#include "tcp_transport.h"
#include "transport_job.h"

namespace lz::test::tcp {
namespace {

using transport::tcp::TcpEndpoint;
using transport::tcp::TcpTransport;

// In a forked rank: print and end the rank with exit status 1 (the job then
// reports it as a failure).
#define TCP_CHECK(cond, ...)                                                          \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      ::lz::test::release_captured_stderr();                                          \
      std::fprintf(stderr, "CHECK failed at %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                              \
      std::fprintf(stderr, "\n");                                                     \
      std::fflush(stderr);                                                            \
      std::_Exit(1);                                                                  \
    }                                                                                 \
  } while (0)

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

TcpTransport& tcp_of(Child& c) { return dynamic_cast<TcpTransport&>(c.module()); }

// Sends one frame, progressing while the transport says would-block.
void send_blocking(Child& c, int peer, const void* p, size_t n) {
  struct iovec iov{const_cast<void*>(p), n};
  const double deadline = now_s() + 120;
  for (;;) {
    Status s = c.module().send(peer, &iov, 1);
    if (s.ok()) return;
    TCP_CHECK(s.code() == Code::kWouldBlock, "send to %d: %s", peer, s.to_string().c_str());
    c.progress();
    TCP_CHECK(now_s() < deadline, "send to %d stayed blocked", peer);
  }
}

// Progresses until pred() holds (fails the rank after a generous timeout).
void progress_until(Child& c, const std::function<bool()>& pred, const char* what, double timeout_s = 120) {
  const double deadline = now_s() + timeout_s;
  while (!pred()) {
    if (c.progress() == 0) {
      // Exercise the wait_fd contract instead of spinning hot.
      pollfd p{c.module().wait_fd(), POLLIN, 0};
      if (c.module().arm_wait()) ::poll(&p, 1, 10);
    }
    TCP_CHECK(now_s() < deadline, "timed out waiting for %s", what);
  }
}

// Barrier with the other live ranks, not progressing meanwhile.
void barrier(Child& c) { TCP_CHECK(c.sync(/*progress_module=*/false), "barrier failed"); }

JobSpec tcp_job(int nprocs, std::vector<std::pair<std::string, std::string>> mca = {}) {
  JobSpec spec;
  spec.transport = "tcp";
  spec.nprocs = nprocs;
  spec.timeout = std::chrono::seconds(240);
  spec.mca = std::move(mca);
  return spec;
}

void expect_passed(const JobResult& r) {
  for (const auto& p : r.problems()) ADD_FAILURE() << p;
  if (r.problems().empty())
    if (auto why = r.skip_reason()) GTEST_SKIP() << *why;
}

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

// ---- everyone sends first to everyone: one connection per pair -------------------

TEST(TcpJob, BothDirectionsAtOnceOneConnectionPerPair) {
  for (int round = 0; round < 3; ++round) {
    expect_passed(run_job(tcp_job(4), [](Child& c) {
      constexpr uint64_t kPerPeer = 5000;
      const int me = c.rank(), size = c.size();
      std::vector<uint64_t> next(size, 0);
      std::vector<bool> acked(size, false);
      uint64_t done_peers = 0;
      c.deliver_to([&](int src, const void* d, size_t n) {
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
      });
      barrier(c);  // everyone starts sending at the same moment
      std::vector<unsigned char> buf;
      for (uint64_t s = 0; s < kPerPeer; ++s)
        for (int p = 0; p < size; ++p) {
          if (p == me) continue;
          fill_frame(buf, s, 8 + (s * 13 + p) % 300);
          send_blocking(c, p, buf.data(), buf.size());
        }
      progress_until(c, [&] { return done_peers == static_cast<uint64_t>(size - 1); }, "all frames");
      for (int p = 0; p < size; ++p)
        if (p != me) send_blocking(c, p, kAck, 3);
      progress_until(
          c,
          [&] {
            for (int p = 0; p < size; ++p)
              if (p != me && !acked[p]) return false;
            return true;
          },
          "acks");
      const auto& st = tcp_of(c).stats();
      // Exactly one connection per pair: every peer was reached by exactly
      // one connection, either ours or theirs, and none was ever replaced.
      TCP_CHECK(st.accepted + st.connected == static_cast<uint64_t>(size - 1),
                "accepted %llu + connected %llu != %d", (unsigned long long)st.accepted,
                (unsigned long long)st.connected, size - 1);
      for (int p = 0; p < size; ++p)
        if (p != me)
          TCP_CHECK(tcp_of(c).peer_state(p) == TcpEndpoint::State::kConnected, "pair with %d is %s", p,
                    TcpEndpoint::state_name(tcp_of(c).peer_state(p)));
      std::fprintf(stderr, "rank %d: accepted %llu connected %llu races settled %llu\n", me,
                   (unsigned long long)st.accepted, (unsigned long long)st.connected,
                   (unsigned long long)st.duplicates_refused);
    }));
  }
}

// ---- back-pressure: queue bound -> kWouldBlock, then progress drains it ------------

TEST(TcpJob, QueueBoundGivesWouldBlockThenDrains) {
  expect_passed(run_job(
      tcp_job(2, {{"transport_tcp_max_frame", "16k"}, {"transport_tcp_send_queue_limit", "64k"}}), [](Child& c) {
        constexpr size_t kFrame = 16 * 1024;
        uint64_t got = 0;
        uint64_t total = 0;  // frames the sender sent, announced at the end
        bool have_total = false, acked = false;
        c.deliver_to([&](int, const void* d, size_t n) {
          if (c.rank() == 0) {
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
        });
        if (c.rank() == 0) {
          std::vector<unsigned char> buf;
          // Warm up so the connection is established.
          fill_frame(buf, 0, kFrame);
          send_blocking(c, 1, buf.data(), buf.size());
          uint64_t sent = 1;
          // Rank 1 is not progressing (it waits in the barrier below): the
          // socket buffers fill, then the queue, then send() must say would-block.
          bool blocked = false;
          for (int i = 0; i < 1000000 && !blocked; ++i) {
            fill_frame(buf, sent, kFrame);
            struct iovec v{buf.data(), buf.size()};
            Status s = c.module().send(1, &v, 1);
            if (s.code() == Code::kWouldBlock) {
              blocked = true;
              break;
            }
            TCP_CHECK(s.ok(), "send: %s", s.to_string().c_str());
            ++sent;
          }
          TCP_CHECK(blocked, "the queue bound never gave kWouldBlock");
          barrier(c);
          for (int i = 0; i < 200; ++i, ++sent) {
            fill_frame(buf, sent, kFrame);
            send_blocking(c, 1, buf.data(), buf.size());
          }
          unsigned char ann[9] = {};
          std::memcpy(ann, &sent, 8);
          send_blocking(c, 1, ann, 9);
          progress_until(c, [&] { return acked; }, "ack");
        } else {
          barrier(c);
          progress_until(c, [&] { return have_total && got == total; }, "every frame");
          send_blocking(c, 0, kAck, 3);
        }
      }));
}

// ---- strangers on the listener while two ranks exchange traffic -----------------------

// Connects to `published` (rank 0's first address; blocking socket).
int connect_to(const std::string& published) {
  auto addr = SockAddr::parse(str::split(published, ',').front());
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

// A stranger: an exit status, 0 when the listener treated it as expected.
using Stranger = int (*)(const std::string& published);

int garbage(const std::string& published) {
  int fd = connect_to(published);
  if (fd < 0) return 2;
  const char junk[] = "GET / HTTP/1.0\r\n\r\n\xff\xfe garbage garbage";
  if (::send(fd, junk, sizeof junk, MSG_NOSIGNAL) < 0) return 3;
  long n = read_until_closed(fd);  // HELLO (40 bytes) at most, then closed
  ::close(fd);
  return n >= 0 && n <= 40 ? 0 : 4;
}

int wrong_mac(const std::string& published) {
  int fd = connect_to(published);
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
}

int silent(const std::string& published) {
  int fd = connect_to(published);
  if (fd < 0) return 2;
  long n = read_until_closed(fd);  // HELLO, then closed at the handshake deadline
  ::close(fd);
  return n == 40 ? 0 : 3;
}

TEST(TcpJob, StrangersAreRefusedAndLoggedWhileTrafficFlows) {
  // Rank 1 forks the strangers once rank 0's address is known (after the
  // modex fence), and checks how each of them ended.
  auto strangers = std::make_shared<std::vector<pid_t>>();
  JobSpec spec = tcp_job(2, {{"transport_tcp_handshake_timeout", "1"}});
  spec.after_fence = [strangers](Child& c) {
    if (c.rank() == 0) {
      c.capture_stderr();  // the refusals are counted in rank 0's log
      return;
    }
    auto published = c.modex().get(0, transport::tcp::kModexKey);
    TCP_CHECK(published.ok(), "rank 0 published no address");
    for (Stranger s : {&garbage, &wrong_mac, &silent}) {
      std::fflush(nullptr);
      const pid_t pid = ::fork();
      TCP_CHECK(pid >= 0, "fork: %s", std::strerror(errno));
      if (pid == 0) ::_exit(s(*published));
      strangers->push_back(pid);
    }
  };
  expect_passed(run_job(spec, [strangers](Child& c) {
    constexpr uint64_t kFrames = 30000;
    uint64_t next = 0;
    bool acked = false;
    c.deliver_to([&](int src, const void* d, size_t n) {
      if (c.rank() == 1) {
        acked = is_ack(d, n);
        return;
      }
      TCP_CHECK(src == 1, "frame from %d", src);
      TCP_CHECK(check_frame(d, n, next), "frame %llu corrupted", (unsigned long long)next);
      ++next;
    });
    if (c.rank() == 1) {
      std::vector<unsigned char> buf;
      for (uint64_t s = 0; s < kFrames; ++s) {
        fill_frame(buf, s, 8 + s % 700);
        send_blocking(c, 0, buf.data(), buf.size());
      }
      progress_until(c, [&] { return acked; }, "ack");
      for (pid_t pid : *strangers) {
        int st = 0;
        TCP_CHECK(::waitpid(pid, &st, 0) == pid, "waitpid: %s", std::strerror(errno));
        TCP_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "stranger %d ended with status 0x%x", static_cast<int>(pid),
                  st);
      }
    } else {
      // The silent one is closed at the deadline without a warning: a rank
      // busy outside MPI looks the same, and it connects again.
      TcpTransport& t = tcp_of(c);
      progress_until(
          c, [&] { return next == kFrames && t.stats().refused >= 2 && t.stats().silent_closed >= 1; },
          "traffic, two refusals and a silent connection closed");
      send_blocking(c, 1, kAck, 3);
      const std::string log = c.release_stderr();
      size_t count = 0;
      for (size_t pos = 0; (pos = log.find("refused unauthenticated tcp connection from", pos)) != std::string::npos;
           ++pos)
        ++count;
      TCP_CHECK(count == 2, "expected 2 refusals in the log, found %zu:\n%s", count, log.c_str());
      TCP_CHECK(t.stats().accepted + t.stats().connected == 1, "one real connection");
    }
  }));
}

// ---- a peer killed with SIGKILL mid-stream ----------------------------------------------

TEST(TcpJob, PeerKilledMidStreamIsReportedOnce) {
  expect_passed(run_job(tcp_job(3), [](Child& c) {
    // Rank 1 streams to rank 0 and receives from rank 2; rank 0 has it killed.
    uint64_t from1 = 0;
    bool got_hello = false;
    c.deliver_to([&](int src, const void* d, size_t n) {
      if (src == 1) {
        TCP_CHECK(check_frame(d, n, from1), "frame %llu corrupted", (unsigned long long)from1);
        ++from1;
      } else if (is_ack(d, n)) {
        got_hello = true;
      }
    });
    std::vector<unsigned char> buf;
    if (c.rank() == 1) {
      for (uint64_t s = 0;; ++s) {  // until rank 0 says die
        fill_frame(buf, s, 8 + s % 1000);
        send_blocking(c, 0, buf.data(), buf.size());
        c.progress();
        if (c.take_post()) c.exit_abruptly(/*kill=*/true);
      }
    }
    c.expect_peer_failure();
    auto failures = [&] {
      for (const auto& pf : c.peer_failures()) TCP_CHECK(pf.rank == 1, "peer_failed(%d)", pf.rank);
      return static_cast<int>(c.peer_failures().size());
    };
    if (c.rank() == 0) {
      progress_until(c, [&] { return from1 >= 2000; }, "frames from rank 1");
      TCP_CHECK(c.post(1, "die"), "cannot ask rank 1 to die");
    } else {
      // Rank 2 keeps sending to rank 1 until the failure shows.
      for (uint64_t s = 0; failures() == 0; ++s) {
        fill_frame(buf, s, 512);
        struct iovec v{buf.data(), buf.size()};
        Status st = c.module().send(1, &v, 1);
        TCP_CHECK(st.ok() || st.code() == Code::kWouldBlock || failures() > 0 || st.code() == Code::kAborted,
                  "send to the dying rank: %s", st.to_string().c_str());
        c.progress();
        if (st.code() == Code::kAborted) break;
      }
    }
    progress_until(c, [&] { return failures() > 0; }, "peer_failed(1)");
    TCP_CHECK(!c.peer_failures().front().why.ok(), "failure without a reason");
    // A send to the dead rank is now a final error, and nothing more is reported.
    struct iovec v{buf.data(), 8};
    if (buf.size() < 8) buf.resize(8);
    v.iov_base = buf.data();
    Status st = c.module().send(1, &v, 1);
    TCP_CHECK(!st.ok() && st.code() != Code::kWouldBlock, "send to a dead rank: %s", st.to_string().c_str());
    // The survivors still talk.
    const int other = c.rank() == 0 ? 2 : 0;
    send_blocking(c, other, kAck, 3);
    progress_until(c, [&] { return got_hello; }, "survivor's frame");
    for (int i = 0; i < 100; ++i) c.progress();
    TCP_CHECK(failures() == 1, "peer_failed called %d times", failures());
  }));
}

// ---- orderly finalize is not a failure --------------------------------------------------------

TEST(TcpJob, FinalizeOfAPeerIsNotAFailure) {
  // Any peer_failed() fails the job (expect_peer_failure() is not called).
  expect_passed(run_job(tcp_job(2), [](Child& c) {
    bool got = false;
    c.deliver_to([&](int, const void*, size_t) { got = true; });
    send_blocking(c, c.peer(), kAck, 3);
    progress_until(c, [&] { return got; }, "frame");
    barrier(c);
    if (c.rank() == 0) {
      Status s = c.module().finalize();  // returns once rank 1 closed too
      TCP_CHECK(s.ok(), "finalize: %s", s.to_string().c_str());
    } else {
      progress_until(c, [&] { return tcp_of(c).peer_state(0) == TcpEndpoint::State::kPeerFinalized; },
                     "rank 0's bye");
      struct iovec v{const_cast<char*>(kAck), 3};
      Status s = c.module().send(0, &v, 1);
      TCP_CHECK(s.code() == Code::kAborted, "send to a finalized rank: %s", s.to_string().c_str());
      s = c.module().finalize();
      TCP_CHECK(s.ok(), "finalize: %s", s.to_string().c_str());
    }
  }));
}

// ---- interface selection ----------------------------------------------------------------

// Both ranks send 2000 frames to each other and check them; the published
// addresses must all satisfy `allowed`.
void exchange_over(Child& c, bool (*allowed)(const SockAddr&)) {
  constexpr uint64_t kFrames = 2000;
  uint64_t next = 0;
  bool acked = false;
  c.deliver_to([&](int, const void* d, size_t n) {
    if (is_ack(d, n)) {
      acked = true;
      return;
    }
    TCP_CHECK(check_frame(d, n, next), "frame %llu corrupted", (unsigned long long)next);
    ++next;
  });
  auto published = c.modex().get(c.peer(), transport::tcp::kModexKey);
  TCP_CHECK(published.ok(), "no address");
  for (const auto& item : str::split(*published, ',')) {
    auto a = SockAddr::parse(item);
    TCP_CHECK(a.ok() && allowed(*a), "published %s", item.c_str());
  }
  std::vector<unsigned char> buf;
  for (uint64_t s = 0; s < kFrames; ++s) {
    fill_frame(buf, s, 8 + s % 2000);
    send_blocking(c, c.peer(), buf.data(), buf.size());
  }
  progress_until(c, [&] { return next == kFrames; }, "frames");
  send_blocking(c, c.peer(), kAck, 3);
  progress_until(c, [&] { return acked; }, "ack");
}

TEST(TcpJob, WorksWithoutLoopback) {
  auto itfs = transport::tcp::select_interfaces({}, {"lo"});
  if (!itfs.ok()) GTEST_SKIP() << "no interface besides loopback here: " << itfs.status().to_string();
  expect_passed(run_job(tcp_job(2, {{"transport_tcp_if_exclude", "lo"}}), [](Child& c) {
    exchange_over(c, [](const SockAddr& a) { return !a.is_loopback(); });
  }));
}

TEST(TcpJob, WorksOverIpv6) {
  auto itfs = transport::tcp::select_interfaces({"::1/128"}, {});
  if (!itfs.ok()) GTEST_SKIP() << "no IPv6 loopback here: " << itfs.status().to_string();
  expect_passed(run_job(tcp_job(2, {{"transport_tcp_if_include", "::1/128"}}), [](Child& c) {
    exchange_over(c, [](const SockAddr& a) { return a.family() == AF_INET6; });
  }));
}

}  // namespace
}  // namespace lz::test::tcp
