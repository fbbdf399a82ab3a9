// transport/ofi across forked processes (tests/support/transport_job.h), over
// both providers it is meant for (shm and tcp;ofi_rxm), for what is ofi's
// own: the provider choice by placement, frames of strangers dropped, a
// checkpoint that leaves nothing of libfabric behind cycle after cycle, a
// clean exit after finalize() that is not a failure, peer death seen by
// pidfd after the dead rank's frames, the error for a provider that is not
// there, and FI_RMA keys refused once their endpoint is gone. Ordering,
// sizes, flow control and the generic CR cases are the transport
// conformance suite's. No wall-clock thresholds; a hang is caught
// by the job's timeout.
#include <dirent.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lazarus/registry.h"
#include "ofi_address.h"
#include "ofi_fabric.h"
#include "ofi_frame.h"
#include "ofi_info.h"
#include "ofi_proxy.h"
#include "ofi_transport.h"
#include "transport_job.h"

namespace lz::test::ofi {
namespace {

using transport::ofi::FrameHeader;
using transport::ofi::OfiAddress;
using transport::ofi::OfiFabric;
using transport::ofi::OfiTransport;

void expect_passed(const JobResult& r) {
  for (const auto& p : r.problems()) ADD_FAILURE() << p;
  if (r.problems().empty())
    if (auto why = r.skip_reason()) GTEST_SKIP() << *why;
}

// The module in liblazarus_ofi.so behind the proxy the component hands out.
OfiTransport& ofi(Child& c) {
  auto& proxy = dynamic_cast<transport::ofi::OfiProxy&>(c.module());
  return dynamic_cast<OfiTransport&>(*proxy.real());
}

// Frame: 8-byte sequence number, then bytes derived from it.
std::string make_frame(uint64_t seq, size_t len) {
  std::string f(std::max<size_t>(len, 8), '\0');
  for (size_t i = 8; i < f.size(); ++i) f[i] = static_cast<char>((seq * 131 + i * 7 + 1) & 0xff);
  std::memcpy(f.data(), &seq, 8);
  return f;
}

class OfiProviders : public ::testing::TestWithParam<std::string> {
 protected:
  JobSpec job(int nprocs, std::vector<std::pair<std::string, std::string>> mca = {},
              std::vector<uint64_t> nodes = {}) const {
    JobSpec spec;
    spec.transport = "ofi";
    spec.nprocs = nprocs;
    spec.mca = std::move(mca);
    spec.mca.emplace_back("transport_ofi_provider", GetParam());
    spec.node_of_rank = std::move(nodes);
    return spec;
  }
};

// Every descriptor of this process, "fd -> target".
std::set<std::string> open_fds() {
  std::set<std::string> out;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    const int self = ::dirfd(d);
    while (struct dirent* e = ::readdir(d)) {
      if (e->d_name[0] == '.' || std::atoi(e->d_name) == self) continue;
      char t[512];
      const ssize_t n = ::readlinkat(self, e->d_name, t, sizeof t - 1);
      if (n > 0) out.insert(std::string(e->d_name) + " -> " + std::string(t, static_cast<size_t>(n)));
    }
    ::closedir(d);
  }
  return out;
}

int thread_count() {
  int n = 0;
  if (DIR* d = ::opendir("/proc/self/task")) {
    while (struct dirent* e = ::readdir(d)) n += e->d_name[0] != '.';
    ::closedir(d);
  }
  return n;
}

// Mappings of files under /dev/shm, and /dev/shm files named after our pid.
std::vector<std::string> shared_memory_held() {
  std::vector<std::string> out;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("/dev/shm/") != std::string::npos) out.push_back("mapping " + line);
  const std::string prefix = std::to_string(::getpid()) + ":";
  if (DIR* d = ::opendir("/dev/shm")) {
    while (struct dirent* e = ::readdir(d))
      if (std::string(e->d_name).rfind(prefix, 0) == 0) out.push_back(std::string("file /dev/shm/") + e->d_name);
    ::closedir(d);
  }
  return out;
}

