#include "bootstrap/coordinator_link.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "bootstrap/oob_bootstrap.h"
#include "bootstrap/pmi2_wire.h"
#include "lazarus/companion_library.h"
#include "lazarus/log.h"
#include "lazarus/strings.h"

namespace lz::rt {
namespace {

constexpr char kPidKey[] = "lz.pid";
constexpr char kCoordinatorKey[] = "lz.coordinator";
constexpr char kErrorPrefix[] = "error ";
constexpr int kAnswerTimeoutMs = 30000;

volatile sig_atomic_t g_coordinator_pid = 0;

void forward_checkpoint_signal(int) {
  const pid_t p = g_coordinator_pid;
  if (p > 0) kill(p, SIGUSR1);
}

// SIGUSR1 asks for a checkpoint (Slurm's --signal): rank 0 passes it on,
// the others must not die of it. A program's own handler stays.
void take_checkpoint_signal(pid_t coordinator) {
  struct sigaction old {};
  if (sigaction(SIGUSR1, nullptr, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) return;
  struct sigaction sa {};
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  if (coordinator > 0) {
    g_coordinator_pid = coordinator;
    sa.sa_handler = forward_checkpoint_signal;
  } else {
    sa.sa_handler = SIG_IGN;
  }
  sigaction(SIGUSR1, &sa, nullptr);
}

// The program as rank 0 runs it (the coordinator records it for restarts).
std::vector<std::string> own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> argv;
  for (std::string a; std::getline(in, a, '\0');) argv.push_back(a);
  return argv;
}

// Sockets this process shares with its parent (the process manager), past
// stdin/stdout/stderr: ones it let the rank inherit, e.g. Slurm's mpi/pmix
// TCP listener, which no core image could hold. The rank has opened none of
// its own yet (its transports open after this). A parent whose descriptors
// cannot be read (another user's) leaves them alone.
void close_inherited_sockets() {
  std::set<std::string> parents;
  const std::string pfd = "/proc/" + std::to_string(getppid()) + "/fd";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(pfd, ec)) {
    std::error_code lec;
    const std::string target = std::filesystem::read_symlink(e.path(), lec).string();
    if (!lec && target.rfind("socket:", 0) == 0) parents.insert(target);
  }
  if (parents.empty()) return;
  std::vector<int> shared;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    const int fd = std::atoi(e.path().filename().c_str());
    if (fd <= STDERR_FILENO) continue;
    std::error_code lec;
    const std::string target = std::filesystem::read_symlink(e.path(), lec).string();
    if (!lec && parents.count(target)) shared.push_back(fd);
  }
  for (int fd : shared) {
    log::debug("closing fd %d, a socket shared with the process manager (%d)", fd, static_cast<int>(getppid()));
    close(fd);
  }
}

struct Coordinator {
  std::string address;
  pid_t pid = 0;
};

Status write_all(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("writing to the job's coordinator", errno);
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

// Its one line: "ADDRESS PID", or "error REASON".
StatusOr<std::string> read_answer(int fd) {
  std::string line;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const int r = poll(&p, 1, kAnswerTimeoutMs);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return Timeout("the job's coordinator did not answer within 30 s");
    char c;
    const ssize_t n = read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Unavailable("the job's coordinator ended before it listened (its reason is on rank 0's stderr)");
    if (c == '\n') return line;
    line += c;
  }
}

