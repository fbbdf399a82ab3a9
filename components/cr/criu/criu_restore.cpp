#include "criu_restore.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "criu_env.h"
#include "criu_image_meta.h"
#include "criu_self_dump.h"
#include "lazarus/log.h"
#include "lazarus/procfiles/file_rollback.h"
#include "lazarus/procfiles/file_scan.h"
#include "lazarus/snapshot_layout.h"

extern char** environ;

namespace lz::cr::criu {
namespace {

// Inherited descriptors are moved to these numbers in the criu child.
constexpr int kFirstInheritFd = 10;

std::string comm_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string c;
  std::getline(in, c);
  return c;
}

// The process's files back to their state at the checkpoint, merged with
// the other ranks of its snapshot that held the same files (file_rollback.h).
Status restore_files(const RestoreOptions& o) {
  const std::string entry = o.rank >= 0 ? snapshot_rank_entry(o.rank) : std::string();
  const bool in_job = !entry.empty() && o.dir.size() > entry.size() &&
                      o.dir.compare(o.dir.size() - entry.size(), entry.size(), entry) == 0;
  const std::string from = in_job ? o.dir.substr(0, o.dir.size() - entry.size() - 1) : o.dir;
  // A file that cannot be put back is no damaged or unfinished image (the
  // helper retries those): kUnavailable, naming the file.
  auto rb = procfiles::FileRollback::load(from);
  if (!rb.ok()) return Unavailable(rb.status().message());
  procfiles::RollbackOptions ro;
  ro.mode = o.move ? procfiles::RollbackMode::kMove : procfiles::RollbackMode::kRollBack;
  ro.keep_all = o.keep_files;
  auto r = rb->apply(in_job ? o.rank : -1, ro);
  if (!r.ok()) return Unavailable(r.status().message());
  for (const std::string& line : r->done) {
    if (o.file_report != nullptr) o.file_report->push_back(line);
    else log::warn("%s", line.c_str());
  }
  for (const std::string& line : r->warnings) {
    if (o.file_report != nullptr) o.file_report->push_back("warning: " + line);
    else log::warn("%s", line.c_str());
  }
  return Status::Ok();
}

}  // namespace

Status check_image(const std::string& dir) {
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) return NotFound("image directory " + dir + " does not exist");
  if (!S_ISDIR(st.st_mode)) return InvalidArgument(dir + " is not a directory of CRIU images");
  if (access((dir + "/inventory.img").c_str(), R_OK) != 0)
    return DataLoss("image directory " + dir + " holds no CRIU image (inventory.img is missing)");
  LZ_ASSIGN_OR_RETURN(ImageMeta meta, read_meta(dir));
  Status files = verify_file_list(dir);
  if (files.code() == Code::kNotFound) {
    if (meta.leave_running)
      return DataLoss("image directory " + dir + " is incomplete: the checkpoint of pid " + std::to_string(meta.pid) +
                      " did not finish (" + kFilesFile + " is missing; see " + dir + "/dump.log)");
    // A dump that ended the process (--term) leaves no size list: CRIU's own
    // log must say the dump finished, else the process died half-way.
    std::ifstream log(dir + "/dump.log");
    std::string line;
    bool finished = false;
    while (std::getline(log, line))
      if (line.find("Dumping finished successfully") != std::string::npos) finished = true;
    if (!finished)
      return DataLoss("image directory " + dir + " is incomplete: the dump of pid " + std::to_string(meta.pid) +
                      " did not finish (" + dir + "/dump.log does not say \"Dumping finished successfully\")");
  } else if (!files.ok()) {
    return files;
  }
  if (kill(meta.pid, 0) == 0 || errno == EPERM)
    return Unavailable("pid " + std::to_string(meta.pid) + " recorded in " + dir + " is in use (by `" +
                       comm_of(meta.pid) +
                       "`); CRIU restores a process under its original pid: stop that "
                       "process first");
  return Status::Ok();
}