// 20 checkpoint/continue cycles with traffic in between: after every
// on_checkpoint() the process holds no libfabric thread, no /dev/shm file or
// mapping, and exactly the descriptors it held after the first one (nothing
// leaks from one cycle to the next).
TEST_P(OfiProviders, CheckpointReleasesEverythingEveryCycle) {
  expect_passed(run_job(job(2), [](Child& c) {
    std::set<std::string> baseline;
    uint64_t sent = 0, got = 0;
    c.deliver_to([&](int, const void* p, size_t n) {
      uint64_t seq;
      ASSERT_GE(n, 8u);
      std::memcpy(&seq, p, 8);
      ASSERT_EQ(seq, got) << "frame lost or duplicated across the hooks";
      ++got;
    });
    for (int cycle = 0; cycle < 20; ++cycle) {
      for (int i = 0; i < 50; ++i, ++sent) {
        const std::string f = make_frame(sent, 100 + (sent * 977) % 6000);
        ASSERT_TRUE(c.send_blocking(c.peer(), f.data(), f.size()).ok());
      }
      c.wait_until([&] { return got == sent; });
      ASSERT_EQ(got, sent);
      Status s;
      do {  // a send may complete only when the peer has read it (shm CMA)
        s = c.module().on_checkpoint();
        if (s.code() == Code::kWouldBlock) c.progress();
      } while (s.code() == Code::kWouldBlock && !c.expired());
      ASSERT_TRUE(s.ok()) << "cycle " << cycle << ": " << s.to_string();
      EXPECT_EQ(thread_count(), 1) << "cycle " << cycle << ": a libfabric thread survived on_checkpoint()";
      for (const auto& r : shared_memory_held()) ADD_FAILURE() << "cycle " << cycle << ": still holds " << r;
      const std::set<std::string> fds = open_fds();
      if (cycle == 0) baseline = fds;
      for (const auto& f : fds)
        if (!baseline.count(f)) ADD_FAILURE() << "cycle " << cycle << ": fd " << f << " leaked across the hooks";
      if (::testing::Test::HasFailure()) return;
      ASSERT_TRUE(c.module().on_continue().ok());
      ASSERT_TRUE(c.modex().fence().ok());
      ASSERT_TRUE(c.module().connect().ok());
    }
  }));
}

// Reads the peer's buffer (published as "<addr> <hex key>" under `name`)
// through get_async(); the status it was refused or completed with.
struct ReadResult {
  int calls = 0;
  Status status;
};
void on_read(void* arg, const Status& s) {
  auto* r = static_cast<ReadResult*>(arg);
  ++r->calls;
  r->status = s;
}
std::string hex(std::string_view b) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char ch : b) out += {d[ch >> 4], d[ch & 15]};
  return out;
}
std::string unhex(std::string_view h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) out += static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16));
  return out;
}
Status read_peer(Child& c, const std::string& name, std::vector<char>* into, ReadResult* r) {
  auto v = c.modex().get(c.peer(), name);
  if (!v.ok()) return v.status();
  const size_t sp = v->find(' ');
  const uint64_t addr = std::stoull(v->substr(0, sp));
  const std::string key = unhex(v->substr(sp + 1));
  Status s;
  do {
    s = c.module().get_async(c.peer(), into->data(), into->size(), addr, key, transport::Completion{&on_read, r});
    if (s.code() == Code::kWouldBlock) c.progress();
  } while (s.code() == Code::kWouldBlock && !c.expired());
  if (!s.ok()) return s;
  c.wait_until([&] { return r->calls > 0 || c.expired(); });
  return r->calls == 1 ? r->status : Timeout("no completion (or more than one)");
}

