// transport/shm across forked processes: each rank builds the module through
// the registry and talks to the others through real shared memory. No
// wall-clock thresholds; a hang is caught by run_ranks' watchdog.
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shm_test_host.h"
#include "shm_test_job.h"
#include "temp_dir.h"

namespace lz::test::shm {
namespace {

using transport::kCapGet;
using transport::kCapLocalHost;
using transport::kCapWaitFd;

void expect_all_ok(const std::vector<RankOutcome>& outs) {
  for (const auto& o : outs) EXPECT_TRUE(o.exited_ok() || o.skipped()) << o.describe();
  for (const auto& o : outs)
    if (o.skipped()) GTEST_SKIP() << "rank " << o.rank << " skipped (see its output)";
}

uint8_t pattern_byte(uint64_t seq, size_t i) { return static_cast<uint8_t>((seq * 131 + i * 7 + 1) & 0xff); }

// Frame: 8-byte sequence number, then pattern bytes.
std::vector<uint8_t> make_frame(uint64_t seq, size_t len) {
  std::vector<uint8_t> f(len);
  for (size_t i = 0; i < len; ++i) f[i] = pattern_byte(seq, i);
  if (len >= 8) std::memcpy(f.data(), &seq, 8);
  return f;
}

bool check_frame(uint64_t seq, const void* data, size_t len) {
  const auto* p = static_cast<const uint8_t*>(data);
  if (len >= 8) {
    uint64_t got;
    std::memcpy(&got, p, 8);
    if (got != seq) return false;
  }
  for (size_t i = len >= 8 ? 8 : 0; i < len; ++i)
    if (p[i] != pattern_byte(seq, i)) return false;
  return true;
}

std::vector<std::string> shm_files_of(pid_t pid) {
  std::vector<std::string> out;
  const std::string needle = "." + std::to_string(pid) + ".";
  if (DIR* d = ::opendir("/dev/shm")) {
    while (struct dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n.rfind("lz-shm.", 0) == 0 && n.find(needle) != std::string::npos) out.push_back(n);
    }
    ::closedir(d);
  }
  return out;
}

TEST(ShmTransport, SelectedThroughRegistryReachesLocalPeers) {
  auto outs = run_ranks(3, [](RankEnv& env) {
    // Rank 2 lives on another (emulated) host.
    ShmRank r(env, {}, {1, 1, 2});
    ASSERT_TRUE(r.start().ok());
    const uint64_t caps = r.t->capabilities();
    EXPECT_TRUE(caps & kCapLocalHost);
    EXPECT_TRUE(caps & kCapWaitFd);
    EXPECT_TRUE(caps & transport::kCapCheckpoint);
    EXPECT_GE(r.t->wait_fd(), 0);
    EXPECT_EQ(r.t->max_frame(), 32u * 1024);
    EXPECT_FALSE(r.t->reaches(env.rank)) << "self is transport/self's job";
    if (env.rank == 2) {
      EXPECT_FALSE(r.t->reaches(0));
      EXPECT_FALSE(r.t->reaches(1));
    } else {
      EXPECT_TRUE(r.t->reaches(1 - env.rank));
      EXPECT_FALSE(r.t->reaches(2));
      EXPECT_FALSE(r.t->send(2, nullptr, 0).ok());
    }
    // Hooks out of order are refused, not crashes.
    EXPECT_EQ(r.t->on_continue().code(), Code::kInternal);
    EXPECT_EQ(r.t->on_restart().code(), Code::kInternal);
    EXPECT_TRUE(r.t->finalize().ok());
  });
  expect_all_ok(outs);
}

TEST(ShmTransport, OversizedFrameIsRefused) {
  auto outs = run_ranks(2, [](RankEnv& env) {
    ShmRank r(env, {{"transport_shm_max_frame", "4k"}});
    ASSERT_TRUE(r.start().ok());
    std::vector<uint8_t> big(4097);
    struct iovec iov{big.data(), big.size()};
    EXPECT_EQ(r.t->send(1 - env.rank, &iov, 1).code(), Code::kInvalidArgument);
    EXPECT_TRUE(r.t->finalize().ok());
  });
  expect_all_ok(outs);
}

TEST(ShmTransport, HundredThousandFramesArriveInOrder) {
  constexpr uint64_t kFrames = 100000;
  auto outs = run_ranks(2, [](RankEnv& env) {
    ShmRank r(env);
    ASSERT_TRUE(r.start().ok());
    if (env.rank == 0) {
      for (uint64_t i = 0; i < kFrames; ++i) {
        auto f = make_frame(i, 8 + i % 300);
        ASSERT_TRUE(r.send_blocking(1, f.data(), f.size()).ok()) << "frame " << i;
      }
    } else {
      uint64_t next = 0;
      bool bad = false;
      r.host.on_deliver = [&](int src, const void* p, size_t n) {
        if (src != 0 || n != 8 + next % 300 || !check_frame(next, p, n)) bad = true;
        ++next;
      };
      r.wait_until([&] { return next == kFrames || bad; });
      EXPECT_FALSE(bad) << "frame " << next - 1 << " is wrong or out of order";
    }
    ASSERT_TRUE(r.host.modex().fence().ok());
    EXPECT_TRUE(r.t->finalize().ok());
  });
  expect_all_ok(outs);
}

TEST(ShmTransport, EverySizeFromZeroToMaxFrame) {
  auto outs = run_ranks(2, [](RankEnv& env) {
    ShmRank r(env);
    ASSERT_TRUE(r.start().ok());
    const size_t max = r.t->max_frame();
    if (env.rank == 0) {
      std::vector<uint8_t> f(max);
      for (size_t len = 0; len <= max; ++len) {
        // Two iovecs, to cover gathering too.
        for (size_t i = 0; i < len; ++i) f[i] = pattern_byte(len, i);
        struct iovec iov[2] = {{f.data(), len / 3}, {f.data() + len / 3, len - len / 3}};
        ASSERT_TRUE(r.send_blocking(1, iov, 2).ok()) << "size " << len;
      }
    } else {
      size_t next = 0;
      bool bad = false;
      r.host.on_deliver = [&](int, const void* p, size_t n) {
        if (n != next) bad = true;
        for (size_t i = 0; i < n && !bad; ++i)
          if (static_cast<const uint8_t*>(p)[i] != pattern_byte(n, i)) bad = true;
        ++next;
      };
      r.wait_until([&] { return next == max + 1 || bad; });
      EXPECT_FALSE(bad) << "frame of size " << next - 1 << " is wrong";
    }
    ASSERT_TRUE(r.host.modex().fence().ok());
    EXPECT_TRUE(r.t->finalize().ok());
  });
  expect_all_ok(outs);
}

TEST(ShmTransport, FullRingWouldBlockThenDrains) {
  auto outs = run_ranks(2, [](RankEnv& env) {
    ShmRank r(env, {{"transport_shm_ring_size", "16k"}, {"transport_shm_max_frame", "1k"}});
    ASSERT_TRUE(r.start().ok());
    uint64_t sent = 0;
    if (env.rank == 0) {
      // The receiver is parked in a barrier: the ring must fill up.
      for (;;) {
        auto f = make_frame(sent, 1000);
        struct iovec iov{f.data(), f.size()};
        Status s = r.t->send(1, &iov, 1);
        if (s.code() == Code::kWouldBlock) break;
        ASSERT_TRUE(s.ok()) << s.to_string();
        ++sent;
        ASSERT_LT(sent, 1000u) << "a 16 KiB ring took 1000 KiB";
      }
      EXPECT_GT(sent, 0u);
      auto again = make_frame(sent, 1000);
      struct iovec one{again.data(), again.size()};
      EXPECT_EQ(r.t->send(1, &one, 1).code(), Code::kWouldBlock) << "still full without progress";
    }
    ASSERT_TRUE(r.host.modex().fence().ok());  // A: ring full
    if (env.rank == 1) {
      r.host.on_deliver = [&](int, const void* p, size_t n) {
        EXPECT_TRUE(check_frame(sent, p, n)) << "frame " << sent;
        ++sent;
      };
      r.wait_until([&] { return sent > 0 && r.t->progress() == 0; });
    }
    ASSERT_TRUE(r.host.modex().fence().ok());  // B: ring drained
    if (env.rank == 0) {
      auto f = make_frame(sent, 1000);
      struct iovec iov{f.data(), f.size()};
      EXPECT_TRUE(r.t->send(1, &iov, 1).ok()) << "space was not given back";
    } else {
      const uint64_t before = sent;
      r.wait_until([&] { return sent == before + 1; });
    }
    ASSERT_TRUE(r.host.modex().fence().ok());
    EXPECT_TRUE(r.t->finalize().ok());
  });
  expect_all_ok(outs);
}

// Four ranks, everyone sends to everyone at once (both directions of every
// pair), with small rings so senders keep hitting kWouldBlock while receiving
// and sleep until space is freed; liveness checks on every slow tick (they
// once ate doorbell bytes meant for a wait about to start).
TEST(ShmTransport, AllToAllBothDirectionsAtOnce) {
  constexpr int kN = 4;
  constexpr uint64_t kFrames = 20000;
  auto outs = run_ranks(kN, [](RankEnv& env) {
    ShmRank r(env, {{"transport_shm_ring_size", "16k"},
                    {"transport_shm_max_frame", "2k"},
                    {"transport_shm_liveness_ms", "1"}});
    ASSERT_TRUE(r.start().ok());
    std::vector<uint64_t> next(kN, 0);
    uint64_t received = 0;
    bool bad = false;
    r.host.on_deliver = [&](int src, const void* p, size_t n) {
      uint64_t& seq = next[static_cast<size_t>(src)];
      if (n != 8 + (seq * 13) % 2000 || !check_frame(seq, p, n)) bad = true;
      ++seq;
      ++received;
    };
    for (uint64_t i = 0; i < kFrames; ++i)
      for (int k = 1; k < kN; ++k) {
        const int peer = (env.rank + k) % kN;
        auto f = make_frame(i, 8 + (i * 13) % 2000);
        ASSERT_TRUE(r.send_blocking(peer, f.data(), f.size()).ok());
      }
    r.wait_until([&] { return received == kFrames * (kN - 1) || bad; });
    EXPECT_FALSE(bad);
    ASSERT_TRUE(r.host.modex().fence().ok());
    EXPECT_TRUE(r.t->finalize().ok());
  });
  expect_all_ok(outs);
}

TEST(ShmTransport, GetReads16MiBInOneCopy) {
  constexpr size_t kLen = 16u << 20;
  auto outs = run_ranks(2, [](RankEnv& env) {
    ShmRank r(env);
    ASSERT_TRUE(r.start().ok());
    if (!(r.t->capabilities() & kCapGet)) GTEST_SKIP() << "process_vm_readv is not permitted here";
    struct Msg {
      uint64_t addr, len, sum;
    } msg{};
    bool got = false;
    r.host.on_deliver = [&](int, const void* p, size_t n) {
      if (n == sizeof msg) std::memcpy(&msg, p, n);
      got = true;
    };
    if (env.rank == 0) {
      std::vector<uint64_t> buf(kLen / 8);
      uint64_t sum = 0;
      for (size_t i = 0; i < buf.size(); ++i) sum += buf[i] = i * 0x9e3779b97f4a7c15ull;
      Msg m{reinterpret_cast<uint64_t>(buf.data()), kLen, sum};
      ASSERT_TRUE(r.send_blocking(1, &m, sizeof m).ok());
      r.wait_until([&] { return got; });  // the reader is done with buf
    } else {
      r.wait_until([&] { return got; });
      std::vector<uint64_t> mine(kLen / 8, 0);
      Status s = r.t->get(0, mine.data(), msg.addr, msg.len);
      ASSERT_TRUE(s.ok()) << s.to_string();
      uint64_t sum = 0;
      bool exact = true;
      for (size_t i = 0; i < mine.size(); ++i) {
        sum += mine[i];
        exact = exact && mine[i] == i * 0x9e3779b97f4a7c15ull;
      }
      EXPECT_EQ(sum, msg.sum);
      EXPECT_TRUE(exact);
      // A bad remote address is an error, never a crash.
      EXPECT_FALSE(r.t->get(0, mine.data(), 8, 64).ok());
      uint64_t done = 1;
      ASSERT_TRUE(r.send_blocking(0, &done, sizeof done).ok());
    }
    ASSERT_TRUE(r.host.modex().fence().ok());
    EXPECT_TRUE(r.t->finalize().ok());
  });
  expect_all_ok(outs);
}

// Both ranks block in poll(wait_fd, no timeout) whenever they have nothing to
// do: every lost wake-up is a deadlock (caught by the watchdog).
TEST(ShmTransport, DoorbellWakesPollSleepingReceiver) {
  constexpr int kRounds = 3000;
  auto outs = run_ranks(2, [](RankEnv& env) {
    ShmRank r(env);
    ASSERT_TRUE(r.start().ok());
    int got = 0;
    r.host.on_deliver = [&](int, const void*, size_t) { ++got; };
    int sleeps = 0;
    if (env.rank == 1) {
      // Let rank 0 fall asleep first: its first wake-up must be the doorbell.
      ::usleep(100 * 1000);
    }
    for (int i = 0; i < kRounds; ++i) {
      if (env.rank == 1) {
        ASSERT_TRUE(r.send_blocking(0, &i, sizeof i).ok());
        sleeps += r.wait_until([&] { return got == i + 1; });
      } else {
        sleeps += r.wait_until([&] { return got == i + 1; });
        ASSERT_TRUE(r.send_blocking(1, &i, sizeof i).ok());
      }
    }
    std::printf("rank %d slept %d times in %d round trips\n", env.rank, sleeps, kRounds);
    if (env.rank == 0) {
      EXPECT_GT(sleeps, 0);
    }
    ASSERT_TRUE(r.host.modex().fence().ok());
    EXPECT_TRUE(r.t->finalize().ok());
  });
  expect_all_ok(outs);
}

TEST(ShmTransport, PeerDeathIsReportedOnceAfterItsFrames) {
  auto outs = run_ranks(3, [](RankEnv& env) {
    ShmRank r(env);
    ASSERT_TRUE(r.start().ok());
    if (env.rank == 2) {
      for (uint64_t i = 0; i < 10; ++i) {
        auto f = make_frame(i, 64);
        ASSERT_TRUE(r.send_blocking(0, f.data(), f.size()).ok());
        ASSERT_TRUE(r.send_blocking(1, f.data(), f.size()).ok());
      }
      ::kill(::getpid(), SIGKILL);
    }
    uint64_t from2 = 0;
    int got = 0;
    bool failed_before_frames = false;
    r.host.on_deliver = [&](int src, const void* p, size_t n) {
      if (src == 2) {
        EXPECT_TRUE(check_frame(from2, p, n));
        ++from2;
      } else {
        ++got;
      }
    };
    // Sleeps in poll() without timeout: the pidfd in wait_fd() must wake us.
    r.wait_until([&] {
      if (!r.host.failures.empty() && from2 < 10) failed_before_frames = true;
      return !r.host.failures.empty();
    });
    EXPECT_FALSE(failed_before_frames);
    EXPECT_EQ(from2, 10u);
    ASSERT_EQ(r.host.failures.size(), 1u);
    EXPECT_EQ(r.host.failures[0].first, 2);
    EXPECT_FALSE(r.host.failures[0].second.ok());
    uint64_t x = 0;
    struct iovec iov{&x, sizeof x};
    Status s = r.t->send(2, &iov, 1);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.code(), Code::kWouldBlock);
    // Survivors still talk, and the failure is not reported again.
    ASSERT_TRUE(r.send_blocking(1 - env.rank, &x, sizeof x).ok());
    r.wait_until([&] { return got == 1; });
    for (int i = 0; i < 2000; ++i) r.t->progress();
    EXPECT_EQ(r.host.failures.size(), 1u);
    EXPECT_TRUE(r.t->finalize().ok());
  });
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_TRUE(outs[0].exited_ok()) << outs[0].describe();
  EXPECT_TRUE(outs[1].exited_ok()) << outs[1].describe();
  EXPECT_TRUE(WIFSIGNALED(outs[2].wait_status)) << outs[2].describe();
}

