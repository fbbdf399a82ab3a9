// cr/criu refuses, by name, what CRIU cannot save of a process before it
// tries (criu_dumpable.h): System V shared memory, and IPv4/IPv6 sockets on
// the kernels where CRIU 4.1.1 fails on them.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "criu_dumpable.h"

namespace lz::cr::criu {
namespace {

bool kernel_at_least_6_16() {
  utsname u{};
  int major = 0, minor = 0;
  return uname(&u) == 0 && std::sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
         (major > 6 || (major == 6 && minor >= 16));
}

TEST(CriuDumpable, APlainProcessPasses) { EXPECT_TRUE(check_dumpable(getpid()).ok()); }

TEST(CriuDumpable, SystemVSharedMemoryOfAChildIsNamed) {
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  pid_t child = fork();
  if (child == 0) {
    int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
    void* p = id >= 0 ? shmat(id, nullptr, 0) : nullptr;
    if (id >= 0) shmctl(id, IPC_RMID, nullptr);  // gone with the child
    (void)!write(go[1], p != nullptr && p != reinterpret_cast<void*>(-1) ? "y" : "n", 1);
    pause();
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(go[0], &c, 1), 1);
  Status s = check_dumpable(getpid());
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_EQ(c, 'y') << "shmget/shmat failed in the child";
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kUnavailable);
  EXPECT_NE(s.message().find("its child pid " + std::to_string(child)), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("System V shared memory"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("shm_open"), std::string::npos) << s.message();
}

TEST(CriuDumpable, AnInetSocketIsNamedWhereCriuCannotSaveIt) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  int unbound = socket(AF_INET6, SOCK_STREAM, 0);  // in no /proc/net table
  ASSERT_GE(unbound, 0);
  Status s = check_dumpable(getpid());
  close(fd);
  close(unbound);
  if (!kernel_at_least_6_16()) {
    EXPECT_TRUE(s.ok()) << "CRIU 4.1.1 saves inet sockets before Linux 6.16: " << s.message();
    return;
  }
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("fd " + std::to_string(fd) + " (UDP)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("fd " + std::to_string(unbound) + " (TCP6)"), std::string::npos) << s.message();
  EXPECT_TRUE(check_dumpable(getpid()).ok()) << "closed: nothing left";
}

}  // namespace
}  // namespace lz::cr::criu
