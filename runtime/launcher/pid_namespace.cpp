#include "launcher/pid_namespace.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace lz::launcher {

int run_in_pid_namespace(const std::function<int()>& body, std::string* error) {
  if (unshare(CLONE_NEWPID | CLONE_NEWNS) != 0) {
    *error = std::string("cannot create a PID namespace (unshare: ") + std::strerror(errno) +
             "); restoring ranks needs root or CAP_SYS_ADMIN";
    return -1;
  }
  // Signals are taken synchronously (sigwaitinfo) so none is lost between the
  // fork and the wait; the child inherits the mask, and the launcher it runs
  // blocks the same signals for its signalfd anyway.
  sigset_t set, old;
  sigemptyset(&set);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, s);
  sigprocmask(SIG_BLOCK, &set, &old);
  // The child must not outlive this process: pid 1 of the namespace gets
  // SIGKILL when we die (PR_SET_PDEATHSIG; from an ancestor namespace it is
  // delivered even to a namespace init), and the kernel then kills every
  // process of the namespace: the restarted ranks go with the launcher that
  // the user killed. The pipe closes the race of a parent that died before
  // the child armed the signal (getppid() is 0 across the namespace).
  int alive[2];
  if (pipe2(alive, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    sigprocmask(SIG_SETMASK, &old, nullptr);
    return -1;
  }
  std::fflush(nullptr);
  pid_t child = fork();
  if (child < 0) {
    *error = std::string("fork into the new PID namespace: ") + std::strerror(errno);
    sigprocmask(SIG_SETMASK, &old, nullptr);
    close(alive[0]);
    close(alive[1]);
    return -1;
  }
  if (child == 0) {
    close(alive[1]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    pollfd p{alive[0], POLLIN, 0};
    if (poll(&p, 1, 0) != 0) _exit(128 + SIGKILL);  // the parent is already gone (EOF)
    close(alive[0]);
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
      std::fprintf(stderr, "lazarus: error: cannot mount /proc for the new PID namespace: %s\n", std::strerror(errno));
      _exit(1);
    }
    // Lead a session inside the namespace: restored ranks join the
    // restorer's session (criu --shell-job), and CRIU can checkpoint them
    // again only if their session leader is in their PID namespace.
    setsid();
    int rc = body();
    std::fflush(nullptr);
    _exit(rc);
  }
  close(alive[0]);
  int status = 0;
  for (;;) {
    siginfo_t si;
    int sig = sigwaitinfo(&set, &si);
    if (sig < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (sig != SIGCHLD) {
      kill(child, sig);  // pid 1 gets it: its launcher blocks it for its signalfd
      continue;
    }
    // Reap everything that ended (orphans reach us when we are a subreaper).
    bool done = false;
    for (;;) {
      int st = 0;
      pid_t r = waitpid(-1, &st, WNOHANG);
      if (r <= 0) break;
      if (r == child) {
        status = st;
        done = true;
      }
    }
    if (done) break;
  }
  sigprocmask(SIG_SETMASK, &old, nullptr);
  close(alive[1]);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace lz::launcher
