#include "launcher/local_starter.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "launcher/host_list.h"
#include "lazarus/strings.h"

namespace lz::launcher {

Status LocalStarter::can_start_on(const std::string& host) const {
  if (is_local_host(host)) return Status::Ok();
  return Unimplemented("host '" + host +
                       "' is not this host: this starter starts ranks here only (`lazarus run` starts ranks on "
                       "other hosts through RemoteStarter; restarting on other hosts is not supported yet)");
}

StatusOr<StartedRank> LocalStarter::start(const RankSpec& spec) {
  int out[2], err[2], sec[2], status[2];
  if (pipe2(out, O_CLOEXEC) != 0) return ErrnoError("pipe2", errno);
  oob::Fd out_r(out[0]), out_w(out[1]);
  if (pipe2(err, O_CLOEXEC) != 0) return ErrnoError("pipe2", errno);
  oob::Fd err_r(err[0]), err_w(err[1]);
  if (pipe2(sec, O_CLOEXEC) != 0) return ErrnoError("pipe2", errno);
  oob::Fd sec_r(sec[0]), sec_w(sec[1]);
  // Reports an exec failure (errno) to the parent; closed by a successful exec.
  if (pipe2(status, O_CLOEXEC) != 0) return ErrnoError("pipe2", errno);
  oob::Fd st_r(status[0]), st_w(status[1]);
  oob::Fd devnull(open("/dev/null", O_RDONLY | O_CLOEXEC));

  // The secret (32 bytes) fits in the pipe buffer: write it before the fork.
  if (spec.secret.size() > 4096) return InvalidArgument("job secret too long for the secret pipe");
  if (::write(sec_w.get(), spec.secret.data(), spec.secret.size()) != static_cast<ssize_t>(spec.secret.size()))
    return ErrnoError("writing the job secret pipe", errno);
  sec_w.reset();

  std::vector<std::string> env = spec.env;
  env.push_back("LZ_SECRET_FD=" + std::to_string(sec_r.get()));
  // Everything the child touches is prepared before fork: after fork it only
  // makes async-signal-safe calls.
  std::vector<char*> argv = str::c_array(spec.argv);
  std::vector<char*> envp = str::c_array(env);
  const int secret_fd = sec_r.get();
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (int c : spec.cpus) CPU_SET(c, &cpus);
  const bool bind = !spec.cpus.empty();
  const char* cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();

  const pid_t launcher = getpid();
  pid_t pid = fork();
  if (pid < 0) return ErrnoError("fork", errno);
  if (pid == 0) {
    // A rank never outlives its launcher, whatever it is doing (a rank frozen
    // in a CRIU dump included): SIGKILL when the launcher dies. Kept across
    // the exec; the check closes the race with a launcher already gone.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != launcher) _exit(128 + SIGKILL);
    // Each rank leads its own session (and process group): CRIU can only save
    // a process whose session leader is in its PID namespace, and under an
    // unshared namespace (containers, CI runners) ours may not be.
    setsid();
    // The launcher chose these from its own CPUs; should the kernel refuse
    // them anyway, the rank runs unbound.
    if (bind) sched_setaffinity(0, sizeof cpus, &cpus);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGHUP, SIG_DFL);
    if (spec.stdin_fd >= 0) dup2(spec.stdin_fd, STDIN_FILENO);
    else if (devnull.valid()) dup2(devnull.get(), STDIN_FILENO);
    dup2(out_w.get(), STDOUT_FILENO);
    dup2(err_w.get(), STDERR_FILENO);
    // Nothing the launcher inherited from its own parent reaches the rank
    // (close-on-exec for all; the exec-status pipe must stay open until the
    // exec): CRIU cannot save a descriptor on a mount of another mount
    // namespace (a shell's fd opened before `unshare --mount-proc`).
    syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */);
    fcntl(secret_fd, F_SETFD, 0);  // the one descriptor the rank inherits on purpose
    if (cwd != nullptr && chdir(cwd) != 0) {
      int e = errno;
      (void)!::write(st_w.get(), &e, sizeof e);
      _exit(127);
    }
    // execvpe searches PATH from the environment given to the child.
    for (char** e = envp.data(); *e != nullptr; ++e) {
      if (std::strncmp(*e, "PATH=", 5) == 0) {
        setenv("PATH", *e + 5, 1);  // not async-signal-safe in theory; harmless in a fresh child
        break;
      }
    }
    execvpe(argv[0], argv.data(), envp.data());
    int e = errno;
    (void)!::write(st_w.get(), &e, sizeof e);
    _exit(127);
  }
  // No setpgid() from this side: it could make the child a group leader
  // before its setsid(), which then fails (EPERM). The read below returns
  // only after the exec, so the session (and group) exists before any kill(-pid).
  st_w.reset();
  out_w.reset();
  err_w.reset();
  sec_r.reset();
  int child_errno = 0;
  ssize_t n;
  do {
    n = ::read(st_r.get(), &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof child_errno)) {
    // The child exits 127 right away; the launcher's SIGCHLD handling reaps it.
    return Status(child_errno == ENOENT ? Code::kNotFound : Code::kPermissionDenied,
                  "cannot execute '" + spec.argv[0] + "': " + std::strerror(child_errno));
  }
  fcntl(out_r.get(), F_SETFL, O_NONBLOCK);
  fcntl(err_r.get(), F_SETFL, O_NONBLOCK);
  StartedRank r;
  r.pid = pid;
  r.out = std::move(out_r);
  r.err = std::move(err_r);
  return r;
}

}  // namespace lz::launcher