// FI_RMA reads (kCapGet) with keys that do not outlive the endpoint: a key
// packed before on_checkpoint() is refused after on_continue() (never handed
// to libfabric, where its number could name another region now), without
// running its completion; a key packed by the new endpoint reads the right
// bytes; deregistering a region the checkpoint closed is harmless.
TEST_P(OfiProviders, KeysFromBeforeACheckpointAreRefused) {
  expect_passed(run_job(job(2), [](Child& c) {
    CT_ASSERT(c, c.caps() & transport::kCapGet) << "provider " << ofi(c).provider() << ": no FI_RMA reads declared";
    constexpr size_t kLen = 256 * 1024;
    std::vector<char> mine(kLen);
    for (size_t i = 0; i < kLen; ++i) mine[i] = static_cast<char>((i * 7 + static_cast<size_t>(c.rank()) * 13) & 0xff);
    auto expect_bytes = [&](const std::vector<char>& got) {
      for (size_t i = 0; i < kLen; ++i)
        if (got[i] != static_cast<char>((i * 7 + static_cast<size_t>(c.peer()) * 13) & 0xff)) return i;
      return kLen;
    };
    transport::MemoryRegion before;
    Status rs = c.module().register_memory(mine.data(), kLen, &before);
    CT_ASSERT(c, rs.ok()) << rs.to_string();
    CT_ASSERT(c, c.modex().put("t.before", std::to_string(reinterpret_cast<uintptr_t>(mine.data())) + " " +
                                                hex(before.key)).ok());
    CT_ASSERT(c, c.sync());
    std::vector<char> theirs(kLen);
    ReadResult r1;
    Status s = read_peer(c, "t.before", &theirs, &r1);
    CT_ASSERT(c, s.ok()) << "get before the checkpoint: " << s.to_string();
    CT_ASSERT(c, expect_bytes(theirs) == kLen) << "get before the checkpoint read wrong bytes at " << expect_bytes(theirs);
    CT_ASSERT(c, c.sync());  // both reads done before either endpoint closes

    do {
      s = c.module().on_checkpoint();
      if (s.code() == Code::kWouldBlock) c.progress();
    } while (s.code() == Code::kWouldBlock && !c.expired());
    CT_ASSERT(c, s.ok()) << s.to_string();
    CT_ASSERT(c, c.module().on_continue().ok());
    CT_ASSERT(c, c.modex().fence().ok());
    CT_ASSERT(c, c.module().connect().ok());

    ReadResult stale;
    std::fill(theirs.begin(), theirs.end(), '\0');
    s = read_peer(c, "t.before", &theirs, &stale);
    CT_EXPECT(c, s.code() == Code::kUnavailable) << "a key from before the checkpoint: " << s.to_string();
    CT_EXPECT(c, stale.calls == 0) << "the refused get ran its completion";
    c.module().deregister_memory(before);  // closed with the old domain

    transport::MemoryRegion after;
    rs = c.module().register_memory(mine.data(), kLen, &after);
    CT_ASSERT(c, rs.ok()) << rs.to_string();
    CT_EXPECT(c, after.key != before.key) << "the new endpoint packed the same key";
    CT_ASSERT(c, c.modex().put("t.after", std::to_string(reinterpret_cast<uintptr_t>(mine.data())) + " " +
                                               hex(after.key)).ok());
    CT_ASSERT(c, c.sync());
    ReadResult r2;
    s = read_peer(c, "t.after", &theirs, &r2);
    CT_ASSERT(c, s.ok()) << "get with the new key: " << s.to_string();
    CT_EXPECT(c, expect_bytes(theirs) == kLen) << "get after the checkpoint read wrong bytes at " << expect_bytes(theirs);
    CT_ASSERT(c, c.sync());
    c.module().deregister_memory(after);
  }));
}

