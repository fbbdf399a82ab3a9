// transport/ofi in one process: the modex address codec (every field is
// checked: a modex value comes from another process) and the sweep of stale
// regions of libfabric's shm provider (only files of dead pids, or of this
// process, that nobody maps).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <rdma/fabric.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "ofi_address.h"
#include "ofi_shm_sweep.h"

namespace lz::transport::ofi {
namespace {

TEST(OfiAddress, RoundTrip) {
  OfiAddress a;
  a.provider = "tcp;ofi_rxm";
  a.pid = 4242;
  a.node_id = 0xfeedbeefull;
  a.name = std::string("\x02\x00\x8a\xf1\x7f\x00\x00\x01\x00\xff", 10);
  a.epoch = 0xfedcba9876543210ull;
  auto b = OfiAddress::decode(a.encode());
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(b->provider, a.provider);
  EXPECT_EQ(b->pid, a.pid);
  EXPECT_EQ(b->node_id, a.node_id);
  EXPECT_EQ(b->name, a.name);
  EXPECT_EQ(b->epoch, a.epoch);
}

TEST(OfiAddress, RejectsMalformed) {
  const std::string good = "lzofi1\nprov=shm\npid=12\nnode=3\nname=6869\n";
  ASSERT_TRUE(OfiAddress::decode(good).ok());
  for (const char* bad : {"", "lzofi2\nprov=shm\npid=12\nnode=3\nname=6869\n",
                          "lzofi1\nprov=shm\npid=12\nnode=3\n",                    // no name
                          "lzofi1\nprov=shm\npid=0\nnode=3\nname=6869\n",          // pid 0
                          "lzofi1\nprov=shm\npid=12\nnode=3\nname=686\n",          // odd hex
                          "lzofi1\nprov=shm\npid=12\nnode=3\nname=68zz\n",         // not hex
                          "lzofi1\nprov=shm\npid=12\nnode=x\nname=6869\n",         // node not a number
                          "lzofi1\nprov=shm\npid=12\nnode=3\nname=6869\nextra=1\n",  // unknown key
                          "lzofi1\nprov=shm\npid=12\nnode=3\nname=6869\nepoch=-1\n",  // epoch not a number
                          "lzofi1\nprov=shm\npid=99999999999\nnode=3\nname=6869\n"}) {
    auto r = OfiAddress::decode(bad);
    ASSERT_FALSE(r.ok()) << "accepted: " << bad;
    EXPECT_EQ(r.status().code(), Code::kProtocol) << bad;
  }
}

TEST(OfiAddress, SockaddrText) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(4711);
  sa.sin_addr.s_addr = htonl(0x7f000001);
  const std::string name(reinterpret_cast<const char*>(&sa), sizeof sa);
  EXPECT_EQ(sockaddr_text(FI_SOCKADDR_IN, name), "127.0.0.1:4711");
  EXPECT_EQ(sockaddr_text(FI_ADDR_STR, "fi_shm://12:0:0"), "");
  EXPECT_EQ(sockaddr_text(FI_SOCKADDR_IN, "short"), "");
}

// A pid that existed and is now gone (reaped child).
pid_t dead_pid() {
  const pid_t p = ::fork();
  if (p == 0) ::_exit(0);
  int st;
  ::waitpid(p, &st, 0);
  return p;
}

std::string region_of(pid_t pid, int n) { return "/dev/shm/" + std::to_string(pid) + ":" + std::to_string(n) + ":0"; }

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

void create(const std::string& path) {
  const int fd = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(::ftruncate(fd, 4096), 0);
  ::close(fd);
}

TEST(OfiShmSweep, RemovesOnlyStaleRegionsOfTheGivenPids) {
  const pid_t dead = dead_pid(), other_dead = dead_pid();
  const pid_t live = ::getppid();  // alive, and not us
  const std::string stale1 = region_of(dead, 0), stale2 = region_of(dead, 3);
  const std::string not_listed = region_of(other_dead, 0);
  const std::string of_live = region_of(live, 0);
  const std::string not_a_region = "/dev/shm/" + std::to_string(dead) + ":0:x";
  for (const auto& f : {stale1, stale2, not_listed, of_live, not_a_region}) create(f);
  EXPECT_EQ(sweep_stale_shm_files({dead, live}), 2);
  EXPECT_FALSE(exists(stale1));
  EXPECT_FALSE(exists(stale2));
  EXPECT_TRUE(exists(not_listed)) << "a pid not of this job";
  EXPECT_TRUE(exists(of_live)) << "its owner may be alive";
  EXPECT_TRUE(exists(not_a_region)) << "not the provider's pattern";
  for (const auto& f : {not_listed, of_live, not_a_region}) ::unlink(f.c_str());
}

TEST(OfiShmSweep, KeepsARegionSomeoneMaps) {
  const pid_t self = ::getpid();
  const std::string mine = region_of(self, 7);
  create(mine);
  const int fd = ::open(mine.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  void* m = ::mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  ASSERT_NE(m, MAP_FAILED);
  EXPECT_EQ(sweep_stale_shm_files({self}), 0) << "a mapped region belongs to a live process";
  EXPECT_TRUE(exists(mine));
  ::munmap(m, 4096);
  EXPECT_EQ(sweep_stale_shm_files({self}), 1) << "our own pid's unmapped region is stale";
  EXPECT_FALSE(exists(mine));
}

}  // namespace
}  // namespace lz::transport::ofi
