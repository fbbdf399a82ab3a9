// cr_restart IMAGE: brings back a process saved by cr_checkpoint (or by a
// libcr program's own request), with its stdout/stderr (and a piped stdin)
// connected to cr_restart's, waits for it and exits with its status. The
// restore is the selected cr module's (backend.h): any back end with the
// `restore` capability, cr/criu by default as root.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "backend.h"
#include "lazarus/userns/job_namespace.h"
#include "lazarus/userns/pid_namespace.h"

namespace {

// Dies of `sig` as the restored process did, as BLCR's cr_restart does;
// 128 + sig if this process survives it.
int die_of(int sig) {
  std::fflush(stdout);
  signal(sig, SIG_DFL);
  raise(sig);
  return 128 + sig;
}

volatile sig_atomic_t g_child = 0;

void forward(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

// A regular file written for a BLCR-style cr_fd names the image directory.
std::string image_dir_of(const std::string& arg) {
  struct stat st {};
  if (stat(arg.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    std::ifstream in(arg);
    std::string tag, dir;
    if (in >> tag >> dir && tag == "lazarus-criu-images") return dir;
  }
  return arg;
}

// Restores the image and waits for the process; its exit status.
int restore_and_wait(const std::string& image, const std::vector<std::pair<std::string, std::string>>& mca) {
  auto backend = lz::libcr::Backend::open(lz::cr::kCapRestore, "restore a process", mca);
  if (!backend.ok()) {
    std::fprintf(stderr, "cr_restart: %s\n", backend.status().message().c_str());
    return 1;
  }
  lz::cr::RestoreRequest req;
  req.dir = image_dir_of(image);
  req.stdin_fd = 0;
  req.stdout_fd = 1;
  req.stderr_fd = 2;

  // Signals that arrive while criu runs are held and forwarded afterwards.
  sigset_t fwd, old;
  sigemptyset(&fwd);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2}) sigaddset(&fwd, s);
  sigprocmask(SIG_BLOCK, &fwd, &old);
  auto pid = backend->module().restore(req);
  if (!pid.ok()) {
    std::fprintf(stderr, "cr_restart: %s\n", pid.status().message().c_str());
    return 1;
  }
  g_child = *pid;
  struct sigaction sa {};
  sa.sa_handler = &forward;
  sa.sa_flags = SA_RESTART;
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2}) sigaction(s, &sa, nullptr);
  sigprocmask(SIG_SETMASK, &old, nullptr);

  // We are a subreaper: besides the restored process, orphans of its later
  // checkpoints (criu helpers) come to us and are reaped here.
  int status = 0;
  for (;;) {
    pid_t r = waitpid(-1, &status, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      std::fprintf(stderr, "cr_restart: lost track of restored process %d: %s\n", static_cast<int>(*pid),
                   std::strerror(errno));
      return 1;
    }
    if (r == *pid) break;
    // An adopted criu helper that led its own group takes the group with it
    // (children it left stopped would hold its socket open; see
    // launcher/job.cpp, Job::reap).
    kill(-r, SIGKILL);
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return die_of(WTERMSIG(status));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Restart a process from the image written by cr_checkpoint.\n\n"
      "IMAGE is the directory of CRIU images (or the file a libcr program named as\n"
      "its checkpoint destination, which points to that directory). The process\n"
      "comes back under its original pid, which must be free; its stdout and stderr\n"
      "(and its stdin if that was a pipe) are cr_restart's. cr_restart waits for it,\n"
      "forwards SIGINT/SIGTERM/SIGHUP/SIGQUIT/SIGUSR1/SIGUSR2 to it, and exits with\n"
      "its exit status (or dies of the same signal).",
      "cr_restart"};
  std::string image, criu;
  int log_level = -1;
  std::vector<std::pair<std::string, std::string>> mca;
  app.add_option("image", image, "Image directory (or pointer file)")->required();
  app.add_option("--mca", mca, "Set parameter NAME to VALUE (highest precedence; repeatable), e.g. --mca cr criu")
      ->type_name("NAME VALUE")
      ->allow_extra_args(false);
  app.add_option("--criu", criu,
                 "criu binary for the cr/criu back end (--mca cr_criu_binary; default: $LZ_MCA_cr_criu_binary or "
                 "the one found at build time)");
  app.add_option("--log-level", log_level, "CRIU log level for IMAGE/restore.log (--mca cr_criu_log_level)")
      ->check(CLI::Range(0, 4));
  app.footer(
      "The back end is the cr component `lazarus run` would select (parameter `cr`);\n"
      "it must have the `restore` capability. As an ordinary user the process is\n"
      "restored in user and PID namespaces of its own (its pid is free there), where\n"
      "CRIU holds CAP_CHECKPOINT_RESTORE. Exit status 1 with a message when the image\n"
      "is missing, incomplete, truncated, or its pid is in use, or when no back end\n"
      "can restore here.");
  CLI11_PARSE(app, argc, argv);

  // The criu shorthands go first: an explicit --mca of the same name wins.
  if (!criu.empty()) mca.insert(mca.begin(), {"cr_criu_binary", criu});
  if (log_level >= 0) mca.insert(mca.begin(), {"cr_criu_log_level", std::to_string(log_level)});
  // An ordinary user's process comes back in user and PID namespaces of its
  // own, where its pid is free and CRIU holds what it needs
  // (lazarus/userns/job_namespace.h); this process waits outside.
  lz::userns::allow_entry();
  if (lz::userns::wanted()) {
    std::string err;
    int rc = lz::userns::run_in_pid_namespace([&] { return restore_and_wait(image, mca); }, &err);
    if (rc < 0) {
      std::fprintf(stderr, "cr_restart: %s\n", err.c_str());
      return 1;
    }
    // The namespace's pid 1 cannot die of its own signal: it reports 128 +
    // the signal the process died of, and we die of it here, as BLCR's does.
    return rc > 128 && rc < 128 + NSIG ? die_of(rc - 128) : rc;
  }
  return restore_and_wait(image, mca);
}
