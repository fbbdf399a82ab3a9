// What the launcher runs for a rank's MPI_Comm_spawn (runtime/launcher/
// spawned_jobs.h): the command lookup and the request's checks (a refusal
// names the bad value), the sub-launcher's argv (read back with `lazarus
// run`'s own word splitter, runtime/cli/run_args.cpp) and environment, and
// one argv run by the real binary: -x entries and LZ_MCA_* reach the ranks.
#include "launcher/spawned_jobs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "cli/run_args.h"
#include "run_command.h"
#include "temp_dir.h"

namespace lz::launcher {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Words = std::vector<std::string>;

bool local_only(const std::string& h) { return h == "localhost" || h == "here"; }

class SpawnedJobsTest : public ::testing::Test {
 protected:
  SpawnedJobsTest() {
    bin_ = dir_.mkdir("bin");
    other_ = dir_.mkdir("other");
    exe(bin_ + "/worker");
    exe(other_ + "/worker");
    dir_.write("bin/plain", "data");  // not executable
    exe(dir_.mkdir("w") + "/here.sh");
    ctx_.self_exe = "/opt/lz/bin/lazarus";
    ctx_.cwd = dir_.path();
    ctx_.path_env = bin_ + ":/nonexistent";
    ctx_.is_local = local_only;
  }
  static void exe(const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr) << path;
    std::fputs("#!/bin/sh\n", f);
    std::fclose(f);
    ASSERT_EQ(chmod(path.c_str(), 0755), 0);
  }
  static oob::SpawnApp app(std::string cmd, int np = 1) {
    oob::SpawnApp a;
    a.command = std::move(cmd);
    a.maxprocs = np;
    return a;
  }
  oob::SpawnRequestMsg req(std::vector<oob::SpawnApp> apps, Words env = {}) {
    oob::SpawnRequestMsg r;
    r.seq = 1;
    r.apps = std::move(apps);
    r.env = std::move(env);
    return r;
  }

  test::TempDir dir_;
  std::string bin_, other_;
  SpawnContext ctx_;
};

TEST_F(SpawnedJobsTest, ParentHostsAreEmptyWhenTheJobRunsHereOnly) {
  std::vector<Placement> p = {{"localhost", 0, 0, 2, {}}, {"here", 0, 1, 2, {}}};
  EXPECT_EQ(parent_host_list(p, local_only), "");
  p = {{"localhost", 0, 0, 2, {}}, {"n1", 1, 0, 1, {}}, {"localhost", 0, 1, 2, {}}};
  EXPECT_EQ(parent_host_list(p, local_only), "localhost:2,n1:1");
}

TEST_F(SpawnedJobsTest, CommandIsSearchedInInfoPathThenPath) {
  oob::SpawnApp a = app("worker");
  auto f = find_spawn_command(a, ctx_);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(*f, bin_ + "/worker");
  a.path = other_;
  f = find_spawn_command(a, ctx_);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(*f, other_ + "/worker");
}

TEST_F(SpawnedJobsTest, CommandNotFoundNamesItAndWhereItLooked) {
  oob::SpawnApp a = app("nosuch");
  a.path = "/x";
  auto f = find_spawn_command(a, ctx_);
  ASSERT_EQ(f.status().code(), Code::kNotFound);
  EXPECT_THAT(f.status().message(), HasSubstr("command 'nosuch' not found in info 'path' /x nor in PATH " + bin_));
}

TEST_F(SpawnedJobsTest, CommandWithASlashIsRelativeToTheWorkingDirectory) {
  oob::SpawnApp a = app("./here.sh");
  EXPECT_EQ(find_spawn_command(a, ctx_).status().code(), Code::kNotFound);
  EXPECT_THAT(find_spawn_command(a, ctx_).status().message(), HasSubstr("no file " + dir_.path() + "/./here.sh"));
  a.wdir = "w";  // relative to the launcher's directory
  auto f = find_spawn_command(a, ctx_);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(*f, dir_.path() + "/w/./here.sh");
}

