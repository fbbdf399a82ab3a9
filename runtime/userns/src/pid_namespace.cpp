#include "lazarus/userns/pid_namespace.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "lazarus/userns/capabilities.h"
#include "lazarus/userns/job_namespace.h"
#include "lazarus/userns/reopen.h"

namespace lz::userns {
namespace {

// The /proc of the outermost namespace, kept before a namespace's own /proc
// covers it: a pidfd's fdinfo read through it gives the pid seen there.
int g_outer_proc = -1;

// Standard streams that are files were opened in the caller's mount
// namespace, whose mounts CRIU cannot find from this one ("Can't lookup
// mount"): reopened here by their path, at the same offset, they belong to
// this namespace's copy of the mount.
void reopen_stdio_files() {
  for (int fd = 0; fd <= 2; ++fd) {
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    const int flags = fcntl(fd, F_GETFL);
    const off_t pos = lseek(fd, 0, SEEK_CUR);
    const int again = reopen_here(fd, flags & (O_ACCMODE | O_APPEND));
    if (again < 0) continue;
    if (pos > 0) lseek(again, pos, SEEK_SET);
    dup3(again, fd, 0);
    close(again);
  }
}

// The PID namespace this process's children are made in (after the
// unshare and the fork), held open: a namespace's inode may be given to a
// new one once the last reference is gone, and the names of that one's
// ranks must not be taken for this one's. -1 if unknown. `outer_proc` is
// /proc as it was before the child mounted its namespace's over it. Not
// /proc/<child>/ns/pid: a child whose body ended at once had no namespace
// to open any more (an exited process drops its namespaces), and its
// names stayed (the CI's user.unit.userns, once in a loaded run).
int hold_pid_namespace(int outer_proc) { return openat(outer_proc, "self/ns/pid_for_children", O_RDONLY | O_CLOEXEC); }

// Shared-memory names made by processes of PID namespace `ns` carry its
// inode as their third dot-separated field (lz-shm.<job>.<pidns>.<pid>...,
// transport/shm's SegmentName). With the namespace's pid 1 gone every
// process that could use them is gone too: a rank killed before its peers
// had mapped its segment left the name, and no later job in that
// namespace will sweep it.
void remove_shm_names_of(uint64_t ns) {
  const std::string field = "." + std::to_string(ns) + ".";
  DIR* d = opendir("/dev/shm");
  if (d == nullptr) return;
  while (struct dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind("lz-shm.", 0) != 0) continue;
    const size_t job_end = name.find('.', 7);
    if (job_end == std::string::npos || name.compare(job_end, field.size(), field) != 0) continue;
    struct stat st {};
    if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != geteuid()) continue;
    unlinkat(dirfd(d), e->d_name, 0);
  }
  closedir(d);
}

}  // namespace

int run_in_pid_namespace(const std::function<int()>& body, std::string* error) {
  // A PID namespace needs CAP_SYS_ADMIN where it is made: an ordinary user
  // without it owns the new namespaces through a user namespace made with
  // them (job_namespace.h; nested for a helper that a job in its own
  // namespace started on this machine).
  const bool own_userns = geteuid() != 0 && !userns::has_effective(userns::kCapSysAdmin);
  if (own_userns) {
    if (Status s = userns::enter(CLONE_NEWPID | CLONE_NEWNS); !s.ok()) {
      *error = s.message();
      return -1;
    }
  } else if (unshare(CLONE_NEWPID | CLONE_NEWNS) != 0) {
    *error = std::string("cannot create a PID namespace (unshare: ") + std::strerror(errno) +
             "); restoring ranks needs root, CAP_SYS_ADMIN, or a user namespace of the job's own";
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
  const int outer_proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
  std::fflush(nullptr);
  pid_t child = fork();
  if (child < 0) {
    *error = std::string("fork into the new PID namespace: ") + std::strerror(errno);
    sigprocmask(SIG_SETMASK, &old, nullptr);
    close(alive[0]);
    close(alive[1]);
    if (outer_proc >= 0) close(outer_proc);
    return -1;
  }
  if (child == 0) {
    close(alive[1]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    pollfd p{alive[0], POLLIN, 0};
    if (poll(&p, 1, 0) != 0) _exit(128 + SIGKILL);  // the parent is already gone (EOF)
    close(alive[0]);
    if (g_outer_proc < 0)
      g_outer_proc = outer_proc >= 0 ? outer_proc : open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
    else if (outer_proc >= 0)
      close(outer_proc);
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
      std::fprintf(stderr, "lazarus: error: cannot mount /proc for the new PID namespace: %s\n", std::strerror(errno));
      _exit(1);
    }
    reopen_stdio_files();
    // Lead a session inside the namespace: restored ranks join the
    // restorer's session (criu --shell-job), and CRIU can checkpoint them
    // again only if their session leader is in their PID namespace.
    setsid();
    int rc = body();
    std::fflush(nullptr);
    _exit(rc);
  }
  close(alive[0]);
  const int ns_fd = outer_proc >= 0 ? hold_pid_namespace(outer_proc) : -1;  // has a target once a child exists
  if (outer_proc >= 0) close(outer_proc);
  // Out here we only wait and forward signals: no capability needed.
  if (own_userns) userns::keep_only({}, {}).ignore();
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
  struct stat ns_st {};
  if (ns_fd >= 0 && fstat(ns_fd, &ns_st) == 0) remove_shm_names_of(static_cast<uint64_t>(ns_st.st_ino));
  if (ns_fd >= 0) close(ns_fd);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

pid_t outer_pid_of(pid_t pid) {
  if (g_outer_proc < 0) return pid;
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) return pid;
  pid_t outer = pid;
  const std::string path = "self/fdinfo/" + std::to_string(pidfd);
  if (FILE* f = fdopen(openat(g_outer_proc, path.c_str(), O_RDONLY | O_CLOEXEC), "r")) {
    char line[128];
    long v = 0;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "Pid: %ld", &v) == 1 && v > 0) outer = static_cast<pid_t>(v);
    std::fclose(f);
  }
  close(pidfd);
  return outer;
}

}  // namespace lz::userns
