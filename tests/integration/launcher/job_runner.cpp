#include "job_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "run_command.h"

extern char** environ;

namespace lz::test {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::vector<std::string> launcher_env(const std::string& home, const std::string& runtime_dir) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string s(*e);
    if (s.rfind("LZ_", 0) == 0 || s.rfind("HOME=", 0) == 0 || s.rfind("XDG_CONFIG_HOME=", 0) == 0 ||
        s.rfind("XDG_RUNTIME_DIR=", 0) == 0)
      continue;
    env.push_back(std::move(s));
  }
  env.push_back("HOME=" + home);
  env.push_back("XDG_RUNTIME_DIR=" + runtime_dir);
  return env;
}

JobRunner::JobRunner(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  std::vector<char*> args = c_array(argv);
  std::vector<char*> envp = c_array(env);
  const std::string out = dir_.path() + "/out", err = dir_.path() + "/err";
  int ofd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int efd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int nfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    dup2(nfd, 0);
    dup2(ofd, 1);
    dup2(efd, 2);
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  close(ofd);
  close(efd);
  close(nfd);
}

JobRunner::~JobRunner() {
  if (!done_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

std::string JobRunner::out() const { return slurp(dir_.path() + "/out"); }
std::string JobRunner::err() const { return slurp(dir_.path() + "/err"); }
void JobRunner::signal(int sig) const { kill(pid_, sig); }

JobResult JobRunner::wait(double max_seconds) {
  JobResult r;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(max_seconds);
  int status = 0;
  for (;;) {
    pid_t got = waitpid(pid_, &status, WNOHANG);
    if (got == pid_) break;
    if (std::chrono::steady_clock::now() > deadline) {
      r.hung = true;
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  done_ = true;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) r.exit_code = 128 + WTERMSIG(status);
  r.out = out();
  r.err = err();
  return r;
}

}  // namespace lz::test