TEST_F(SpawnedJobsTest, AFileThatIsNotExecutableIsSaidSo) {
  auto f = find_spawn_command(app("plain"), ctx_);
  EXPECT_EQ(f.status().code(), Code::kPermissionDenied);
  EXPECT_THAT(f.status().message(), HasSubstr(bin_ + "/plain) is not executable"));
}

TEST_F(SpawnedJobsTest, RequestChecksNameTheBadValue) {
  EXPECT_TRUE(check_spawn_request(req({app("worker", 2)}), ctx_).ok());
  EXPECT_THAT(check_spawn_request(req({}), ctx_).message(), HasSubstr("names no program"));
  EXPECT_THAT(check_spawn_request(req({app("worker", 0)}), ctx_).message(), HasSubstr("app 0 ('worker'): maxprocs 0"));
  EXPECT_THAT(check_spawn_request(req({app("worker"), app("")}), ctx_).message(), HasSubstr("app 1"));
  EXPECT_THAT(check_spawn_request(req({app("worker"), app("nosuch")}), ctx_).message(),
              HasSubstr("command 'nosuch' not found"));
  oob::SpawnApp colon = app("worker");
  colon.argv = {"a", ":", "b"};
  EXPECT_THAT(check_spawn_request(req({colon}), ctx_).message(), HasSubstr("an argument ':' cannot be passed"));
  oob::SpawnApp bad_host = app("worker");
  bad_host.host = "n1:x";
  EXPECT_THAT(check_spawn_request(req({bad_host}), ctx_).message(), HasSubstr("info 'host' 'n1:x'"));
  oob::SpawnApp hf1 = app("worker"), hf2 = app("worker");
  hf1.hostfile = dir_.write("h1", "localhost slots=2\n");
  hf2.hostfile = dir_.write("h2", "localhost slots=2\n");
  EXPECT_THAT(check_spawn_request(req({hf1, hf2}), ctx_).message(), HasSubstr("the new job has one hostfile"));
  oob::SpawnApp missing_hf = app("worker");
  missing_hf.hostfile = "/no/such/hostfile";
  EXPECT_THAT(check_spawn_request(req({missing_hf}), ctx_).message(), HasSubstr("/no/such/hostfile"));
  EXPECT_THAT(check_spawn_request(req({app("worker")}, {"NOEQUALS"}), ctx_).message(),
              HasSubstr("entry 'NOEQUALS': expected NAME=VALUE"));
  EXPECT_THAT(check_spawn_request(req({app("worker")}, {"LZ_RANK=3"}), ctx_).message(),
              HasSubstr("LZ_RANK is set by the new job's launcher"));
}

TEST_F(SpawnedJobsTest, CommandIsNotLookedForWhenNoRankRunsHere) {
  oob::SpawnApp a = app("only-on-n1");
  EXPECT_FALSE(check_spawn_request(req({a}), ctx_).ok());
  a.host = "n1,n2:2";
  EXPECT_TRUE(check_spawn_request(req({a}), ctx_).ok());
  a.host = "n1,localhost";
  EXPECT_FALSE(check_spawn_request(req({a}), ctx_).ok());
  // Placed on the spawning job's hosts, one of which is this one.
  a.host.clear();
  ctx_.parent_hosts = "n1:2,localhost:1";
  EXPECT_FALSE(check_spawn_request(req({a}), ctx_).ok());
  ctx_.parent_hosts = "n1:2,n2:1";
  EXPECT_TRUE(check_spawn_request(req({a}), ctx_).ok());
}

TEST_F(SpawnedJobsTest, ArgvOfOneApp) {
  oob::SpawnApp a = app("worker", 3);
  a.argv = {"-v", "x y"};
  EXPECT_THAT(spawn_launcher_argv(req({a}, {"A=1", "LZ_MCA_oob_port=0"}), ctx_),
              ElementsAre("/opt/lz/bin/lazarus", "run", "-np", "3", "-x", "A=1", "--", "worker", "-v", "x y"));
}

