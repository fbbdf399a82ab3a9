// Which job files `lazarus ps` / `lazarus checkpoint <id|pid>` believe
// (runtime/launcher/job_registry.h): a file counts while its control socket
// still listens (its pid alone decides only for a file without one). A file
// left by a launcher SIGKILLed in another PID namespace names a pid that may
// be alive here; a live launcher of another namespace names a pid that may
// not exist here.
#include "launcher/job_registry.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "launcher/job_file.h"

namespace lz::launcher {
namespace {

class JobRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/lz-jobreg.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    const char* old = std::getenv("XDG_RUNTIME_DIR");
    if (old != nullptr) old_xdg_ = old;
    had_xdg_ = old != nullptr;
    setenv("XDG_RUNTIME_DIR", root_.c_str(), 1);
    ASSERT_TRUE(JobFile::ensure_directory().ok());
  }
  void TearDown() override {
    for (int fd : listeners_) close(fd);
    if (had_xdg_) setenv("XDG_RUNTIME_DIR", old_xdg_.c_str(), 1);
    else unsetenv("XDG_RUNTIME_DIR");
    std::string cmd = "rm -rf '" + root_ + "'";
    (void)std::system(cmd.c_str());
  }
  std::string dir() const { return JobFile::directory(); }
  // A job file for `id` with this launcher pid and socket path ("" = none).
  // `manager`: its Slurm name ("123.0"), or "" for none.
  std::string write_job(const std::string& id, pid_t pid, const std::string& sock, const std::string& manager = "") {
    const std::string path = dir() + "/" + id + ".json";
    std::ofstream out(path);
    out << "{\"job_id\": \"" << id << "\", \"launcher_pid\": " << pid << ", \"np\": 2, \"start_time\": 1";
    if (!sock.empty()) out << ", \"control_socket\": \"" << sock << "\"";
    if (!manager.empty()) out << ", \"manager_job\": \"" << manager << "\"";
    out << "}";
    return path;
  }
  // A unix socket at `path`; listening unless `listen_too` is false (bound only).
  void make_socket(const std::string& path, bool listen_too) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0) << std::strerror(errno);
    if (listen_too) {
      ASSERT_EQ(listen(fd, 4), 0);
    }
    listeners_.push_back(fd);
  }
  std::string root_, old_xdg_;
  bool had_xdg_ = false;
  std::vector<int> listeners_;
};

TEST_F(JobRegistryTest, ALiveLauncherWithAListeningSocketIsListedAndFoundByIdAndPid) {
  const std::string sock = dir() + "/live.sock";
  make_socket(sock, true);
  write_job("live", getpid(), sock);
  auto jobs = list_jobs(true);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].job_id, "live");
  ASSERT_TRUE(find_job("live").ok());
  auto by_pid = find_job(std::to_string(getpid()));
  ASSERT_TRUE(by_pid.ok()) << by_pid.status().message();
  EXPECT_EQ(by_pid->job_id, "live");
}

TEST_F(JobRegistryTest, ALivePidWhoseSocketNoLongerListensIsAStaleFileAndPruned) {
  // The pid is alive (ours), as a reused pid in another namespace would be;
  // the socket file is there but nothing accepts on it.
  const std::string sock = dir() + "/stale.sock";
  make_socket(sock, false);
  const std::string file = write_job("stale", getpid(), sock);
  EXPECT_TRUE(list_jobs(true).empty());
  EXPECT_NE(access(file.c_str(), F_OK), 0) << "the stale job file was not pruned";
  EXPECT_NE(access(sock.c_str(), F_OK), 0) << "the stale socket was not pruned";
  auto r = find_job(std::to_string(getpid()));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no running job"), std::string::npos) << r.status().message();
}

TEST_F(JobRegistryTest, ALivePidWhoseSocketIsGoneIsStale) {
  write_job("nosock", getpid(), dir() + "/missing.sock");
  EXPECT_TRUE(list_jobs(false).empty());
  EXPECT_EQ(access((dir() + "/nosock.json").c_str(), F_OK), 0) << "prune=false removed a file";
}

// A pid that does not exist here (dead: as a launcher's pid seen from
// another PID namespace) whose socket still listens: alive, and not pruned.
// `lazarus ps` in the machine's namespace pruned the jobs of a test suite
// run under `unshare --pid` (their checkpoints then found "no running job").
TEST_F(JobRegistryTest, AListeningSocketIsAliveWhateverItsPid) {
  const std::string sock = dir() + "/other-ns.sock";
  make_socket(sock, true);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  int st = 0;
  ASSERT_EQ(waitpid(child, &st, 0), child);
  const std::string file = write_job("otherns", child, sock);
  auto jobs = list_jobs(true);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].job_id, "otherns");
  EXPECT_EQ(access(file.c_str(), F_OK), 0) << "a live job's file was pruned";
}

TEST_F(JobRegistryTest, ADeadPidWithASocketThatNoLongerListensIsStale) {
  const std::string sock = dir() + "/dead.sock";
  make_socket(sock, false);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  int st = 0;
  ASSERT_EQ(waitpid(child, &st, 0), child);
  write_job("dead", child, sock);
  EXPECT_TRUE(list_jobs(true).empty());
}

TEST_F(JobRegistryTest, AFileWithoutASocketCountsOnItsPidAlone) {
  write_job("old", getpid(), "");
  EXPECT_EQ(list_jobs(false).size(), 1u);
}

// `lazarus checkpoint 4711` / `4711.0`: a job srun started (its coordinator)
// or a `lazarus restart` inside allocation 4711, by its Slurm name.
TEST_F(JobRegistryTest, AJobIsFoundByItsSlurmStepOrByItsJobWhenOneStepRunsHere) {
  const std::string a = dir() + "/a.sock", b = dir() + "/b.sock";
  make_socket(a, true);
  make_socket(b, true);
  write_job("pmi2-4711-0", getpid(), a, "4711.0");
  write_job("5a5a5a5a", getpid(), b, "4712");
  auto step = find_job("4711.0");
  ASSERT_TRUE(step.ok()) << step.status().message();
  EXPECT_EQ(step->job_id, "pmi2-4711-0");
  EXPECT_EQ(step->manager_job, "4711.0");
  auto job = find_job("4711");
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->job_id, "pmi2-4711-0");
  auto alloc = find_job("4712");
  ASSERT_TRUE(alloc.ok()) << alloc.status().message();
  EXPECT_EQ(alloc->job_id, "5a5a5a5a");
  auto none = find_job("4713");
  EXPECT_EQ(none.status().code(), Code::kNotFound);
  EXPECT_NE(none.status().message().find("Slurm job or step"), std::string::npos) << none.status().message();
}

TEST_F(JobRegistryTest, ASlurmJobWithTwoCoordinatedStepsHereMustBeNamedByStep) {
  const std::string a = dir() + "/a.sock", b = dir() + "/b.sock";
  make_socket(a, true);
  make_socket(b, true);
  write_job("pmi2-4711-0", getpid(), a, "4711.0");
  write_job("pmi2-4711-1", getpid(), b, "4711.1");
  auto both = find_job("4711");
  EXPECT_EQ(both.status().code(), Code::kInvalidArgument);
  EXPECT_NE(both.status().message().find("4711.0, 4711.1"), std::string::npos) << both.status().message();
  auto one = find_job("4711.1");
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_EQ(one->job_id, "pmi2-4711-1");
}

}  // namespace
}  // namespace lz::launcher
