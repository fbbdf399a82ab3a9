// libcr (BLCR API on CRIU) and its tools, end to end on real processes:
//  - the API round trip in one process: thread and signal callbacks, a
//    checkpoint requested inside a critical section is deferred to
//    cr_leave_cs, cr_checkpoint() returns 0 when continuing and > 0 after
//    cr_restart, and the restored process computes the uninterrupted result;
//  - cr_run + cr_checkpoint --term on an unmodified program, then cr_restart;
//  - clear errors: missing or truncated image, a pid that is not a libcr process.
// Needs root (or CAP_CHECKPOINT_RESTORE) and CRIU; skipped otherwise.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lazarus/userns/job_namespace.h"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

// A child process with stdout on a pipe (read line by line) and stderr in a file.
class Proc {
 public:
  Proc(const std::vector<std::string>& argv, const std::string& err_file) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      setsid();  // as a launcher would: CRIU needs the session leader inside our PID namespace
      dup2(p[1], 1);
      int e = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(e, 2);
      int n = open("/dev/null", O_RDONLY);
      dup2(n, 0);
      syscall(SYS_close_range, 3, ~0u, 0);
      std::vector<char*> a;
      for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
      a.push_back(nullptr);
      execv(a[0], a.data());
      _exit(127);
    }
    close(p[1]);
    out_ = p[0];
  }
  ~Proc() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      wait();
    }
    if (out_ >= 0) close(out_);
  }
  pid_t pid() const { return pid_; }
  // One line of stdout without its newline; "" at end of file.
  std::string line() {
    std::string s;
    char c;
    while (read(out_, &c, 1) == 1) {
      if (c == '\n') return s;
      s += c;
    }
    return s;
  }
  std::string rest() {
    std::string s;
    char buf[4096];
    ssize_t n;
    while ((n = read(out_, buf, sizeof buf)) > 0) s.append(buf, static_cast<size_t>(n));
    return s;
  }
  int wait() {
    int st = 0;
    while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    return st;
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  bool reaped_ = false;
};

struct Outcome {
  int status = 0;
  std::string out, err;
};

Outcome run(const std::vector<std::string>& argv, const std::string& err_file) {
  Outcome r;
  Proc p(argv, err_file);
  r.out = p.rest();
  r.status = p.wait();
  std::ifstream e(err_file);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  return r;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) v.push_back(l);
  return v;
}

// Index of the first line starting with `prefix`, or -1.
int find_line(const std::vector<std::string>& v, const std::string& prefix) {
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i].rfind(prefix, 0) == 0) return static_cast<int>(i);
  return -1;
}

// A checkpoint that ends the process (--kill/--term) is written by a `criu`
// that outlives the process; until it exits it may still signal the dumped
// pid and tids, which a restore reuses. Wait (bounded) until no criu runs in
// our PID namespace (the CRIU tests take turns: RESOURCE_LOCK cr_store).
// cr_restart itself does not wait for that criu: it cannot tell it apart.
void wait_for_no_criu() {
  for (int i = 0; i < 2000; ++i) {
    bool any = false;
    for (const auto& e : fs::directory_iterator("/proc")) {
      const std::string name = e.path().filename();
      if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream comm(e.path() / "comm");
      std::string c;
      if (std::getline(comm, c) && c == "criu") {
        any = true;
        break;
      }
    }
    if (!any) return;
    usleep(10000);
  }
}

std::string result_of(const std::string& out) {
  for (const auto& l : lines_of(out))
    if (l.rfind("result ", 0) == 0) return l;
  return "";
}

// The pid recorded in an image (lazarus-criu.meta), 0 if unreadable.
// The pid, as this process sees it, of the process that is `inner` in the
// PID namespace below `restorer` (an ordinary user's cr_restart restores in
// one: restorer -> the namespace's pid 1 -> the restored process); `inner`
// itself for root, whose cr_restart restores in this namespace.
pid_t pid_seen_from_here(pid_t restorer, pid_t inner) {
  if (geteuid() == 0) return inner;
  auto status_field = [](pid_t pid, const std::string& key) {
    std::ifstream st("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(st, line))
      if (line.rfind(key, 0) == 0) return line.substr(key.size());
    return std::string();
  };
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    std::istringstream ns(status_field(pid, "NSpid:"));
    std::vector<long> ids;
    for (long v; ns >> v;) ids.push_back(v);
    if (ids.size() < 2 || ids.back() != inner) continue;
    const std::string ppid = status_field(pid, "PPid:");
    const std::string grandparent = ppid.empty() ? "" : status_field(std::stoi(ppid), "PPid:");
    if (!grandparent.empty() && std::stoi(grandparent) == restorer) return pid;
  }
  return 0;
}

