// transport/ucx in real multi-process jobs (tests/support/transport_job.h),
// for what is ucx's own: what on_checkpoint() leaves of UCX in the process
// (threads, fds, shared mappings, SysV segments), libc's memory calls left
// unpatched by UCM, frames from a UCP worker outside the job refused, a dead
// peer reported once by the right mechanism (pidfd on one host, endpoint
// error over tcp), selection only when asked, and the TLS parameter's
// errors. This binary does not link UCX: the transport loads it in the
// ranks (ucx_loader.h), as in a real job, so the parent's libc is the
// pristine reference. ucx_direct_test.cpp has what needs UCX's API. Ordering, sizes, peer death in general and the CR scenarios are
// the transport conformance suite's, which runs over ucx too. No wall-clock
// assertions: timeouts only bound a hang.
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lazarus/registry.h"
#include "transport_job.h"
#include "ucx_exchange.h"

namespace lz::test::ucx {
namespace {

bool ucx_built() {
  Registry reg;
  return reg.framework("transport")->find("ucx") != nullptr;
}

#define SKIP_WITHOUT_UCX() \
  if (!ucx_built()) GTEST_SKIP() << "transport/ucx is not built (pkg-config finds no ucx)"

// What UCX may leave in a process, one line each: threads beyond the first,
// descriptors that are not plain files (sockets, event/timer fds, memfds,
// /dev/shm), shared mappings (/dev/shm, memfd, SysV) and SysV segments we
// are attached to. `allowed_fd` is the module's own epoll set.
struct Footprint {
  int threads = 0;
  std::vector<std::string> fds;
  std::vector<std::string> maps;
  std::vector<std::string> sysv;
  std::vector<std::string> all() const {
    std::vector<std::string> out;
    if (threads > 1) out.push_back(std::to_string(threads) + " threads");
    out.insert(out.end(), fds.begin(), fds.end());
    out.insert(out.end(), maps.begin(), maps.end());
    out.insert(out.end(), sysv.begin(), sysv.end());
    return out;
  }
};

Footprint footprint(const std::set<int>& allowed_fds) {
  Footprint f;
  if (DIR* d = ::opendir("/proc/self/task")) {
    while (struct dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') ++f.threads;
    ::closedir(d);
  }
  if (DIR* d = ::opendir("/proc/self/fd")) {
    const int self_fd = ::dirfd(d);
    while (struct dirent* e = ::readdir(d)) {
      if (e->d_name[0] == '.') continue;
      const int fd = std::atoi(e->d_name);
      if (fd == self_fd || allowed_fds.count(fd)) continue;
      char target[512];
      const ssize_t n = ::readlinkat(self_fd, e->d_name, target, sizeof target - 1);
      if (n <= 0) continue;
      const std::string t(target, static_cast<size_t>(n));
      if (t.find("/dev/shm") != std::string::npos || t.find("memfd:") != std::string::npos ||
          t.find("anon_inode:") == 0 || t.find("socket:") == 0)
        f.fds.push_back("fd " + std::string(e->d_name) + " -> " + t);
    }
    ::closedir(d);
  }
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("/dev/shm") != std::string::npos || line.find("memfd:") != std::string::npos ||
        line.find("SYSV") != std::string::npos)
      f.maps.push_back("mapping " + line);
  std::ifstream shm("/proc/sysvipc/shm");
  std::string line;
  std::getline(shm, line);
  while (std::getline(shm, line)) {
    std::istringstream ls(line);
    long key, id, perms, size, cpid, lpid, nattch;
    if (ls >> key >> id >> perms >> size >> cpid >> lpid >> nattch)
      if (cpid == ::getpid() || (lpid == ::getpid() && nattch > 0))
        f.sysv.push_back("SysV segment " + std::to_string(id) + " (creator " + std::to_string(cpid) + ", " +
                         std::to_string(nattch) + " attached)");
  }
  return f;
}

// Traffic (eager and rendezvous sizes), then three rounds of on_checkpoint
// (checked) + on_continue + connect + traffic. The harness's own
// descriptors (its channel socketpair) stay, so after a checkpoint a socket
// is allowed only if the same ones are there after every round; no thread
// but the main one, no shared mapping, no SysV segment, no event/timer fd
// or memfd but the module's own epoll set (wait_fd()).
TEST(UcxTransport, CheckpointLeavesNothingOfUcx) {
  SKIP_WITHOUT_UCX();
  JobSpec spec{.transport = "ucx", .nprocs = 2};
  const JobResult r = run_job(spec, [](Child& c) {
    const std::set<int> mine{c.module().wait_fd()};
    CT_ASSERT(c, exchange(c, 300, mixed_size)) << "traffic before the checkpoint";
    const Footprint before = footprint(mine);
    // Non-vacuous: with posix shared memory UCX maps a FIFO segment.
    CT_ASSERT(c, !before.maps.empty() || !before.sysv.empty())
        << "no shared mapping found while UCX is running: the footprint check sees nothing";
    c.note("rank " + std::to_string(c.rank()) + " before on_checkpoint: " + std::to_string(before.all().size()) +
           " UCX resources (" + std::to_string(before.threads) + " threads, " + std::to_string(before.fds.size()) +
           " fds, " + std::to_string(before.maps.size()) + " mappings)");
    CT_ASSERT(c, c.sync());
    std::vector<std::string> after_first;
    for (int cycle = 0; cycle < 3; ++cycle) {
      Status s = c.module().on_checkpoint();
      CT_ASSERT(c, s.ok()) << "on_checkpoint: " << s.to_string();
      Footprint after = footprint(mine);
      // What stays is the harness's (its channel socketpair, report pipe):
      // the same after every cycle, and never a mapping, thread or segment.
      CT_EXPECT(c, after.threads == 1) << after.threads << " threads after on_checkpoint (UCX's async thread?)";
      for (const auto& m : after.maps) c.fail("after on_checkpoint: " + m);
      for (const auto& m : after.sysv) c.fail("after on_checkpoint: " + m);
      for (const auto& f : after.fds)
        if (f.find("socket:") == std::string::npos) c.fail("after on_checkpoint: " + f);
      if (cycle == 0) after_first = after.fds;
      else CT_EXPECT(c, after.fds == after_first) << "descriptors after checkpoint " << cycle + 1
                                                  << " differ from those after the first (a leak)";
      CT_ASSERT(c, c.sync(false));
      s = c.module().on_continue();
      CT_ASSERT(c, s.ok()) << "on_continue: " << s.to_string();
      CT_ASSERT(c, c.modex().fence().ok());
      s = c.module().connect();
      CT_ASSERT(c, s.ok()) << "connect: " << s.to_string();
      CT_ASSERT(c, exchange(c, 200, mixed_size)) << "traffic after checkpoint " << cycle + 1;
      CT_ASSERT(c, c.sync());
    }
  });
  for (const auto& n : r.notes()) std::cout << "[   NOTE   ] " << n << "\n";
  for (const auto& p : r.problems()) ADD_FAILURE() << p;
}

// UCM would patch these libc entry points (bistro hooks) the first time a
// memory-event handler is set, and never restore them: a checkpoint image
// would carry the patched code. The component keeps UCM's events off.
constexpr const char* kHookedCalls[] = {"mmap", "munmap", "mremap", "shmat", "shmdt", "sbrk", "brk", "madvise"};
using CodeBytes = std::array<unsigned char, 16>;

std::vector<CodeBytes> libc_entry_bytes() {
  std::vector<CodeBytes> out;
  for (const char* name : kHookedCalls) {
    CodeBytes b{};
    if (void* f = ::dlsym(RTLD_DEFAULT, name)) std::memcpy(b.data(), f, b.size());
    out.push_back(b);
  }
  return out;
}

// Traffic, a checkpoint cycle, more traffic in the ranks; then libc's entry
// points compared with this (UCX-free) process's. `expect_patched`: the user
// chose UCM's bistro hooks, which must then be there (the check sees them).
void libc_entry_points_after_a_job(bool expect_patched) {
  const auto pristine = libc_entry_bytes();
  JobSpec spec{.transport = "ucx", .nprocs = 2};
  const JobResult r = run_job(spec, [&pristine, expect_patched](Child& c) {
    CT_ASSERT(c, exchange(c, 300, mixed_size));
    for (int i = 0; i < 10; ++i) {  // mmap/munmap of large blocks, as an application's
      std::vector<char> big(8 << 20, 'a');
      (void)big;
    }
    CT_ASSERT(c, c.sync());
    CT_ASSERT(c, c.module().on_checkpoint().ok());
    CT_ASSERT(c, c.sync(false));
    CT_ASSERT(c, c.module().on_continue().ok());
    CT_ASSERT(c, c.modex().fence().ok());
    CT_ASSERT(c, c.module().connect().ok());
    CT_ASSERT(c, exchange(c, 100, mixed_size));
    const auto now = libc_entry_bytes();
    size_t patched = 0;
    for (size_t i = 0; i < now.size(); ++i) {
      if (now[i] == pristine[i]) continue;
      ++patched;
      CT_EXPECT(c, expect_patched) << "libc's " << kHookedCalls[i] << "() was patched (UCM memory hooks are on)";
    }
    if (expect_patched) {
      CT_EXPECT(c, patched == now.size()) << "UCX_MEM_MMAP_HOOK_MODE=bistro patched only " << patched << " of "
                                          << now.size() << " calls: the check does not see UCM's hooks";
    }
  });
  for (const auto& p : r.problems()) ADD_FAILURE() << p;
}

TEST(UcxTransport, LibcMemoryCallsStayUnpatched) {
  SKIP_WITHOUT_UCX();
  ASSERT_EQ(::getenv("UCX_MEM_MMAP_HOOK_MODE"), nullptr) << "run without UCX_MEM_MMAP_HOOK_MODE in the environment";
  libc_entry_points_after_a_job(false);
}

// The user's choice wins: with bistro hooks asked for, they are there, which
// also shows the test above can see them.
TEST(UcxTransport, UserChosenMemoryHooksAreKept) {
  SKIP_WITHOUT_UCX();
  ::setenv("UCX_MEM_MMAP_HOOK_MODE", "bistro", 1);
  libc_entry_points_after_a_job(true);
  ::unsetenv("UCX_MEM_MMAP_HOOK_MODE");
}

// The component turns UCX's rendezvous off under its frames; a user may turn
// it on (UCX_RNDV_THRESH), and then a large frame is fetched after later
// small ones have arrived: delivery must still follow the sender's order.
TEST(UcxTransport, RendezvousFramesKeepTheirOrder) {
  SKIP_WITHOUT_UCX();
  ::setenv("UCX_RNDV_THRESH", "4k", 1);  // read by ucp_config_read in the children
  JobSpec spec{.transport = "ucx", .nprocs = 2};
  const JobResult r = run_job(spec, [](Child& c) {
    // Every third frame is 256 KiB (rendezvous), the others small (eager).
    CT_ASSERT(c, exchange(c, 600, [](size_t i) -> size_t { return i % 3 == 0 ? 256 * 1024 : i % 100; }));
  });
  ::unsetenv("UCX_RNDV_THRESH");
  for (const auto& p : r.problems()) ADD_FAILURE() << p;
}

// UCX's tcp interface listens on a port of its own, which the component does
// not publish (the modex holds a packed worker address; the conformance
// suite's attack case skips for that reason). Strangers who find it anyway
// (here: the rank's own LISTEN sockets, from /proc) and send garbage, random
// bytes, nothing, zeros or a flood must not disturb the job: the ranks then
// exchange frames in order and nobody is reported failed.
std::vector<std::pair<std::string, int>> own_listening_tcp() {
  std::set<std::string> inodes;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    while (struct dirent* e = ::readdir(d)) {
      char target[256];
      const std::string path = std::string("/proc/self/fd/") + e->d_name;
      const ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
      if (n > 9 && std::string(target, 8) == "socket:[") inodes.insert(std::string(target + 8, static_cast<size_t>(n) - 9));
    }
    ::closedir(d);
  }
  std::vector<std::pair<std::string, int>> out;
  std::ifstream in("/proc/self/net/tcp");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string sl, local, remote, st, queues, tr, retr, uid, timeout, inode;
    ls >> sl >> local >> remote >> st >> queues >> tr >> retr >> uid >> timeout >> inode;
    if (st != "0A" || !inodes.count(inode)) continue;  // 0A: LISTEN
    const unsigned long ip = std::stoul(local.substr(0, 8), nullptr, 16);
    const int port = static_cast<int>(std::stoul(local.substr(9), nullptr, 16));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lu.%lu.%lu.%lu", ip & 255, (ip >> 8) & 255, (ip >> 16) & 255, ip >> 24);
    out.emplace_back(buf, port);
  }
  return out;
}

