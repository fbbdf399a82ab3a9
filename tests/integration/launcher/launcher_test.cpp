// Whole jobs through the real `lazarus run` / `mpirun` with a Bootstrap-level
// rank program (testprog.cpp). Bounds on waiting only guard against hangs;
// nothing here measures time.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "job_runner.h"

namespace lz::test {
namespace {

namespace fs = std::filesystem;

const std::string kLazarus = LZ_TEST_LAZARUS_BIN;
const std::string kProg = LZ_TEST_PROG;
constexpr double kBound = 180;  // seconds; only to avoid hanging the suite

std::string mpirun() { return (fs::path(kLazarus).parent_path() / "mpirun").string(); }

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

class LauncherTest : public ::testing::Test {
 protected:
  TempDir home_;
  TempDir runtime_;
  std::vector<std::string> env() const { return launcher_env(home_.path(), runtime_.path()); }
  std::string jobs_dir() const { return runtime_.path() + "/lazarus/jobs"; }

  JobResult run(std::vector<std::string> args) {
    JobRunner job(args, env());
    JobResult r = job.wait(kBound);
    EXPECT_FALSE(r.hung) << "job hung; stderr:\n" << r.err;
    return r;
  }

  // The job registry file of the (single) running job, parsed.
  nlohmann::json wait_for_job_file(JobRunner& job) {
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < until) {
      if (fs::exists(jobs_dir()))
        for (const auto& e : fs::directory_iterator(jobs_dir())) {
          if (e.path().extension() != ".json") continue;
          std::ifstream in(e.path());
          auto j = nlohmann::json::parse(in, nullptr, false);
          if (!j.is_discarded()) return j;
        }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ADD_FAILURE() << "no job registry file appeared; stderr so far:\n" << job.err();
    return {};
  }
};

class LauncherNpTest : public LauncherTest, public ::testing::WithParamInterface<int> {};

TEST_P(LauncherNpTest, EveryRankSeesEveryPeersModexValues) {
  const int np = GetParam();
  // Odd sizes through mpirun's spelling, even ones through `lazarus run`.
  std::vector<std::string> args = np % 2 ? std::vector<std::string>{mpirun(), "-np", std::to_string(np)}
                                         : std::vector<std::string>{kLazarus, "run", "-n", std::to_string(np)};
  args.insert(args.end(), {kProg, "--rounds", "3"});
  JobResult r = run(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count(r.out, "modex ok"), np) << r.out;
  for (int i = 0; i < np; ++i)
    EXPECT_NE(r.out.find("rank " + std::to_string(i) + " of " + std::to_string(np) + ": modex ok"),
              std::string::npos)
        << r.out;
}

// np up to 8 on any number of cores: oversubscription is the default.
INSTANTIATE_TEST_SUITE_P(Np, LauncherNpTest, ::testing::Range(1, 9));

// MPI_Comm_spawn's launcher side (launcher/spawned_jobs.h), through
// Bootstrap::spawn: the new job runs under a launcher of its own, its
// output joins the job's, and the job ends after it.
TEST_F(LauncherTest, SpawnedJobRunsAndTheJobEndsAfterIt) {
  JobResult r = run({kLazarus, "run", "-np", "2", kProg, "--spawn", "2:sh", "--spawn-arg", "-c", "--spawn-arg",
                     "sleep 1; echo child $LZ_RANK of $LZ_SIZE says $SPAWN_V", "--spawn-env", "SPAWN_V=hi there"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count(r.out, "rank 0: spawn ok"), 1) << r.out;
  EXPECT_EQ(count(r.out, "child 0 of 2 says hi there"), 1) << r.out;
  EXPECT_EQ(count(r.out, "child 1 of 2 says hi there"), 1) << r.out;
}

TEST_F(LauncherTest, SpawnOfAMissingCommandIsRefusedNamingIt) {
  JobResult r = run({kLazarus, "run", "-np", "1", kProg, "--spawn", "1:no-such-program-xyz"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rank 0: spawn refused: command 'no-such-program-xyz' not found in PATH"), std::string::npos)
      << r.out;
}

TEST_F(LauncherTest, AFailingSpawnedJobFailsTheJob) {
  JobResult r = run({kLazarus, "run", "-np", "2", kProg, "--sleep", "--spawn", "1:sh", "--spawn-arg", "-c",
                     "--spawn-arg", "exit 3"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("spawned job 'sh' (started by rank 0) exited with code 3"), std::string::npos) << r.err;
}

TEST_F(LauncherTest, StoppingTheJobStopsTheJobsItSpawned) {
  const std::string pid_file = home_.path() + "/child.pid";
  JobResult r = run({kLazarus, "run", "-np", "1", "--timeout", "4", kProg, "--sleep", "--spawn", "1:sh",
                     "--spawn-arg", "-c", "--spawn-arg", "echo $$ > " + pid_file + "; exec sleep 1000"});
  EXPECT_EQ(r.exit_code, 124) << r.err;
  std::ifstream in(pid_file);
  pid_t child = 0;
  ASSERT_TRUE(in >> child) << "the spawned rank did not start; stderr:\n" << r.err;
  EXPECT_NE(kill(child, 0), 0) << "spawned rank " << child << " outlived the job";
}

TEST_F(LauncherTest, ExportedVariablesReachEveryRank) {
  JobResult r = run({kLazarus, "run", "-np", "3", "-x", "FOO=bar baz", "-x", "HOME", kProg, "--print-env", "FOO"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (int i = 0; i < 3; ++i) EXPECT_NE(r.out.find("rank " + std::to_string(i) + " FOO=bar baz"), std::string::npos);
}

TEST_F(LauncherTest, TagOutputPrefixesEveryLine) {
  JobResult r = run({kLazarus, "run", "-np", "2", "--tag-output", kProg, "--stderr"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (int i = 0; i < 2; ++i) {
    std::regex out_line("(^|\n)\\[[0-9a-f]+," + std::to_string(i) + "\\]<stdout>:rank " + std::to_string(i) +
                        " of 2: modex ok");
    std::regex err_line("(^|\n)\\[[0-9a-f]+," + std::to_string(i) + "\\]<stderr>:rank " + std::to_string(i) +
                        " says hello on stderr\n");
    EXPECT_TRUE(std::regex_search(r.out, out_line)) << r.out;
    EXPECT_TRUE(std::regex_search(r.err, err_line)) << r.err;
  }
}

TEST_F(LauncherTest, PartialLastLineIsFlushed) {
  JobResult r = run({kLazarus, "run", "-np", "2", kProg, "--partial"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rank 0 partial line"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank 1 partial line"), std::string::npos) << r.out;
}

TEST_F(LauncherTest, RankExitingWithCodeThreeStopsTheJob) {
  JobResult r = run({kLazarus, "run", "-np", "3", kProg, "--exit", "1:3"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("rank 1 \\(pid [0-9]+\\) exited with code 3"))) << r.err;
}

TEST_F(LauncherTest, RankKilledBySignalIsReported) {
  JobResult r = run({mpirun(), "-np", "3", kProg, "--kill", "2"});
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("rank 2 \\(pid [0-9]+\\) was killed by signal 9 \\(SIGKILL\\)")))
      << r.err;
}

TEST_F(LauncherTest, AbortCodeIsTheJobsExitStatus) {
  JobResult r = run({kLazarus, "run", "-np", "2", kProg, "--abort", "1:5"});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("rank 1 \\(pid [0-9]+\\) called abort with code 5: test abort")))
      << r.err;
}

TEST_F(LauncherTest, ExitZeroBeforeFinalizeStopsTheJob) {
  JobResult r = run({kLazarus, "run", "-np", "2", kProg, "--exit0-early", "1"});
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("rank 1 (pid"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("without calling finalize"), std::string::npos) << r.err;
}

TEST_F(LauncherTest, TimeoutKillsASleepingJob) {
  JobResult r = run({kLazarus, "run", "-np", "2", "--timeout", "2", kProg, "--sleep"});
  EXPECT_EQ(r.exit_code, 124) << r.err;
  EXPECT_NE(r.err.find("--timeout"), std::string::npos) << r.err;
}

TEST_F(LauncherTest, SigtermIsForwardedAndStopsTheJob) {
  JobRunner job({kLazarus, "run", "-np", "2", kProg, "--sleep"}, env());
  wait_for_job_file(job);
  job.signal(SIGTERM);
  JobResult r = job.wait(kBound);
  EXPECT_FALSE(r.hung);
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;
  EXPECT_NE(r.err.find("received SIGTERM"), std::string::npos) << r.err;
}

TEST_F(LauncherTest, UnknownParameterIsRefusedWithASuggestion) {
  JobResult r = run({kLazarus, "run", "-np", "1", "--mca", "oob_adress", "127.0.0.1", kProg});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("oob_adress"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean 'oob_address'"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("modex ok"), std::string::npos);
}

TEST_F(LauncherTest, ParametersAreForwardedToRanks) {
  JobResult r = run({kLazarus, "run", "-np", "2", "--mca", "launch_kill_grace", "7", kProg, "--print-env",
                     "LZ_MCA_launch_kill_grace"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count(r.out, "LZ_MCA_launch_kill_grace=7"), 2) << r.out;
}

TEST_F(LauncherTest, NonMpiProgramsRun) {
  JobResult r = run({kLazarus, "run", "-np", "3", "/bin/echo", "hello", "-n"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count(r.out, "hello -n\n"), 3) << r.out;
}

TEST_F(LauncherTest, MissingProgramIsReported) {
  JobResult r = run({kLazarus, "run", "-np", "2", "./no-such-program-here"});
  EXPECT_EQ(r.exit_code, 127) << r.err;
  EXPECT_NE(r.err.find("cannot execute './no-such-program-here'"), std::string::npos) << r.err;
}

// A remote host goes through the launch agent (tests/integration/hosts has
// the real ones); an agent that fails is reported with the host, fast.
TEST_F(LauncherTest, RemoteHostWhoseHelperCannotStartIsReported) {
  JobResult r = run({kLazarus, "run", "--host", "no-such-host.invalid:2", "-np", "2", "--mca", "launch_agent",
                     "/bin/false", kProg});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("helper on host no-such-host.invalid"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("launch agent (/bin/false) exited with code 1"), std::string::npos) << r.err;
}

TEST_F(LauncherTest, NoOversubscribeRefusesMoreRanksThanSlots) {
  JobResult r = run({kLazarus, "run", "--host", "localhost:1", "-np", "2", "--nooversubscribe", kProg});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("slots"), std::string::npos) << r.err;
  JobResult ok = run({kLazarus, "run", "--host", "localhost:1", "-np", "2", kProg});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST_F(LauncherTest, HostfileIsRead) {
  std::string hf = home_.path() + "/hosts";
  std::ofstream(hf) << "# test hosts\nlocalhost slots=2   # this machine\n\n";
  JobResult r = run({kLazarus, "run", "--hostfile", hf, kProg});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count(r.out, "modex ok"), 2) << r.out;  // -n defaults to the slots
}

TEST_F(LauncherTest, HelpSaysOversubscriptionIsTheDefault) {
  JobResult r = run({mpirun(), "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--oversubscribe"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ALLOWED by default"), std::string::npos) << r.out;
}

TEST_F(LauncherTest, SecretIsNeitherOnCommandLinesNorInEnvironments) {
  JobResult r = run({kLazarus, "run", "-np", "2", kProg, "--secret-check"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count(r.out, "secret not exposed"), 2) << r.out;
  EXPECT_EQ(r.out.find("EXPOSED"), std::string::npos) << r.out;
}

TEST_F(LauncherTest, RanksCanDisconnectAndReconnect) {
  JobResult r = run({kLazarus, "run", "-np", "3", kProg, "--reconnect", "--rounds", "3"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count(r.out, "modex ok"), 3) << r.out;
}

// A rank back from disconnect() before the launcher read the end of its
// old connection (a staying rank right after a migration's GO) is admitted.
TEST_F(LauncherTest, ARankReconnectingBeforeItsOldConnectionEndedIsAdmitted) {
  JobResult r = run({kLazarus, "run", "-np", "3", kProg, "--reconnect-early", "--rounds", "3"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count(r.out, "modex ok"), 3) << r.out;
  EXPECT_EQ(r.err.find("already connected"), std::string::npos) << r.err;
}

TEST_F(LauncherTest, JobRegistryFileIsPrivateAndRemovedAtExit) {
  std::string go = home_.path() + "/go";
  JobRunner job({kLazarus, "run", "-np", "2", kProg, "--wait-file", go}, env());
  nlohmann::json j = wait_for_job_file(job);
  EXPECT_EQ(j.value("np", 0), 2);
  EXPECT_EQ(j.value("launcher_pid", 0), job.pid());
  EXPECT_FALSE(j.value("oob_address", "").empty());
  std::string path = jobs_dir() + "/" + j.value("job_id", "") + ".json";
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::ofstream(go) << "go";
  JobResult r = job.wait(kBound);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(path));
}

// Connects to host:port; -1 on failure.
int connect_to(const std::string& address) {
  size_t colon = address.rfind(':');
  std::string host = address.substr(0, colon);
  int port = std::stoi(address.substr(colon + 1));
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, host.c_str(), &a.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// True when the launcher closed the connection (reads to EOF; bounded).
bool closed_by_peer(int fd, double max_seconds) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(max_seconds);
  char buf[4096];
  while (std::chrono::steady_clock::now() < until) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
  }
  return false;
}

TEST_F(LauncherTest, UnauthenticatedOobConnectionsAreRefusedAndTheJobCompletes) {
  std::string go = home_.path() + "/go";
  JobRunner job({kLazarus, "run", "-np", "3", "--mca", "oob_handshake_timeout", "1", kProg, "--wait-file", go},
                env());
  nlohmann::json j = wait_for_job_file(job);
  std::string addr = j.value("oob_address", "");
  ASSERT_FALSE(addr.empty());

  // A stranger that sends garbage.
  int garbage = connect_to(addr);
  ASSERT_GE(garbage, 0);
  const char junk[] = "GET / HTTP/1.0\r\nthis is not the OOB protocol\r\n\r\n";
  ASSERT_GT(send(garbage, junk, sizeof junk - 1, MSG_NOSIGNAL), 0);
  // A stranger that claims to be a rank with a made-up MAC: a valid AUTH frame.
  int forger = connect_to(addr);
  ASSERT_GE(forger, 0);
  unsigned char frame[12 + 40] = {0x4C, 0x5A, 0x4F, 0x42, 0, 1, 0, 2, 0, 0, 0, 40, 0, 0, 0, 1};
  ASSERT_EQ(send(forger, frame, sizeof frame, MSG_NOSIGNAL), static_cast<ssize_t>(sizeof frame));
  // A stranger that says nothing at all.
  int silent = connect_to(addr);
  ASSERT_GE(silent, 0);

  EXPECT_TRUE(closed_by_peer(garbage, 60));
  EXPECT_TRUE(closed_by_peer(forger, 60));
  EXPECT_TRUE(closed_by_peer(silent, 60));  // dropped at the handshake deadline
  close(garbage);
  close(forger);
  close(silent);

  std::ofstream(go) << "go";
  JobResult r = job.wait(kBound);
  EXPECT_FALSE(r.hung);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count(r.out, "modex ok"), 3) << r.out;
  EXPECT_EQ(count(r.err, "refused unauthenticated OOB connection from 127.0.0.1:"), 3) << r.err;
  EXPECT_NE(r.err.find("bad frame magic"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("wrong MAC for rank 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no authentication within 1 s"), std::string::npos) << r.err;
}

TEST_F(LauncherTest, ASilentStrangerDoesNotStallTheJob) {
  // Default handshake deadline (5 s): the job finishes while the stranger
  // still holds its connection open.
  std::string go = home_.path() + "/go";
  JobRunner job({kLazarus, "run", "-np", "2", kProg, "--wait-file", go}, env());
  nlohmann::json j = wait_for_job_file(job);
  int silent = connect_to(j.value("oob_address", ""));
  ASSERT_GE(silent, 0);
  std::ofstream(go) << "go";
  JobResult r = job.wait(kBound);
  close(silent);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count(r.out, "modex ok"), 2) << r.out;
}

}  // namespace
}  // namespace lz::test