// The command that runs a program that calls cr_init() itself: an ordinary
// user's goes under cr_run, which gives it the user namespace CRIU needs.
std::vector<std::string> libcr_program(std::vector<std::string> argv) {
  if (geteuid() != 0) argv.insert(argv.begin(), LZ_TEST_CR_RUN);
  return argv;
}

pid_t p_pid_of(const std::string& image) {
  std::ifstream in(image + "/lazarus-criu.meta");
  std::string key;
  pid_t pid = 0;
  while (in >> key)
    if (key == "pid" && in >> pid) return pid;
  return 0;
}

class LibcrTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0)
      if (const lz::Status ns = lz::userns::probe(); !ns.ok())
        GTEST_SKIP() << "not root, and no user namespace can be made here: " << ns.message();
    if (std::string(LZ_TEST_CRIU).empty() || access(LZ_TEST_CRIU, X_OK) != 0)
      GTEST_SKIP() << "CRIU >= 4.1 was not found at build time (run scripts/setup)";
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("lz-libcr-" + std::string(info->name()) + "-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty() && !HasFailure()) fs::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

TEST_F(LibcrTest, ApiRoundTripDefersToLeaveCsContinuesAndRestarts) {
  // Reference: the same computation, never checkpointed.
  Outcome ref = run(libcr_program({LZ_TEST_ROUNDTRIP, "--log", path("ref.log")}), path("ref.err"));
  ASSERT_TRUE(WIFEXITED(ref.status) && WEXITSTATUS(ref.status) == 0) << ref.err;
  const std::string expected = result_of(ref.out);
  ASSERT_FALSE(expected.empty()) << ref.out;

  const std::string image = path("image"), log = path("run.log");
  std::string continued;
  {
    Proc p(libcr_program({LZ_TEST_ROUNDTRIP, "--log", log, "--image", image, "--wait-after"}), path("run.err"));
    continued = p.line();
    std::string flag = p.line();
    EXPECT_EQ(flag, "restarted 0");
    EXPECT_EQ(continued, expected) << "the continuing process computed something else; stderr:\n"
                                   << slurp(path("run.err"));
    kill(p.pid(), SIGKILL);
    int st = p.wait();
    ASSERT_TRUE(WIFSIGNALED(st)) << "the continuing process ended by itself; stderr:\n" << slurp(path("run.err"));
  }
  auto v = lines_of(slurp(log));
  const int pending = find_line(v, "pending seen inside cs"), leaving = find_line(v, "leaving cs");
  const int tcb = find_line(v, "thread-cb before"), scb = find_line(v, "signal-cb before");
  const int trc = find_line(v, "thread-cb rc"), src = find_line(v, "signal-cb rc");
  const int left = find_line(v, "cs left");
  ASSERT_GE(pending, 0) << slurp(log);
  ASSERT_GE(tcb, 0) << slurp(log);
  ASSERT_GE(scb, 0) << slurp(log);
  // Deferred: nothing of the checkpoint ran while the section was held.
  EXPECT_LT(pending, leaving);
  EXPECT_LT(leaving, tcb) << "a callback ran inside the critical section:\n" << slurp(log);
  // BLCR order: thread-context callbacks reach cr_checkpoint before signal-context ones run.
  EXPECT_LT(tcb, scb) << slurp(log);
  // cr_leave_cs returned only after the checkpoint.
  EXPECT_GT(left, trc);
  EXPECT_GT(left, src);
  EXPECT_EQ(v[trc], "thread-cb rc 0");
  EXPECT_EQ(v[src], "signal-cb rc 0");
  EXPECT_EQ(v[static_cast<size_t>(left)], "cs left, restarted 0");
  EXPECT_GE(find_line(v, "thread-cb before, dest ok"), 0) << "cr_get_checkpoint_info() gave no destination";
  EXPECT_GE(find_line(v, "requester: done"), 0) << slurp(log);
  ASSERT_TRUE(fs::exists(image + "/inventory.img"));

  // Restart from the image: the callbacks see > 0 and the computation ends as uninterrupted.
  fs::remove(log);
  wait_for_no_criu();
  Outcome restarted = run({LZ_TEST_CR_RESTART, image}, path("restart.err"));
  ASSERT_TRUE(WIFEXITED(restarted.status)) << restarted.err;
  EXPECT_EQ(WEXITSTATUS(restarted.status), 0) << restarted.err;
  EXPECT_EQ(result_of(restarted.out), expected) << restarted.out << restarted.err;
  EXPECT_THAT(restarted.out, HasSubstr("restarted 1"));
  auto r = lines_of(slurp(log));
  const int rtrc = find_line(r, "thread-cb rc"), rsrc = find_line(r, "signal-cb rc");
  ASSERT_GE(rtrc, 0) << slurp(log);
  ASSERT_GE(rsrc, 0) << slurp(log);
  EXPECT_EQ(r[rtrc], "thread-cb rc 1");
  EXPECT_EQ(r[rsrc], "signal-cb rc 1");
  EXPECT_GE(find_line(r, "thread-cb restart info ok"), 0);
  EXPECT_GE(find_line(r, "requester: restarted"), 0) << "the restored requester should see CR_ERESTARTED\n"
                                                     << slurp(log);
  EXPECT_GE(find_line(r, "cs left, restarted 1"), 0);
}

TEST_F(LibcrTest, CrRunCheckpointTermRestartGivesTheSameResult) {
  const std::string go_ref = path("go-ref");
  std::ofstream(go_ref).put('x');
  Outcome ref = run({LZ_TEST_PLAIN, "--go", go_ref}, path("ref.err"));
  ASSERT_TRUE(WIFEXITED(ref.status) && WEXITSTATUS(ref.status) == 0) << ref.err;
  const std::string expected = result_of(ref.out);
  ASSERT_FALSE(expected.empty());

  const std::string go = path("go"), image = path("plain-image");
  {
    Proc p({LZ_TEST_CR_RUN, LZ_TEST_PLAIN, "--go", go}, path("plain.err"));
    ASSERT_EQ(p.line(), "waiting") << slurp(path("plain.err"));
    Outcome ck =
        run({LZ_TEST_CR_CHECKPOINT, "--pid", std::to_string(p.pid()), "--file", image, "--term"}, path("ck.err"));
    ASSERT_TRUE(WIFEXITED(ck.status) && WEXITSTATUS(ck.status) == 0) << ck.err << slurp(path("plain.err"));
    EXPECT_THAT(ck.out, HasSubstr(fs::canonical(image).string()));
    EXPECT_THAT(ck.out, HasSubstr("cr_restart"));
    int st = p.wait();
    ASSERT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM) << "status " << st;
  }
  std::ofstream(go).put('x');
  wait_for_no_criu();
  Outcome restarted = run({LZ_TEST_CR_RESTART, image}, path("restart.err"));
  ASSERT_TRUE(WIFEXITED(restarted.status)) << restarted.err;
  EXPECT_EQ(WEXITSTATUS(restarted.status), 0) << restarted.err;
  EXPECT_EQ(result_of(restarted.out), expected) << restarted.out << restarted.err;
}