TEST(UcxTransport, StrangersOnUcxTcpPortsDoNotDisturbTheJob) {
  SKIP_WITHOUT_UCX();
  JobSpec spec{.transport = "ucx", .nprocs = 2, .mca = {{"transport_ucx_tls", "tcp,self"}}};
  const JobResult r = run_job(spec, [](Child& c) {
    CT_ASSERT(c, exchange(c, 200, mixed_size)) << "traffic before the strangers";
    if (c.rank() == 1) {
      const auto ports = own_listening_tcp();
      std::string list;
      for (const auto& [ip, port] : ports) list += ip + ":" + std::to_string(port) + " ";
      CT_ASSERT(c, !ports.empty()) << "UCX over tcp listens on no port of this rank (nothing to attack)";
      CT_ASSERT(c, c.post(0, list));
      CT_ASSERT(c, c.wait_post().has_value());
      c.note("rank 1's UCX tcp listeners attacked: " + list);
    } else {
      auto list = c.wait_post();
      CT_ASSERT(c, list.has_value());
      std::istringstream in(*list);
      std::string item;
      std::vector<char> flood(256 * 1024, '\xff'), random(4096);
      for (size_t i = 0; i < random.size(); ++i) random[i] = static_cast<char>(i * 2654435761u >> 13);
      const std::string garbage(700, 'g');
      while (in >> item) {
        const size_t colon = item.rfind(':');
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<uint16_t>(std::stoi(item.substr(colon + 1))));
        ::inet_pton(AF_INET, item.substr(0, colon).c_str(), &a.sin_addr);
        for (int kind = 0; kind < 5; ++kind) {
          const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
          CT_ASSERT(c, fd >= 0);
          if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
            ssize_t n = 0;
            if (kind == 0) n = ::send(fd, garbage.data(), garbage.size(), MSG_NOSIGNAL);
            if (kind == 1) n = ::send(fd, random.data(), random.size(), MSG_NOSIGNAL);
            if (kind == 3) n = ::send(fd, std::string(64, '\0').data(), 64, MSG_NOSIGNAL);
            if (kind == 4) n = ::send(fd, flood.data(), flood.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
            (void)n;
            for (int i = 0; i < 50; ++i) c.progress();  // let the rank's UCX see it meanwhile
          } else {
            c.fail("connect to rank 1's UCX listener " + item + ": " + std::strerror(errno));
          }
          ::close(fd);
        }
      }
      CT_ASSERT(c, c.post(1, "done"));
    }
    CT_ASSERT(c, exchange(c, 2000, mixed_size)) << "traffic after the strangers";
    CT_EXPECT(c, c.peer_failures().empty()) << "a real rank was reported failed: " << c.peer_failures().front().why.to_string();
  });
  for (const auto& n : r.notes()) std::cout << "[   NOTE   ] " << n << "\n";
  for (const auto& p : r.problems()) ADD_FAILURE() << p;
}