StatusOr<Coordinator> start_coordinator(const Bootstrap& manager, const std::vector<std::string>& pids) {
  const std::string dir = lazarus_library_dir();
  const std::string exe = (dir.empty() ? std::string(".") : dir) + "/../bin/lazarus";
  if (access(exe.c_str(), X_OK) != 0)
    return ErrnoError("cannot run " + exe +
                          " (a job started without lazarus run is coordinated by the lazarus command installed "
                          "beside liblazarus)",
                      errno);
  const JobInfo& job = manager.job();
  std::vector<std::string> nodes;
  for (uint64_t n : job.node_of_rank) nodes.push_back(std::to_string(n));
  std::vector<std::string> args{
      exe,       "coordinate",          "--job",  job.job_id,          "--hosts", str::join(job.hostname_of_rank, ","),
      "--nodes", str::join(nodes, ","), "--pids", str::join(pids, ",")};
  args.push_back("--");
  for (std::string& a : own_command_line()) args.push_back(std::move(a));
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) return ErrnoError("pipe", errno);
  if (pipe2(out, O_CLOEXEC) != 0) {
    const int err = errno;
    close(in[0]), close(in[1]);
    return ErrnoError("pipe", err);
  }
  const pid_t child = fork();
  if (child == 0) {
    // Out of rank 0's process tree (a core image of rank 0 takes its
    // children along), and of its session.
    setsid();
    const pid_t grandchild = fork();
    if (grandchild != 0) _exit(grandchild < 0 ? 1 : 0);
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    // Nothing else of the rank's: its PMI socket above all.
    syscall(SYS_close_range, 3U, ~0U, 0U);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  const int fork_errno = errno;
  close(in[0]);
  close(out[1]);
  const int to = in[1], from = out[0];
  auto done = [&] {
    close(to);
    close(from);
  };
  if (child < 0) {
    done();
    return ErrnoError("fork", fork_errno);
  }
  int st = 0;
  while (waitpid(child, &st, 0) < 0 && errno == EINTR) {
  }
  Status wrote = write_all(to, pmi2::to_hex(manager.secret()) + "\n");
  close(to);
  if (!wrote.ok()) {
    close(from);
    return wrote;
  }
  auto line = read_answer(from);
  close(from);
  if (!line.ok()) return line.status();
  if (line->rfind(kErrorPrefix, 0) == 0) return Unavailable(line->substr(sizeof kErrorPrefix - 1));
  const size_t sp = line->rfind(' ');
  Coordinator c;
  c.address = line->substr(0, sp);
  c.pid = sp == std::string::npos ? 0 : static_cast<pid_t>(std::atoi(line->c_str() + sp + 1));
  if (c.address.empty() || c.pid <= 0) return ProtocolError("the job's coordinator answered '" + *line + "'");
  return c;
}

}  // namespace

StatusOr<std::unique_ptr<Bootstrap>> attach_coordinator(std::unique_ptr<Bootstrap> manager, double connect_timeout) {
  const JobInfo& job = manager->job();
  LZ_RETURN_IF_ERROR(manager->put(kPidKey, std::to_string(getpid())));
  LZ_RETURN_IF_ERROR(manager->fence());
  Status failed;
  pid_t coordinator = 0;
  if (job.rank == 0) {
    std::vector<std::string> pids;
    for (int r = 0; r < job.size; ++r) {
      LZ_ASSIGN_OR_RETURN(std::string pid, manager->get(r, kPidKey));
      pids.push_back(std::move(pid));
    }
    auto started = start_coordinator(*manager, pids);
    if (started.ok()) {
      coordinator = started->pid;
      LZ_RETURN_IF_ERROR(manager->put(kCoordinatorKey, started->address));
    } else {
      failed = started.status();
      (void)manager->put(kCoordinatorKey, kErrorPrefix + failed.message());
    }
  }
  LZ_RETURN_IF_ERROR(manager->fence());
  if (!failed.ok()) return failed.with_context("starting the job's coordinator (checkpointing is on)");
  LZ_ASSIGN_OR_RETURN(std::string address, manager->get(0, kCoordinatorKey));
  if (address.rfind(kErrorPrefix, 0) == 0)
    return Unavailable("rank 0 could not start the job's coordinator (checkpointing is on): " +
                       address.substr(sizeof kErrorPrefix - 1));
  LZ_ASSIGN_OR_RETURN(auto oob, OobBootstrap::connect(job, manager->secret(), address, connect_timeout));
  if (Status s = manager->finalize(); !s.ok())
    log::warn("closing the process manager's channel: %s", s.message().c_str());
  manager.reset();
  close_inherited_sockets();
  take_checkpoint_signal(coordinator);
  log::debug("coordinated by %s", address.c_str());
  return std::unique_ptr<Bootstrap>(std::move(oob));
}

}  // namespace lz::rt
