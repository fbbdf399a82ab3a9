#include "run_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace lz::test {
namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

std::vector<char*> c_array(const std::vector<std::string>& v) {
  std::vector<char*> out;
  for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

std::vector<std::string> hermetic_env(const std::string& home) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string s(*e);
    if (starts_with(s, "LZ_MCA_") || starts_with(s, "LZ_LOG_LEVEL=") || starts_with(s, "HOME=") ||
        starts_with(s, "XDG_CONFIG_HOME="))
      continue;
    env.push_back(std::move(s));
  }
  env.push_back("HOME=" + home);
  return env;
}

CommandResult run_command(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  if (argv.empty()) throw std::invalid_argument("run_command: empty argv");
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
  // Built before fork: the child only calls async-signal-safe functions.
  std::vector<char*> args = c_array(argv);
  std::vector<char*> envp = c_array(env);
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    execve(args[0], args.data(), envp.data());
    static const char kMsg[] = "run_command: execve failed\n";
    (void)!write(STDERR_FILENO, kMsg, sizeof kMsg - 1);
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  CommandResult r;
  // Drain both pipes together so a child filling one never blocks on it.
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  while (open_fds > 0) {
    int n = poll(fds, 2, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        sinks[i]->append(buf, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signaled = true;
    r.exit_code = 128 + WTERMSIG(status);
  }
  return r;
}

}  // namespace lz::test