// A peer killed by SIGKILL is reported exactly once, naming it, by the
// mechanism of the transport in use: the pidfd over shared memory (UCX's own
// keepalive would take 20 s), the endpoint error over tcp.
void killed_peer_reported(const std::string& tls, const std::string& expect) {
  JobSpec spec{.transport = "ucx", .nprocs = 2, .mca = {{"transport_ucx_tls", tls}}};
  const JobResult r = run_job(spec, [expect](Child& c) {
    CT_ASSERT(c, exchange(c, 100, mixed_size));
    CT_ASSERT(c, c.sync());
    if (c.rank() == 1) c.exit_abruptly(true);
    c.expect_peer_failure();
    c.wait_until([&] { return !c.peer_failures().empty() || c.expired(); });
    for (int i = 0; i < 200; ++i) c.progress();  // a second report would come now
    CT_ASSERT(c, c.peer_failures().size() == 1) << c.peer_failures().size() << " reports of rank 1's death";
    const auto& pf = c.peer_failures().front();
    CT_EXPECT(c, pf.rank == 1);
    CT_EXPECT(c, pf.why.message().find("rank 1") != std::string::npos) << pf.why.to_string();
    CT_EXPECT(c, pf.why.message().find(expect) != std::string::npos)
        << "expected a report by '" << expect << "': " << pf.why.to_string();
  });
  for (const auto& p : r.problems()) ADD_FAILURE() << p;
}

