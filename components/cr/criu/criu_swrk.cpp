#include "criu_swrk.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

namespace lz::cr::criu {
namespace {

// The child keeps the service socket at this number; nothing else but 0-2.
constexpr int kServiceFd = 3;

[[noreturn]] void exec_service(int sk, const char* binary, char* const argv[], char* const envp[], pid_t middle,
                               bool die_with_reaper) {
  // Only async-signal-safe calls from here on: the parent may be multi-threaded.
  setsid();
  // Die with whoever reaps us once the middle process has gone: the rank's
  // launcher (a subreaper), or init. A criu killed with the launcher releases
  // the rank it had frozen, so the rank's own parent-death SIGKILL can end
  // it; a criu left alive would hold it frozen (a zombie with live threads)
  // for ever. Armed after the reparenting, which would fire it otherwise.
  // Only for job ranks: a single process's criu may be adopted by a
  // restarter that ends when the dumped process does (cr_restart), and must
  // finish its dump then.
  if (die_with_reaper) {
    for (int i = 0; getppid() == middle && i < 100000; ++i) {
      struct timespec pause = {0, 100000};
      nanosleep(&pause, nullptr);
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s) sigaction(s, &dfl, nullptr);  // EINVAL for KILL/STOP and glibc's own: harmless
  if (sk != kServiceFd) {
    if (dup2(sk, kServiceFd) < 0) _exit(126);
  } else {
    fcntl(sk, F_SETFD, 0);
  }
  syscall(SYS_close_range, kServiceFd + 1, ~0u, 0);
  execve(binary, argv, envp);
  _exit(127);
}

}  // namespace

Swrk& Swrk::operator=(Swrk&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

Swrk::~Swrk() {
  if (fd_ >= 0) close(fd_);
}

StatusOr<Swrk> Swrk::start(const std::string& binary, bool die_with_reaper,
                           const std::vector<std::string>& extra_env) {
  if (binary.empty()) return Unavailable("no criu binary configured (cr_criu_binary)");
  int sk[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sk) != 0)
    return ErrnoError("socketpair for criu swrk", errno);

  // Everything the child needs is built before fork().
  std::string fd_text = std::to_string(kServiceFd);
  std::vector<char*> argv = {const_cast<char*>(binary.c_str()), const_cast<char*>("swrk"), fd_text.data(), nullptr};
  std::vector<char*> envp;
  for (char** e = environ; e && *e; ++e) {
    if (std::strncmp(*e, "LD_PRELOAD=", 11) == 0 || std::strncmp(*e, "LAZARUS_CR_RUN=", 15) == 0) continue;
    envp.push_back(*e);
  }
  for (const std::string& e : extra_env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  // _Fork: no atfork handlers (the application's, or libcr's) run in these children.
  pid_t middle = _Fork();
  if (middle < 0) {
    int err = errno;
    close(sk[0]);
    close(sk[1]);
    return ErrnoError("fork for criu swrk", err);
  }
  if (middle == 0) {
    const pid_t self = getpid();
    pid_t service = _Fork();
    if (service < 0) _exit(1);
    if (service > 0) _exit(0);  // the middle process: gone before the dump begins
    exec_service(sk[1], binary.c_str(), argv.data(), envp.data(), self, die_with_reaper);
  }
  close(sk[1]);
  int status = 0;
  pid_t r;
  do {
    r = waitpid(middle, &status, 0);
  } while (r < 0 && errno == EINTR);
  // ECHILD: the application ignores SIGCHLD or reaped it itself; it is gone either way.
  if (r == middle && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    close(sk[0]);
    return Internal("could not start `" + binary + " swrk` (fork failed in the helper)");
  }
  return Swrk(sk[0]);
}

}  // namespace lz::cr::criu
