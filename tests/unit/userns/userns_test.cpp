// runtime/userns: each case runs in a forked child, which enters namespaces
// of its own and reports through its exit status and a pipe; the test
// process itself never changes namespace.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "lazarus/userns/capabilities.h"
#include "lazarus/userns/job_namespace.h"
#include "lazarus/userns/pid_namespace.h"

namespace {

using namespace lz::userns;

std::string status_line(const std::string& key, pid_t pid = 0) {
  std::ifstream in(pid > 0 ? "/proc/" + std::to_string(pid) + "/status" : "/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) {
      line = line.substr(key.size());
      return line.substr(line.find_first_not_of(" \t"));
    }
  return {};
}

// Runs `body` in a child; its text (written to a pipe) and exit status.
struct ChildResult {
  int status = -1;
  std::string text;
};
ChildResult in_child(const std::function<std::string()>& body) {
  int p[2];
  if (pipe(p) != 0) return {};
  pid_t c = fork();
  if (c == 0) {
    close(p[0]);
    std::string t = body();
    (void)!write(p[1], t.data(), t.size());
    _exit(0);
  }
  close(p[1]);
  ChildResult r;
  char buf[512];
  for (ssize_t n; (n = read(p[0], buf, sizeof buf)) > 0;) r.text.append(buf, static_cast<size_t>(n));
  close(p[0]);
  waitpid(c, &r.status, 0);
  return r;
}

TEST(UserNamespace, ProbeAnswersWithoutChangingThisProcess) {
  const std::string before = status_line("CapEff:");
  lz::Status s = probe();
  if (!s.ok()) GTEST_SKIP() << "no user namespace can be made here: " << s.message();
  EXPECT_EQ(status_line("CapEff:"), before);
  EXPECT_FALSE(inside());
}

TEST(UserNamespace, EnterMapsOnlyTheOwnIdsAndKeepsTheNarrowSets) {
  if (!probe().ok()) GTEST_SKIP() << probe().message();
  const uid_t uid = geteuid();
  ChildResult r = in_child([] {
    lz::Status s = enter(0);
    if (!s.ok()) return "error " + s.message();
    std::ifstream map("/proc/self/uid_map");
    long inner = -1, outer = -1, count = -1;
    map >> inner >> outer >> count;
    std::ostringstream o;
    o << "uid " << geteuid() << " map " << inner << " " << outer << " " << count << " inside " << inside()
      << " eff " << status_line("CapEff:") << " amb " << status_line("CapAmb:") << " inh " << status_line("CapInh:");
    return o.str();
  });
  ASSERT_TRUE(WIFEXITED(r.status)) << r.text;
  const std::string id = std::to_string(uid);
  // CAP_SYS_ADMIN (21) and CAP_CHECKPOINT_RESTORE (40) effective; only the latter passed on.
  EXPECT_EQ(r.text, "uid " + id + " map " + id + " " + id + " 1 inside 1 eff 0000010000200000 amb 0000010000000000 inh "
                    "0000010000000000");
}

TEST(UserNamespace, AProgramExecutedInsideHoldsOnlyCheckpointRestore) {
  if (geteuid() == 0)
    GTEST_SKIP() << "a program root executes runs as uid 0, with every capability of a namespace root owns (root "
                    "never needs enter()); the ordinary user's case runs as user.unit.userns";
  if (!probe().ok()) GTEST_SKIP() << probe().message();
  ChildResult r = in_child([] {
    lz::Status s = enter(0);
    if (!s.ok()) return "error " + s.message();
    int p[2];
    if (pipe(p) != 0) return std::string("pipe");
    pid_t c = fork();
    if (c == 0) {
      dup2(p[1], 1);
      execl("/bin/sh", "sh", "-c", "grep -E '^Cap(Eff|Amb)' /proc/self/status | tr -s '\\t\\n' '  '",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    close(p[1]);
    std::string out;
    char buf[256];
    for (ssize_t n; (n = read(p[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
    waitpid(c, nullptr, 0);
    return out;
  });
  EXPECT_EQ(r.text, "CapEff: 0000010000000000 CapAmb: 0000010000000000 ");
}

TEST(PidNamespace, TheRegistryPidIsThePidSeenOutside) {
  if (geteuid() != 0 && !probe().ok()) GTEST_SKIP() << probe().message();
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  pid_t outer_launcher = fork();
  if (outer_launcher == 0) {
    close(p[0]);
    std::string err;
    int rc = run_in_pid_namespace(
        [&] {
          pid_t rank = fork();
          if (rank == 0) {
            pause();
            _exit(0);
          }
          const std::string line = std::to_string(rank) + " " + std::to_string(outer_pid_of(rank)) + "\n";
          (void)!write(p[1], line.data(), line.size());
          sleep(2);  // the test reads the rank's status meanwhile
          kill(rank, SIGKILL);
          waitpid(rank, nullptr, 0);
          return 0;
        },
        &err);
    _exit(rc == 0 ? 0 : 1);
  }
  close(p[1]);
  char buf[64] = {};
  ASSERT_GT(read(p[0], buf, sizeof buf - 1), 0);
  close(p[0]);
  long inner = 0, outer = 0;
  std::istringstream(buf) >> inner >> outer;
  EXPECT_NE(inner, outer) << "the rank's pid in its namespace was taken for the outside one";
  // Outside, that pid is the rank, whose innermost pid is `inner`.
  const std::string nspid = status_line("NSpid:", static_cast<pid_t>(outer));
  EXPECT_EQ(nspid.substr(nspid.find_last_of(" \t") + 1), std::to_string(inner)) << "NSpid: " << nspid;
  int st = 0;
  waitpid(outer_launcher, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

// A rank killed before its peers mapped its segment leaves the name; once
// the namespace has ended, run_in_pid_namespace() removes the names of its
// processes, and only theirs.
TEST(PidNamespace, ShmNamesOfItsProcessesAreRemovedWhenItEnds) {
  if (geteuid() != 0 && !probe().ok()) GTEST_SKIP() << probe().message();
  const std::string other = "/dev/shm/lz-shm.unittest.1.7.0.1.seg";  // namespace inode 1: none of ours
  ChildResult r = in_child([&] {
    std::string inside, err;
    const int rc = run_in_pid_namespace(
        [&] {
          struct stat st {};
          if (stat("/proc/self/ns/pid", &st) != 0) return 2;
          const std::string ns = std::to_string(st.st_ino);
          for (const std::string& f : {"/dev/shm/lz-shm.unittest." + ns + ".1.0.1.seg",
                                       "/dev/shm/lz-shm.unittest." + ns + ".1.0.1.bell", other})
            if (FILE* fp = std::fopen(f.c_str(), "w")) std::fclose(fp);
          return 0;  // "killed": nothing unlinks them
        },
        &err);
    if (rc != 0) return "run_in_pid_namespace: " + std::to_string(rc) + " " + err;
    std::string left;
    if (DIR* d = opendir("/dev/shm")) {
      while (struct dirent* e = readdir(d))
        if (std::string(e->d_name).rfind("lz-shm.unittest.", 0) == 0) left += std::string(e->d_name) + " ";
      closedir(d);
    }
    return left;
  });
  ASSERT_TRUE(WIFEXITED(r.status));
  EXPECT_EQ(r.text, "lz-shm.unittest.1.7.0.1.seg ") << "only the other namespace's name stays";
  unlink(other.c_str());
}

}  // namespace