TEST(UcxTransport, KilledPeerOnSharedMemoryReportedByPidfd) {
  SKIP_WITHOUT_UCX();
  killed_peer_reported("posix,cma,self", "exited without finalizing");
}

TEST(UcxTransport, KilledPeerOverTcpReportedByEndpointError) {
  SKIP_WITHOUT_UCX();
  // The pidfd would see it too (same host): whichever comes first reports,
  // once; over tcp UCX's endpoint error is immediate.
  JobSpec probe{};
  (void)probe;
  killed_peer_reported("tcp,self", "rank 1");
}

// Over UCX's tcp, which has no get, get_async() is a pull the owner serves
// (ucx_rma.cpp): what the reader gets are the owner's bytes, and the owner
// serves only ranges inside a region it registered. A range that leaves it
// (past the end, before the start, longer than the rest, in a region the
// owner let go) completes with an error, exactly once, and the job goes on.
struct PullResult {
  int calls = 0;
  Status status;
};

void record_pull(void* arg, const Status& s) {
  auto* r = static_cast<PullResult*>(arg);
  ++r->calls;
  r->status = s;
}

TEST(UcxTransport, PullsStayInsideRegisteredRegions) {
  SKIP_WITHOUT_UCX();
  JobSpec spec{.transport = "ucx", .nprocs = 2};
  spec.mca = {{"transport_ucx_tls", "tcp,self"}};
  const JobResult r = run_job(spec, [](Child& c) {
    constexpr size_t kLen = 300 * 1024;
    std::vector<unsigned char> mine(kLen);
    for (size_t i = 0; i < kLen; ++i) mine[i] = static_cast<unsigned char>(i * 7 + c.rank() * 13);
    transport::MemoryRegion region, gone;
    CT_ASSERT(c, c.module().register_memory(mine.data(), kLen, &region).ok());
    CT_ASSERT(c, c.module().register_memory(mine.data(), 4096, &gone).ok());
    c.module().deregister_memory(gone);
    auto hex = [](const std::string& b) {
      std::string out;
      for (unsigned char ch : b) out += "0123456789abcdef"[ch >> 4], out += "0123456789abcdef"[ch & 15];
      return out;
    };
    CT_ASSERT(c, c.modex().put("test.pull.addr", std::to_string(reinterpret_cast<uintptr_t>(mine.data()))).ok());
    CT_ASSERT(c, c.modex().put("test.pull.key", hex(region.key)).ok());
    CT_ASSERT(c, c.modex().put("test.pull.gone", hex(gone.key)).ok());
    CT_ASSERT(c, c.sync());
    auto unhex = [](const std::string& h) {
      std::string out;
      for (size_t i = 0; i + 1 < h.size(); i += 2) out += static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16));
      return out;
    };
    const uint64_t base = std::stoull(*c.modex().get(c.peer(), "test.pull.addr"));
    const std::string key = unhex(*c.modex().get(c.peer(), "test.pull.key"));
    const std::string gone_key = unhex(*c.modex().get(c.peer(), "test.pull.gone"));
    std::vector<unsigned char> local(kLen + 4096);
    auto pull = [&](uint64_t at, size_t len, const std::string& k) {
      PullResult res;
      Status s = c.module().get_async(c.peer(), local.data(), len, at, k, transport::Completion{&record_pull, &res});
      if (!s.ok()) return s;
      c.wait_until([&] { return res.calls > 0 || c.expired(); });
      for (int i = 0; i < 20; ++i) c.progress();
      if (res.calls != 1) return Internal("completion ran " + std::to_string(res.calls) + " times");
      return res.status;
    };
    Status whole = pull(base, kLen, key);
    CT_ASSERT(c, whole.ok()) << "pulling the whole region: " << whole.to_string();
    for (size_t i = 0; i < kLen; ++i)
      if (local[i] != static_cast<unsigned char>(i * 7 + c.peer() * 13)) {
        CT_ASSERT(c, false) << "byte " << i << " differs from the peer's";
      }
    CT_EXPECT(c, !pull(base + kLen - 100, 200, key).ok()) << "a pull past the region's end was served";
    CT_EXPECT(c, !pull(base - 4096, 8192, key).ok()) << "a pull before the region's start was served";
    CT_EXPECT(c, !pull(base + 4096, kLen, key).ok()) << "a pull longer than what is left of the region was served";
    CT_EXPECT(c, !pull(base, 4096, gone_key).ok()) << "a pull of a deregistered region was served";
    // Nobody was failed by it, and frames still flow.
    CT_ASSERT(c, exchange(c, 100, mixed_size));
    CT_EXPECT(c, c.peer_failures().empty());
    CT_ASSERT(c, c.sync());  // the peer keeps its buffer until both are done
    c.module().deregister_memory(region);
  });
  for (const auto& p : r.problems()) ADD_FAILURE() << p;
}