// Messages from an endpoint that is not a rank of the job (here a second
// endpoint in rank 0's process, which knows rank 1's published address but
// not the pair's tag) are dropped: short, wrong tag, a real rank's number
// with a guessed tag, too long for a receive buffer. The real stream that
// follows arrives whole and alone.
TEST_P(OfiProviders, FramesOfStrangersAreDropped) {
  expect_passed(run_job(job(2), [](Child& c) {
    constexpr uint64_t kFrames = 200;
    if (c.rank() == 0) {
      auto text = c.modex().get(1, transport::ofi::kModexKey);
      ASSERT_TRUE(text.ok()) << text.status().to_string();
      auto addr = OfiAddress::decode(*text);
      ASSERT_TRUE(addr.ok());
      auto info = transport::ofi::get_info(ofi(c).provider(), nullptr);
      ASSERT_TRUE(info.ok()) << info.status().to_string();
      OfiFabric stranger;
      ASSERT_TRUE(stranger.open(**info, 64).ok());
      fi_addr_t to = FI_ADDR_NOTAVAIL;
      ASSERT_EQ(fi_av_insert(stranger.av(), addr->name.data(), 1, &to, 0, nullptr), 1);
      std::vector<std::string> attacks;
      attacks.push_back("short");
      FrameHeader h{0x1234567890abcdefull, 0, 0, 1, 8};
      std::string f(reinterpret_cast<const char*>(&h), sizeof h);
      attacks.push_back(f + "12345678");  // rank 0's first sequence number, a guessed tag
      h.src = 1;
      attacks.push_back(std::string(reinterpret_cast<const char*>(&h), sizeof h) + "12345678");  // claims rank 1
      h.src = 7;
      attacks.push_back(std::string(reinterpret_cast<const char*>(&h), sizeof h) + "12345678");  // no such rank
      // Too long for a receive buffer: the receiver sees FI_ETRUNC and drops
      // it. Not over shm: there a message longer than the posted buffer
      // stalled the receiver's queue in our runs (libfabric 1.17), and shm
      // is no security boundary anyway (any process of the same user can
      // write into the region under /dev/shm).
      if (ofi(c).provider() != "shm") attacks.push_back(std::string(c.module().max_frame() + sizeof h + 4096, 'x'));
      size_t completed = 0;
      for (auto& a : attacks) {
        ssize_t rc;
        while ((rc = fi_send(stranger.ep(), a.data(), a.size(), nullptr, to, &a)) == -FI_EAGAIN) {
          fi_cq_msg_entry e;
          if (fi_cq_read(stranger.cq(), &e, 1) == 1) ++completed;
        }
        ASSERT_EQ(rc, 0) << transport::ofi::fi_error_text(static_cast<int>(rc));
      }
      while (completed < attacks.size() && !c.expired()) {
        fi_cq_msg_entry e;
        const ssize_t n = fi_cq_read(stranger.cq(), &e, 1);
        if (n == 1) {
          ++completed;
        } else if (n == -FI_EAVAIL) {
          fi_cq_err_entry err{};
          fi_cq_readerr(stranger.cq(), &err, 0);
          ++completed;
        }
        c.progress();
      }
      ASSERT_EQ(completed, attacks.size());
      for (uint64_t i = 0; i < kFrames; ++i) {
        const std::string fr = make_frame(i, 64 + i * 13);
        ASSERT_TRUE(c.send_blocking(1, fr.data(), fr.size()).ok());
      }
      ASSERT_TRUE(c.sync());
      return;
    }
    uint64_t got = 0;
    c.deliver_to([&](int src, const void* p, size_t n) {
      EXPECT_EQ(src, 0);
      uint64_t seq = ~0ull;
      if (n >= 8) std::memcpy(&seq, p, 8);
      EXPECT_EQ(seq, got) << "a frame that is not rank 0's #" << got << " was delivered (" << n << " bytes)";
      const std::string want = make_frame(got, 64 + got * 13);
      EXPECT_TRUE(n == want.size() && std::memcmp(p, want.data(), n) == 0) << "frame #" << got << " corrupted";
      ++got;
    });
    c.wait_until([&] { return got == kFrames; });
    EXPECT_EQ(got, kFrames);
    ASSERT_TRUE(c.sync());
    EXPECT_TRUE(c.peer_failures().empty());
  }));
}

// A peer that finalize()d and exited is not a failure; a send to it is
// refused with kAborted.
TEST_P(OfiProviders, CleanExitAfterFinalizeIsNotAFailure) {
  expect_passed(run_job(job(2), [](Child& c) {
    // The handler first: rank 1's frame may arrive while rank 0 still
    // progresses in the sync (a frame without a handler goes to the inbox).
    int32_t pid = 0;
    c.deliver_to([&](int, const void* p, size_t n) {
      if (n == sizeof pid) std::memcpy(&pid, p, n);
    });
    ASSERT_TRUE(c.sync());
    if (c.rank() == 1) {
      const int32_t own = ::getpid();
      ASSERT_TRUE(c.send_blocking(0, &own, sizeof own).ok());
      EXPECT_TRUE(c.module().finalize().ok());
      c.exit_abruptly(/*kill=*/false);
    }
    c.wait_until([&] { return pid != 0; });
    while (::kill(pid, 0) == 0 && !c.expired()) c.progress();  // until rank 1 is gone
    for (int i = 0; i < 200; ++i) {  // past the liveness grace
      c.module().arm_wait();
      c.progress();
      ::usleep(1000);
    }
    uint64_t x = 0;
    struct iovec iov{&x, sizeof x};
    EXPECT_EQ(c.module().send(1, &iov, 1).code(), Code::kAborted) << "the finalize went unnoticed";
    EXPECT_TRUE(c.peer_failures().empty()) << c.peer_failures()[0].why.to_string();
  }));
}