TEST_F(LibcrTest, RestoredProcessCanBeCheckpointedAgain) {
  const std::string go = path("go"), first = path("first"), second = path("second");
  std::string expected;
  {
    const std::string go_ref = path("go-ref");
    std::ofstream(go_ref).put('x');
    expected = result_of(run({LZ_TEST_PLAIN, "--go", go_ref}, path("ref.err")).out);
  }
  {
    Proc p({LZ_TEST_CR_RUN, LZ_TEST_PLAIN, "--go", go}, path("plain.err"));
    ASSERT_EQ(p.line(), "waiting") << slurp(path("plain.err"));
    Outcome ck =
        run({LZ_TEST_CR_CHECKPOINT, "--pid", std::to_string(p.pid()), "--file", first, "--kill"}, path("ck1.err"));
    ASSERT_TRUE(WIFEXITED(ck.status) && WEXITSTATUS(ck.status) == 0) << ck.err;
    p.wait();
  }
  {
    // The restored copy re-created its control socket: checkpoint it again, from under cr_restart.
    wait_for_no_criu();
    Proc restarted({LZ_TEST_CR_RESTART, first}, path("restart1.err"));
    Outcome ck;
    for (int attempt = 0; attempt < 500; ++attempt) {  // until the restored process is back (its pid is known)
      ck = run({LZ_TEST_CR_CHECKPOINT, "--pid", std::to_string(pid_seen_from_here(restarted.pid(), p_pid_of(first))),
                "--file", second, "--kill", "--clobber"},
               path("ck2.err"));
      if (WIFEXITED(ck.status) && WEXITSTATUS(ck.status) == 0) break;
      usleep(10000);
    }
    ASSERT_TRUE(WIFEXITED(ck.status) && WEXITSTATUS(ck.status) == 0) << ck.err << slurp(path("restart1.err"));
    int st = restarted.wait();
    EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) << "cr_restart should die of its child's signal";
  }
  std::ofstream(go).put('x');
  wait_for_no_criu();
  Outcome again = run({LZ_TEST_CR_RESTART, second}, path("restart2.err"));
  ASSERT_TRUE(WIFEXITED(again.status) && WEXITSTATUS(again.status) == 0) << again.err;
  EXPECT_EQ(result_of(again.out), expected);
}