TEST(ShmTransport, CleanExitAfterFinalizeIsNotAFailure) {
  auto outs = run_ranks(2, [](RankEnv& env) {
    ShmRank r(env);
    ASSERT_TRUE(r.start().ok());
    if (env.rank == 1) {
      const int32_t pid = ::getpid();
      ASSERT_TRUE(r.send_blocking(0, &pid, sizeof pid).ok());
      EXPECT_TRUE(r.t->finalize().ok());
      return;  // exits
    }
    int32_t pid = 0;
    r.host.on_deliver = [&](int, const void* p, size_t n) {
      if (n == sizeof pid) std::memcpy(&pid, p, n);
    };
    r.wait_until([&] { return pid != 0; });
    const int pfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (pfd >= 0) {
      struct pollfd p{pfd, POLLIN, 0};
      ASSERT_EQ(::poll(&p, 1, -1), 1);  // rank 1 has exited
      ::close(pfd);
    } else {
      ASSERT_EQ(errno, ESRCH);  // already exited and reaped
    }
    // One wait cycle services the wait set, where rank 1's pidfd is ready.
    r.t->arm_wait();
    r.t->progress();
    uint64_t x = 0;
    struct iovec iov{&x, sizeof x};
    EXPECT_EQ(r.t->send(1, &iov, 1).code(), Code::kAborted) << "the exit went unnoticed";
    EXPECT_TRUE(r.host.failures.empty()) << r.host.failures[0].second.to_string();
    EXPECT_TRUE(r.t->finalize().ok());
  });
  expect_all_ok(outs);
}