// A peer killed after sending: its frames are delivered first, then one
// Host::peer_failed naming it, even while this rank only waits to receive
// (libfabric alone would never say).
TEST_P(OfiProviders, KilledPeerReportedOnceAfterItsFrames) {
  expect_passed(run_job(job(2, {{"transport_ofi_liveness_ms", "5"}}), [](Child& c) {
    constexpr uint64_t kFrames = 300;
    if (c.rank() == 1) {
      for (uint64_t i = 0; i < kFrames; ++i) {
        const std::string f = make_frame(i, 2000);
        ASSERT_TRUE(c.send_blocking(0, f.data(), f.size()).ok());
      }
      while (c.module().unsent_bytes(0) != 0 && !c.expired()) c.progress();
      c.exit_abruptly(/*kill=*/true);
    }
    c.expect_peer_failure();
    uint64_t got = 0;
    c.deliver_to([&](int, const void* p, size_t n) {
      uint64_t seq = ~0ull;
      if (n >= 8) std::memcpy(&seq, p, 8);
      EXPECT_EQ(seq, got);
      EXPECT_TRUE(c.peer_failures().empty()) << "frame #" << got << " delivered after the failure report";
      ++got;
    });
    c.wait_until([&] { return !c.peer_failures().empty(); });
    EXPECT_EQ(got, kFrames) << "frames rank 1 sent before it was killed";
    ASSERT_EQ(c.peer_failures().size(), 1u);
    EXPECT_EQ(c.peer_failures()[0].rank, 1);
    EXPECT_NE(c.peer_failures()[0].why.message().find("rank 1"), std::string::npos)
        << c.peer_failures()[0].why.to_string();
    for (int i = 0; i < 500; ++i) c.progress();
    EXPECT_EQ(c.peer_failures().size(), 1u) << "reported more than once";
  }));
}

INSTANTIATE_TEST_SUITE_P(Provider, OfiProviders, ::testing::Values("shm", "tcp"),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           return i.param == "shm" ? std::string("shm") : std::string("tcp_rxm");
                         });

// auto: shm for a job on one host; tcp;ofi_rxm as soon as one rank is on
// another host (here emulated), and the ranks talk through it.
TEST(OfiTransport, AutoChoosesByPlacement) {
  JobSpec one;
  one.transport = "ofi";
  expect_passed(run_job(one, [](Child& c) { EXPECT_EQ(ofi(c).provider(), "shm"); }));
  JobSpec two = one;
  two.node_of_rank = {1, 2};
  expect_passed(run_job(two, [](Child& c) {
    EXPECT_EQ(ofi(c).provider(), "tcp;ofi_rxm");
    ASSERT_TRUE(c.module().reaches(c.peer()));
    const std::string f = make_frame(c.rank(), 300);
    ASSERT_TRUE(c.send_blocking(c.peer(), f.data(), f.size()).ok());
    c.wait_until([&] { return !c.inbox().empty(); });
    ASSERT_EQ(c.inbox().size(), 1u);
    EXPECT_EQ(c.inbox().front().data, make_frame(c.peer(), 300));
    c.inbox().clear();
  }));
}

// shm stops at the host: a rank on another (emulated) host is not reached.
TEST(OfiTransport, ShmReachesOnlyThisHost) {
  JobSpec spec;
  spec.transport = "ofi";
  spec.nprocs = 3;
  spec.node_of_rank = {1, 1, 2};
  spec.mca = {{"transport_ofi_provider", "shm"}};
  expect_passed(run_job(spec, [](Child& c) {
    EXPECT_TRUE(c.caps() & transport::kCapLocalHost);
    for (int r = 0; r < 3; ++r) {
      if (r == c.rank()) continue;
      EXPECT_EQ(c.module().reaches(r), c.same_host(r)) << "rank " << c.rank() << " -> " << r;
    }
  }));
}

// A provider libfabric does not have: the error names the value, the
// providers found and the fix.
TEST(OfiTransport, UnknownProviderIsNamedWithTheChoices) {
  Registry reg;
  ConfigOptions o;
  o.read_user_file = false;
  o.mca = {{"transport", "ofi"}, {"transport_ofi_provider", "verbs;ofi_rxm_nope"}};
  ASSERT_TRUE(reg.configure(o).ok());
  auto sel = reg.framework("transport")->select(reg.query_context());
  ASSERT_FALSE(sel.ok());
  const std::string m = sel.status().message();
  EXPECT_NE(m.find("transport_ofi_provider = 'verbs;ofi_rxm_nope'"), std::string::npos) << m;
  EXPECT_NE(m.find("providers found: "), std::string::npos) << m;
  EXPECT_NE(m.find("shm"), std::string::npos) << m;
  EXPECT_NE(m.find("or to auto"), std::string::npos) << m;
}

}  // namespace
}  // namespace lz::test::ofi