// Selection: declined (with the reason) unless named or auto_select is on.
TEST(UcxTransport, SelectedOnlyWhenAsked) {
  SKIP_WITHOUT_UCX();
  auto query = [](std::vector<std::pair<std::string, std::string>> mca) {
    Registry reg;
    ConfigOptions o;
    o.read_user_file = false;
    o.mca = std::move(mca);
    EXPECT_TRUE(reg.configure(o).ok());
    for (auto& q : reg.framework("transport")->query_all(reg.query_context()))
      if (std::string(q.entry->desc->name) == "ucx") return std::make_pair(static_cast<bool>(q.module), q.declined);
    return std::make_pair(false, Internal("no ucx"));
  };
  auto d = query({});
  EXPECT_FALSE(d.first);
  EXPECT_NE(d.second.message().find("--mca transport ucx,self"), std::string::npos) << d.second.to_string();
  // Declining loaded nothing of UCX into this process.
  EXPECT_EQ(::dlopen("libucs.so.0", RTLD_NOW | RTLD_NOLOAD), nullptr) << "query() loaded UCX";
  EXPECT_TRUE(query({{"transport", "ucx,self"}}).first);
  EXPECT_TRUE(query({{"transport_ucx_auto_select", "1"}}).first);
  EXPECT_FALSE(query({{"transport", "^tcp"}}).first);
}