TEST(ShmTransport, NamesAreRemovedOnceEveryPeerMappedThem) {
  auto outs = run_ranks(3, [](RankEnv& env) {
    ShmRank r(env, {{"transport_shm_liveness_ms", "1"}});
    ASSERT_TRUE(r.start().ok());  // ends with a fence: all peers attached
    const pid_t me = ::getpid();
    while (!shm_files_of(me).empty()) {
      r.t->progress();
      ::usleep(200);
    }
    ASSERT_TRUE(r.host.modex().fence().ok());
    // Unlinked names do not break the transport.
    int got = 0;
    r.host.on_deliver = [&](int, const void*, size_t) { ++got; };
    for (int k = 1; k < env.size; ++k) ASSERT_TRUE(r.send_blocking((env.rank + k) % env.size, &k, sizeof k).ok());
    r.wait_until([&] { return got == env.size - 1; });
    ASSERT_TRUE(r.host.modex().fence().ok());
    EXPECT_TRUE(r.t->finalize().ok());
  });
  expect_all_ok(outs);
}

TEST(ShmTransport, StaleFilesOfDeadCreatorsAreSwept) {
  TempDir backing;
  // A pid that provably no longer exists: a reaped child's.
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  struct stat st;
  ASSERT_EQ(::stat("/proc/self/ns/pid", &st), 0);
  const std::string stem = "lz-shm.oldjob." + std::to_string(st.st_ino) + "." + std::to_string(dead) + ".0.0";
  const std::string stale = backing.write(stem + ".seg", "x");
  const std::string unrelated = backing.write("not-ours.seg", "x");
  auto outs = run_ranks(2, [&](RankEnv& env) {
    ShmRank r(env, {{"transport_shm_backing_dir", backing.path()}});
    ASSERT_TRUE(r.start().ok());
    EXPECT_TRUE(r.t->finalize().ok());
  });
  expect_all_ok(outs);
  EXPECT_NE(::access(stale.c_str(), F_OK), 0) << "stale segment not removed";
  EXPECT_EQ(::access(unrelated.c_str(), F_OK), 0) << "removed a file that is not ours";
}

TEST(ShmTransport, UnusableBackingDirDeclinesWithReason) {
  Registry reg;
  ConfigOptions opt;
  opt.read_default_file = false;
  opt.read_user_file = false;
  opt.load_plugins = false;
  static char* empty_env[] = {nullptr};
  opt.envp = empty_env;
  opt.mca = {{"transport_shm_backing_dir", "/nonexistent/lazarus-shm"}};
  ASSERT_TRUE(reg.configure(opt).ok());
  for (auto& q : reg.framework("transport")->query_all(reg.query_context(true))) {
    if (std::string(q.entry->desc->name) != "shm") continue;
    EXPECT_EQ(q.module, nullptr);
    EXPECT_EQ(q.declined.code(), Code::kUnavailable);
    EXPECT_NE(q.declined.message().find("/nonexistent/lazarus-shm"), std::string::npos) << q.declined.message();
    return;
  }
  FAIL() << "transport/shm is not registered";
}

}  // namespace
}  // namespace lz::test::shm