TEST_F(SpawnedJobsTest, ArgvOfSeveralAppsWithTheirInfoKeys) {
  oob::SpawnApp a = app("a", 2), b = app("b", 1), c = app("c", 1);
  a.host = "n1:2";
  a.wdir = "/w";
  b.path = "/p";
  c.argv = {"--np", "9"};
  ctx_.parent_hosts = "n0:4,n1:4";
  const Words argv = spawn_launcher_argv(req({a, b, c}, {"S=v"}), ctx_);
  EXPECT_THAT(argv, ElementsAre("/opt/lz/bin/lazarus", "run",                                                    //
                                "-np", "2", "--host", "n1:2", "--wdir", "/w", "-x", "S=v", "--", "a",            //
                                ":", "-np", "1", "--host", "n0:4,n1:4", "--path", "/p", "-x", "S=v", "--", "b",  //
                                ":", "-np", "1", "--host", "n0:4,n1:4", "-x", "S=v", "--", "c", "--np", "9"));
  // `lazarus run` reads it back as three programs with these options.
  auto w = cli::split_run_words(Words(argv.begin() + 2, argv.end()));
  ASSERT_TRUE(w.ok()) << w.status().message();
  ASSERT_EQ(w->contexts.size(), 3u);
  EXPECT_THAT(w->contexts[0].program, ElementsAre("a"));
  EXPECT_THAT(w->contexts[0].options, ElementsAre("--np", "2", "--host", "n1:2", "--wdir", "/w", "-x", "S=v"));
  EXPECT_THAT(w->contexts[2].program, ElementsAre("c", "--np", "9"));
}

TEST_F(SpawnedJobsTest, HostfileIsTheJobsAndComesFirst) {
  oob::SpawnApp a = app("a", 1), b = app("b", 1);
  b.hostfile = "hosts.txt";
  ctx_.parent_hosts = "n0:4";  // not used: the hostfile places the apps without info "host"
  const Words argv = spawn_launcher_argv(req({a, b}), ctx_);
  EXPECT_THAT(argv, ElementsAre("/opt/lz/bin/lazarus", "run", "--hostfile", "hosts.txt", "-np", "1", "--", "a", ":",
                                "-np", "1", "--", "b"));
  auto w = cli::split_run_words(Words(argv.begin() + 2, argv.end()));
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->contexts.size(), 2u);
}

TEST_F(SpawnedJobsTest, EnvironmentIsTheLaunchersWithTheRequestsEntries) {
  EXPECT_THAT(spawn_launcher_env({"PATH=/bin", "A=old", "LZ_OUTER_PID=12"}, {"A=new", "LZ_MCA_x=1"}),
              ElementsAre("PATH=/bin", "A=new", "LZ_MCA_x=1"));
}

// The argv and environment run by the real `lazarus`: every -x entry and
// every LZ_MCA_* parameter reaches the new job's ranks.
TEST_F(SpawnedJobsTest, EntriesReachTheRanksOfTheJobItRuns) {
  test::TempDir home;
  ctx_.self_exe = LZ_TEST_LAZARUS_BIN;
  ctx_.path_env = "/usr/bin:/bin";
  oob::SpawnApp a = app("sh", 2);
  a.argv = {"-c", "echo \"rank=$LZ_RANK s=$SPAWN_S grace=$LZ_MCA_launch_kill_grace\""};
  oob::SpawnRequestMsg r = req({a}, {"SPAWN_S=a b,c", "LZ_MCA_launch_kill_grace=1.5"});
  ASSERT_TRUE(check_spawn_request(r, ctx_).ok()) << check_spawn_request(r, ctx_).message();
  Words env = spawn_launcher_env(test::hermetic_env(home.path()), r.env);
  env.push_back("XDG_RUNTIME_DIR=" + home.path());
  test::CommandResult out = test::run_command(spawn_launcher_argv(r, ctx_), env);
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_THAT(out.out, HasSubstr("rank=0 s=a b,c grace=1.5"));
  EXPECT_THAT(out.out, HasSubstr("rank=1 s=a b,c grace=1.5"));
}

}  // namespace
}  // namespace lz::launcher