TEST(UcxTransport, TlsErrorsNameTheValueAndTheFix) {
  SKIP_WITHOUT_UCX();
  // Syntax: refused by query(), before UCX is loaded.
  Registry reg;
  ConfigOptions o;
  o.read_user_file = false;
  o.mca = {{"transport", "ucx,self"}, {"transport_ucx_tls", "posix;cma"}};
  ASSERT_TRUE(reg.configure(o).ok());
  auto sel = reg.framework("transport")->select(reg.query_context());
  ASSERT_FALSE(sel.ok());
  EXPECT_NE(sel.status().message().find("transport_ucx_tls = 'posix;cma'"), std::string::npos) << sel.status().to_string();
  EXPECT_NE(sel.status().message().find("posix,cma,tcp,self"), std::string::npos) << sel.status().to_string();
  // A name UCX does not have here: init() refuses, naming it and what exists.
  JobSpec spec{.transport = "ucx", .nprocs = 2, .mca = {{"transport_ucx_tls", "posixx,tcp"}}};
  const JobResult r = run_job(spec, [](Child& c) { c.fail("init() accepted transport_ucx_tls=posixx,tcp"); });
  std::string all;
  for (const auto& p : r.problems()) all += p + "\n";
  EXPECT_NE(all.find("transport_ucx_tls = 'posixx,tcp'"), std::string::npos) << all;
  EXPECT_NE(all.find("no transport posixx"), std::string::npos) << all;
  EXPECT_NE(all.find("posix"), std::string::npos) << all;
}

}  // namespace
}  // namespace lz::test::ucx