StatusOr<pid_t> restore_image(const RestoreOptions& opts) {
  LZ_RETURN_IF_ERROR(check_image(opts.dir));
  RestoreOptions o = opts;
  char real[PATH_MAX];
  if (realpath(opts.dir.c_str(), real) != nullptr) o.dir = real;  // criu resolves relative paths against -D
  LZ_ASSIGN_OR_RETURN(ImageMeta meta, read_meta(o.dir));
  if (o.criu_binary.empty() || access(o.criu_binary.c_str(), X_OK) != 0)
    return Unavailable("criu binary `" + o.criu_binary + "` is not executable");
  LZ_RETURN_IF_ERROR(restore_files(o));

  int dir_fd = open(o.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return ErrnoError("cannot open " + o.dir, errno);
  int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);

  // (source descriptor in this process, CRIU key). One entry per key: fds that
  // shared a resource at dump time share the descriptor we give back.
  std::vector<std::pair<int, std::string>> inherit;
  auto add = [&](int src, const std::string& key) {
    if (src < 0 || key.empty()) return;
    for (const auto& [s, k] : inherit)
      if (k == key) return;
    inherit.emplace_back(src, key);
  };
  for (int want : {1, 2, 0}) {
    for (const auto& k : meta.stdio) {
      if (k.fd != want || k.key.empty()) continue;
      if (want == 0) {
        // A file stdin (/dev/null, an input file) is reopened by CRIU; a pipe or
        // socket whose peer is gone is replaced.
        if (k.kind == "file") continue;
        add(o.stdin_fd >= 0 ? o.stdin_fd : null_fd, k.key);
      } else {
        add(want == 1 ? (o.stdout_fd >= 0 ? o.stdout_fd : 1) : (o.stderr_fd >= 0 ? o.stderr_fd : 2), k.key);
      }
    }
  }
  add(dir_fd, meta.images_dir.key);
  // A restart channel nobody supplies becomes /dev/null: the process reads
  // end-of-file there, as it does when it continues.
  if (!meta.restart_channel.key.empty()) add(o.restart_fd >= 0 ? o.restart_fd : null_fd, meta.restart_channel.key);

  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    int err = errno;
    close(dir_fd);
    if (null_fd >= 0) close(null_fd);
    return ErrnoError("prctl(PR_SET_CHILD_SUBREAPER)", err);
  }

  const std::string pidfile = o.dir + "/restore.pid";
  unlink(pidfile.c_str());
  // --leave-stopped: criu resumes a process thread by thread (PTRACE_DETACH);
  // a process that finishes at once (its work was done before the dump) exits
  // while criu still detaches its other threads, and criu then calls the whole
  // restore failed ("Unable to detach <tid>: No such process", CRIU issue
  // 2072; 5 of 30 restores of a short program here). Stopped, nothing runs
  // until every thread is detached and criu has exited; SIGCONT below resumes it.
  std::vector<std::string> args = {o.criu_binary, "restore",     "-D",
                                   o.dir,         "--shell-job", "--restore-detached",
                                   "--leave-stopped",
                                   "--pidfile",   pidfile,       "-v" + std::to_string(o.log_level),
                                   "-o",          "restore.log"};
  // A job rank (it held a restart channel) carries its launcher's
  // parent-death SIGKILL in the image: restored as criu's child it would die
  // when criu exits. --restore-sibling makes it our child, so the signal
  // follows us, the restarter.
  if (!meta.restart_channel.key.empty()) args.push_back("--restore-sibling");
  if (geteuid() != 0) args.push_back("--unprivileged");
  for (size_t i = 0; i < inherit.size(); ++i) {
    args.push_back("--inherit-fd");
    args.push_back("fd[" + std::to_string(kFirstInheritFd + i) + "]:" + inherit[i].second);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> extra_env = criu_environment();
  std::vector<char*> envp;
  for (char** e = environ; e && *e; ++e) envp.push_back(*e);
  for (auto& e : extra_env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<int> sources;
  for (const auto& [s, k] : inherit) sources.push_back(s);
  std::vector<int> moved(sources.size(), -1);  // filled in the child: no allocation after fork()
  const int high = kFirstInheritFd + static_cast<int>(sources.size()) + 10;

  pid_t child = _Fork();  // no atfork handlers: only async-signal-safe calls follow
  if (child < 0) {
    int err = errno;
    close(dir_fd);
    if (null_fd >= 0) close(null_fd);
    return ErrnoError("fork for criu restore", err);
  }
  if (child == 0) {
    // Sources may sit on the target numbers: move them above all targets first.
    for (size_t i = 0; i < sources.size(); ++i) moved[i] = fcntl(sources[i], F_DUPFD, high);
    for (size_t i = 0; i < moved.size(); ++i)
      if (moved[i] < 0 || dup2(moved[i], kFirstInheritFd + static_cast<int>(i)) < 0) _exit(126);
    syscall(SYS_close_range, kFirstInheritFd + static_cast<unsigned>(moved.size()), ~0u, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGCHLD, SIG_DFL);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(dir_fd);
  if (null_fd >= 0) close(null_fd);

  int status = 0;
  pid_t r;
  do {
    r = waitpid(child, &status, 0);
  } while (r < 0 && errno == EINTR);
  const std::string log = o.dir + "/restore.log";
  if (r != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string why = criu_log_errors(log);
    std::string msg = "criu restore from " + o.dir + " failed (" +
                      (r == child && WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                                       : std::string("abnormal end")) +
                      ")";
    msg += why.empty() ? "; see " + log : "; " + log + " says:\n" + why;
    return IoError(msg);
  }
  std::ifstream pf(pidfile);
  pid_t pid = 0;
  if (!(pf >> pid) || pid <= 0) return Internal("criu restore succeeded but wrote no pid to " + pidfile);
  for (pid_t p : procfiles::process_tree(pid)) kill(p, SIGCONT);  // the dumped tree came back whole
  return pid;
}

}  // namespace lz::cr::criu