TEST_F(LibcrTest, CriuModuleCheckpointContinuesAndRestoreRestarts) {
  if (geteuid() != 0)
    GTEST_SKIP() << "the module restores a process under its pid in this PID namespace, which needs "
                    "CAP_CHECKPOINT_RESTORE outside every user namespace (root); an ordinary user restores "
                    "through cr_restart and `lazarus restart`, which make a PID namespace of their own (the "
                    "tests above and tests/integration/user)";
  const std::string image = path("rank.0");
  fs::create_directories(image);
  fs::permissions(image, fs::perms::owner_all);
  std::string continued;
  {
    Proc p({LZ_TEST_MODULE_PROG, "dump", image}, path("dump.err"));
    ASSERT_EQ(p.line(), "outcome continued") << slurp(path("dump.err"));
    continued = p.line();
    ASSERT_EQ(continued.rfind("result ", 0), 0u) << continued;
    kill(p.pid(), SIGKILL);
    p.wait();
  }
  Outcome r = run({LZ_TEST_MODULE_PROG, "restore", image}, path("restore.err"));
  ASSERT_TRUE(WIFEXITED(r.status)) << r.err;
  EXPECT_EQ(WEXITSTATUS(r.status), 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("outcome restarted"));
  EXPECT_EQ(result_of(r.out), continued);
}

TEST_F(LibcrTest, RestartOfMissingImageNamesThePath) {
  const std::string missing = path("no-such-image");
  Outcome r = run({LZ_TEST_CR_RESTART, missing}, path("err"));
  ASSERT_TRUE(WIFEXITED(r.status));
  EXPECT_NE(WEXITSTATUS(r.status), 0);
  EXPECT_THAT(r.err, HasSubstr(missing));
  EXPECT_THAT(r.err, HasSubstr("does not exist"));
}

TEST_F(LibcrTest, RestartOfTruncatedImageNamesTheFile) {
  const std::string go = path("go"), image = path("image");
  {
    Proc p({LZ_TEST_CR_RUN, LZ_TEST_PLAIN, "--go", go}, path("plain.err"));
    ASSERT_EQ(p.line(), "waiting") << slurp(path("plain.err"));
    Outcome ck =
        run({LZ_TEST_CR_CHECKPOINT, "--pid", std::to_string(p.pid()), "--file", image, "--kill"}, path("ck.err"));
    ASSERT_TRUE(WIFEXITED(ck.status) && WEXITSTATUS(ck.status) == 0) << ck.err;
    p.wait();
  }
  std::string pages;
  for (const auto& e : fs::directory_iterator(image))
    if (e.path().filename().string().rfind("pages-", 0) == 0) pages = e.path().string();
  ASSERT_FALSE(pages.empty());
  fs::resize_file(pages, fs::file_size(pages) / 2);
  Outcome r = run({LZ_TEST_CR_RESTART, image}, path("err"));
  ASSERT_TRUE(WIFEXITED(r.status));
  EXPECT_NE(WEXITSTATUS(r.status), 0);
  EXPECT_THAT(r.err, HasSubstr(pages));
}

TEST_F(LibcrTest, CheckpointOfANonLibcrProcessIsAClearError) {
  Proc sleeper({"/bin/sleep", "1000"}, path("sleep.err"));
  Outcome r = run({LZ_TEST_CR_CHECKPOINT, "--pid", std::to_string(sleeper.pid()), "--file", path("img")}, path("err"));
  ASSERT_TRUE(WIFEXITED(r.status));
  EXPECT_NE(WEXITSTATUS(r.status), 0);
  EXPECT_THAT(r.err, HasSubstr("not a libcr process"));
  EXPECT_THAT(r.err, HasSubstr("cr_run"));

  kill(sleeper.pid(), SIGKILL);
  sleeper.wait();
  Outcome gone = run({LZ_TEST_CR_CHECKPOINT, "--pid", std::to_string(sleeper.pid())}, path("err2"));
  EXPECT_NE(WEXITSTATUS(gone.status), 0);
  EXPECT_THAT(gone.err, HasSubstr("no process with pid"));
}

TEST_F(LibcrTest, ToolsHaveHelp) {
  for (const char* tool : {LZ_TEST_CR_RUN, LZ_TEST_CR_CHECKPOINT, LZ_TEST_CR_RESTART}) {
    Outcome r = run({tool, "--help"}, path("err"));
    EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << tool;
    EXPECT_THAT(r.out, HasSubstr("Usage")) << tool;
  }
  Outcome ck = run({LZ_TEST_CR_CHECKPOINT, "--help"}, path("err"));
  EXPECT_THAT(ck.out, HasSubstr("DIRECTORY"));
}

}  // namespace
