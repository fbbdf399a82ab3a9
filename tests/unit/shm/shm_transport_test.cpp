// transport/shm across forked processes (tests/support/transport_job.h), for
// what is shm's own: placement by host, the ring (every size, full ring and
// wrap-around, tiny rings under all-to-all load), single-copy get of 16 MiB
// and of a bad address, the doorbell of sleeping ranks, peer death seen
// through pidfds after the dead rank's frames, clean exits, segment names and
// the backing directory. Ordering and generic sizes are the transport
// conformance suite's. No wall-clock thresholds; a hang is caught by the
// job's timeout.
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "lazarus/registry.h"
#include "shm_membarrier.h"
#include "shm_names.h"
#include "temp_dir.h"
#include "transport_job.h"

namespace lz::test::shm {
namespace {

using transport::kCapGet;
using transport::kCapLocalHost;
using transport::kCapWaitFd;

JobSpec shm_job(int nprocs, std::vector<std::pair<std::string, std::string>> mca = {},
                std::vector<uint64_t> node_of_rank = {}) {
  JobSpec spec;
  spec.transport = "shm";
  spec.nprocs = nprocs;
  spec.mca = std::move(mca);
  spec.node_of_rank = std::move(node_of_rank);
  return spec;
}

void expect_passed(const JobResult& r) {
  for (const auto& p : r.problems()) ADD_FAILURE() << p;
  if (r.problems().empty())
    if (auto why = r.skip_reason()) GTEST_SKIP() << *why;
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
  // Rank 2 lives on another (emulated) host.
  expect_passed(run_job(shm_job(3, {}, {1, 1, 2}), [](Child& c) {
    // The job ran init, fence, connect; one more fence: every peer mapped our segment.
    ASSERT_TRUE(c.sync(/*progress_module=*/false));
    const uint64_t caps = c.module().capabilities();
    EXPECT_TRUE(caps & kCapLocalHost);
    EXPECT_TRUE(caps & kCapWaitFd);
    EXPECT_TRUE(caps & transport::kCapCheckpoint);
    EXPECT_GE(c.module().wait_fd(), 0);
    EXPECT_EQ(c.module().max_frame(), 32u * 1024);
    EXPECT_FALSE(c.module().reaches(c.rank())) << "self is transport/self's job";
    if (c.rank() == 2) {
      EXPECT_FALSE(c.module().reaches(0));
      EXPECT_FALSE(c.module().reaches(1));
    } else {
      EXPECT_TRUE(c.module().reaches(1 - c.rank()));
      EXPECT_FALSE(c.module().reaches(2));
      EXPECT_FALSE(c.module().send(2, nullptr, 0).ok());
    }
    // Hooks out of order are refused, not crashes.
    EXPECT_EQ(c.module().on_continue().code(), Code::kInternal);
    EXPECT_EQ(c.module().on_restart().code(), Code::kInternal);
    EXPECT_TRUE(c.module().finalize().ok());
  }));
}

TEST(ShmTransport, OversizedFrameIsRefused) {
  expect_passed(run_job(shm_job(2, {{"transport_shm_max_frame", "4k"}}), [](Child& c) {
    // The job ran init, fence, connect; one more fence: every peer mapped our segment.
    ASSERT_TRUE(c.sync(/*progress_module=*/false));
    std::vector<uint8_t> big(4097);
    struct iovec iov{big.data(), big.size()};
    EXPECT_EQ(c.module().send(1 - c.rank(), &iov, 1).code(), Code::kInvalidArgument);
    EXPECT_TRUE(c.module().finalize().ok());
  }));
}

TEST(ShmTransport, EverySizeFromZeroToMaxFrame) {
  expect_passed(run_job(shm_job(2), [](Child& c) {
    // The job ran init, fence, connect; one more fence: every peer mapped our segment.
    ASSERT_TRUE(c.sync(/*progress_module=*/false));
    const size_t max = c.module().max_frame();
    if (c.rank() == 0) {
      std::vector<uint8_t> f(max);
      for (size_t len = 0; len <= max; ++len) {
        // Two iovecs, to cover gathering too.
        for (size_t i = 0; i < len; ++i) f[i] = pattern_byte(len, i);
        struct iovec iov[2] = {{f.data(), len / 3}, {f.data() + len / 3, len - len / 3}};
        ASSERT_TRUE(c.send_blocking(1, iov, 2).ok()) << "size " << len;
      }
    } else {
      size_t next = 0;
      bool bad = false;
      c.deliver_to([&](int, const void* p, size_t n) {
        if (n != next) bad = true;
        for (size_t i = 0; i < n && !bad; ++i)
          if (static_cast<const uint8_t*>(p)[i] != pattern_byte(n, i)) bad = true;
        ++next;
      });
      c.wait_until([&] { return next == max + 1 || bad; });
      EXPECT_FALSE(bad) << "frame of size " << next - 1 << " is wrong";
    }
    ASSERT_TRUE(c.sync(/*progress_module=*/false));
    EXPECT_TRUE(c.module().finalize().ok());
  }));
}

TEST(ShmTransport, FullRingWouldBlockThenDrains) {
  expect_passed(run_job(shm_job(2, {{"transport_shm_ring_size", "16k"}, {"transport_shm_max_frame", "1k"}}), [](Child& c) {
    // The job ran init, fence, connect; one more fence: every peer mapped our segment.
    ASSERT_TRUE(c.sync(/*progress_module=*/false));
    uint64_t sent = 0;
    if (c.rank() == 0) {
      // The receiver is parked in a barrier: the ring must fill up.
      for (;;) {
        auto f = make_frame(sent, 1000);
        struct iovec iov{f.data(), f.size()};
        Status s = c.module().send(1, &iov, 1);
        if (s.code() == Code::kWouldBlock) break;
        ASSERT_TRUE(s.ok()) << s.to_string();
        ++sent;
        ASSERT_LT(sent, 1000u) << "a 16 KiB ring took 1000 KiB";
      }
      EXPECT_GT(sent, 0u);
      auto again = make_frame(sent, 1000);
      struct iovec one{again.data(), again.size()};
      EXPECT_EQ(c.module().send(1, &one, 1).code(), Code::kWouldBlock) << "still full without progress";
    }
    ASSERT_TRUE(c.sync(/*progress_module=*/false));  // A: ring full
    if (c.rank() == 1) {
      c.deliver_to([&](int, const void* p, size_t n) {
        EXPECT_TRUE(check_frame(sent, p, n)) << "frame " << sent;
        ++sent;
      });
      c.wait_until([&] { return sent > 0 && c.progress() == 0; });
    }
    ASSERT_TRUE(c.sync(/*progress_module=*/false));  // B: ring drained
    if (c.rank() == 0) {
      auto f = make_frame(sent, 1000);
      struct iovec iov{f.data(), f.size()};
      EXPECT_TRUE(c.module().send(1, &iov, 1).ok()) << "space was not given back";
    } else {
      const uint64_t before = sent;
      c.wait_until([&] { return sent == before + 1; });
    }
    ASSERT_TRUE(c.sync(/*progress_module=*/false));
    EXPECT_TRUE(c.module().finalize().ok());
  }));
}

// Four ranks, everyone sends to everyone at once (both directions of every
// pair), with small rings so senders keep hitting kWouldBlock while receiving
// and sleep until space is freed; liveness checks on every slow tick (they
// once ate doorbell bytes meant for a wait about to start).
TEST(ShmTransport, AllToAllBothDirectionsAtOnce) {
  constexpr int kN = 4;
  constexpr uint64_t kFrames = 20000;
  JobSpec spec = shm_job(
      kN, {{"transport_shm_ring_size", "16k"}, {"transport_shm_max_frame", "2k"}, {"transport_shm_liveness_ms", "1"}});
  expect_passed(run_job(spec, [](Child& c) {
    // The job ran init, fence, connect; one more fence: every peer mapped our segment.
    ASSERT_TRUE(c.sync(/*progress_module=*/false));
    std::vector<uint64_t> next(kN, 0);
    uint64_t received = 0;
    bool bad = false;
    c.deliver_to([&](int src, const void* p, size_t n) {
      uint64_t& seq = next[static_cast<size_t>(src)];
      if (n != 8 + (seq * 13) % 2000 || !check_frame(seq, p, n)) bad = true;
      ++seq;
      ++received;
    });
    for (uint64_t i = 0; i < kFrames; ++i)
      for (int k = 1; k < kN; ++k) {
        const int peer = (c.rank() + k) % kN;
        auto f = make_frame(i, 8 + (i * 13) % 2000);
        ASSERT_TRUE(c.send_blocking(peer, f.data(), f.size()).ok());
      }
    c.wait_until([&] { return received == kFrames * (kN - 1) || bad; });
    EXPECT_FALSE(bad);
    ASSERT_TRUE(c.sync(/*progress_module=*/false));
    EXPECT_TRUE(c.module().finalize().ok());
  }));
}

TEST(ShmTransport, GetReads16MiBInOneCopy) {
  constexpr size_t kLen = 16u << 20;
  expect_passed(run_job(shm_job(2), [](Child& c) {
    // The job ran init, fence, connect; one more fence: every peer mapped our segment.
    ASSERT_TRUE(c.sync(/*progress_module=*/false));
    if (!(c.module().capabilities() & kCapGet)) GTEST_SKIP() << "process_vm_readv is not permitted here";
    struct Msg {
      uint64_t addr, len, sum;
    } msg{};
    bool got = false;
    c.deliver_to([&](int, const void* p, size_t n) {
      if (n == sizeof msg) std::memcpy(&msg, p, n);
      got = true;
    });
    if (c.rank() == 0) {
      std::vector<uint64_t> buf(kLen / 8);
      uint64_t sum = 0;
      for (size_t i = 0; i < buf.size(); ++i) sum += buf[i] = i * 0x9e3779b97f4a7c15ull;
      Msg m{reinterpret_cast<uint64_t>(buf.data()), kLen, sum};
      ASSERT_TRUE(c.send_blocking(1, &m, sizeof m).ok());
      c.wait_until([&] { return got; });  // the reader is done with buf
    } else {
      c.wait_until([&] { return got; });
      std::vector<uint64_t> mine(kLen / 8, 0);
      int completions = 0;
      auto count = [](void* n, const Status& st) { ++*static_cast<int*>(n), (void)st; };
      Status s = c.module().get_async(0, mine.data(), msg.len, msg.addr, {}, {count, &completions});
      ASSERT_TRUE(s.ok()) << s.to_string();
      EXPECT_EQ(completions, 1);  // process_vm_readv: done before get_async returns
      uint64_t sum = 0;
      bool exact = true;
      for (size_t i = 0; i < mine.size(); ++i) {
        sum += mine[i];
        exact = exact && mine[i] == i * 0x9e3779b97f4a7c15ull;
      }
      EXPECT_EQ(sum, msg.sum);
      EXPECT_TRUE(exact);
      // A bad remote address is an error, never a crash.
      EXPECT_FALSE(c.module().get_async(0, mine.data(), 64, 8, {}, {count, &completions}).ok());
      EXPECT_EQ(completions, 1);  // a read not started never completes
      uint64_t done = 1;
      ASSERT_TRUE(c.send_blocking(0, &done, sizeof done).ok());
    }
    ASSERT_TRUE(c.sync(/*progress_module=*/false));
    EXPECT_TRUE(c.module().finalize().ok());
  }));
}

// Both ranks block in poll(wait_fd, no timeout) whenever they have nothing to
// do: every lost wake-up is a deadlock (caught by the watchdog). With
// `membarrier` the sender publishes without a fence and the sleeper's
// membarrier stands in for it (shm_membarrier.h); without, every send fences.
void ping_pong_through_sleeps(bool membarrier) {
  constexpr int kRounds = 3000;
  // The transport's own condition (shm_membarrier.cpp).
  if (membarrier && !::lz::transport::shm::membarrier::register_process())
    GTEST_SKIP() << "membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) is not available here: every send fences";
  expect_passed(run_job(shm_job(2, {{"transport_shm_membarrier", membarrier ? "true" : "false"}}), [&](Child& c) {
    // The job ran init, fence, connect; one more fence: every peer mapped our segment.
    ASSERT_TRUE(c.sync(/*progress_module=*/false));
    int got = 0;
    c.deliver_to([&](int, const void*, size_t) { ++got; });
    int sleeps = 0;
    if (c.rank() == 1) {
      // Let rank 0 fall asleep first: its first wake-up must be the doorbell.
      ::usleep(100 * 1000);
    }
    for (int i = 0; i < kRounds; ++i) {
      if (c.rank() == 1) {
        ASSERT_TRUE(c.send_blocking(0, &i, sizeof i).ok());
        sleeps += c.wait_until([&] { return got == i + 1; });
      } else {
        sleeps += c.wait_until([&] { return got == i + 1; });
        ASSERT_TRUE(c.send_blocking(1, &i, sizeof i).ok());
      }
    }
    std::printf("rank %d slept %d times in %d round trips\n", c.rank(), sleeps, kRounds);
    if (c.rank() == 0) {
      EXPECT_GT(sleeps, 0);
    }
    ASSERT_TRUE(c.sync(/*progress_module=*/false));
    EXPECT_TRUE(c.module().finalize().ok());
  }));
}

TEST(ShmTransport, DoorbellWakesPollSleepingReceiverUnfencedSendsWithMembarrier) { ping_pong_through_sleeps(true); }
TEST(ShmTransport, DoorbellWakesPollSleepingReceiverFencedSends) { ping_pong_through_sleeps(false); }

TEST(ShmTransport, PeerDeathIsReportedOnceAfterItsFrames) {
  expect_passed(run_job(shm_job(3), [](Child& c) {
    // The job ran init, fence, connect; one more fence: every peer mapped our segment.
    ASSERT_TRUE(c.sync(/*progress_module=*/false));
    if (c.rank() == 2) {
      for (uint64_t i = 0; i < 10; ++i) {
        auto f = make_frame(i, 64);
        ASSERT_TRUE(c.send_blocking(0, f.data(), f.size()).ok());
        ASSERT_TRUE(c.send_blocking(1, f.data(), f.size()).ok());
      }
      c.exit_abruptly(/*kill=*/true);  // SIGKILL
    }
    c.expect_peer_failure();
    uint64_t from2 = 0;
    int got = 0;
    bool failed_before_frames = false;
    c.deliver_to([&](int src, const void* p, size_t n) {
      if (src == 2) {
        EXPECT_TRUE(check_frame(from2, p, n));
        ++from2;
      } else {
        ++got;
      }
    });
    // Sleeps in poll() without timeout: the pidfd in wait_fd() must wake us.
    c.wait_until([&] {
      if (!c.peer_failures().empty() && from2 < 10) failed_before_frames = true;
      return !c.peer_failures().empty();
    });
    EXPECT_FALSE(failed_before_frames);
    EXPECT_EQ(from2, 10u);
    ASSERT_EQ(c.peer_failures().size(), 1u);
    EXPECT_EQ(c.peer_failures()[0].rank, 2);
    EXPECT_FALSE(c.peer_failures()[0].why.ok());
    uint64_t x = 0;
    struct iovec iov{&x, sizeof x};
    Status s = c.module().send(2, &iov, 1);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.code(), Code::kWouldBlock);
    // Survivors still talk, and the failure is not reported again.
    ASSERT_TRUE(c.send_blocking(1 - c.rank(), &x, sizeof x).ok());
    c.wait_until([&] { return got == 1; });
    for (int i = 0; i < 2000; ++i) c.progress();
    EXPECT_EQ(c.peer_failures().size(), 1u);
    EXPECT_TRUE(c.module().finalize().ok());
  }));
}

TEST(ShmTransport, CleanExitAfterFinalizeIsNotAFailure) {
  expect_passed(run_job(shm_job(2), [](Child& c) {
    // The job ran init, fence, connect; one more fence: every peer mapped our segment.
    ASSERT_TRUE(c.sync(/*progress_module=*/false));
    if (c.rank() == 1) {
      const int32_t pid = ::getpid();
      ASSERT_TRUE(c.send_blocking(0, &pid, sizeof pid).ok());
      EXPECT_TRUE(c.module().finalize().ok());
      c.exit_abruptly(/*kill=*/false);  // exits now, after finalize()
    }
    int32_t pid = 0;
    c.deliver_to([&](int, const void* p, size_t n) {
      if (n == sizeof pid) std::memcpy(&pid, p, n);
    });
    c.wait_until([&] { return pid != 0; });
    const int pfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (pfd >= 0) {
      struct pollfd p{pfd, POLLIN, 0};
      ASSERT_EQ(::poll(&p, 1, -1), 1);  // rank 1 has exited
      ::close(pfd);
    } else {
      ASSERT_EQ(errno, ESRCH);  // already exited and reaped
    }
    // One wait cycle services the wait set, where rank 1's pidfd is ready.
    c.module().arm_wait();
    c.progress();
    uint64_t x = 0;
    struct iovec iov{&x, sizeof x};
    EXPECT_EQ(c.module().send(1, &iov, 1).code(), Code::kAborted) << "the exit went unnoticed";
    EXPECT_TRUE(c.peer_failures().empty()) << c.peer_failures()[0].why.to_string();
    EXPECT_TRUE(c.module().finalize().ok());
  }));
}

TEST(ShmTransport, NamesAreRemovedOnceEveryPeerMappedThem) {
  expect_passed(run_job(shm_job(3, {{"transport_shm_liveness_ms", "1"}}), [](Child& c) {
    // The job ran init, fence, connect; one more fence: every peer mapped our segment.
    ASSERT_TRUE(c.sync(/*progress_module=*/false));
    const pid_t me = ::getpid();
    while (!shm_files_of(me).empty()) {
      c.progress();
      ::usleep(200);
    }
    ASSERT_TRUE(c.sync(/*progress_module=*/false));
    // Unlinked names do not break the transport.
    int got = 0;
    c.deliver_to([&](int, const void*, size_t) { ++got; });
    for (int k = 1; k < c.size(); ++k) ASSERT_TRUE(c.send_blocking((c.rank() + k) % c.size(), &k, sizeof k).ok());
    c.wait_until([&] { return got == c.size() - 1; });
    ASSERT_TRUE(c.sync(/*progress_module=*/false));
    EXPECT_TRUE(c.module().finalize().ok());
  }));
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
  expect_passed(run_job(shm_job(2, {{"transport_shm_backing_dir", backing.path()}}), [&](Child& c) {
    // The job ran init, fence, connect; one more fence: every peer mapped our segment.
    ASSERT_TRUE(c.sync(/*progress_module=*/false));
    EXPECT_TRUE(c.module().finalize().ok());
  }));
  EXPECT_NE(::access(stale.c_str(), F_OK), 0) << "stale segment not removed";
  EXPECT_EQ(::access(unrelated.c_str(), F_OK), 0) << "removed a file that is not ours";
}

TEST(ShmTransport, SweepRemovesFilesOfOurOwnPidAndKeepsALiveCreators) {
  // A process that had our pid died and left its files (the pid was
  // reused). The sweep runs while this process has no segment of its own,
  // so no file of our pid is in use; before, they stayed until we exited.
  TempDir backing;
  struct stat st;
  ASSERT_EQ(::stat("/proc/self/ns/pid", &st), 0);
  auto name = [&](pid_t pid, int rank, int gen) {
    return "lz-shm.oldjob." + std::to_string(st.st_ino) + "." + std::to_string(pid) + "." + std::to_string(rank) +
           "." + std::to_string(gen);
  };
  const std::string own_seg = backing.write(name(::getpid(), 1, 1) + ".seg", "x");
  const std::string own_bell = backing.write(name(::getpid(), 1, 1) + ".bell", "x");
  const std::string live = backing.write(name(::getppid(), 0, 0) + ".seg", "x");
  EXPECT_EQ(lz::transport::shm::sweep_stale(backing.path()), 2);
  EXPECT_NE(::access(own_seg.c_str(), F_OK), 0) << "our own pid's segment was kept";
  EXPECT_NE(::access(own_bell.c_str(), F_OK), 0) << "our own pid's doorbell was kept";
  EXPECT_EQ(::access(live.c_str(), F_OK), 0) << "removed the file of a live process";
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
