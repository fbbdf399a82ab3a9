// cr_checkpoint --pid P: asks a libcr process (cr_run, or a program that
// called cr_init) to checkpoint itself, waits, and says where the image is.
// A thin client of cr_request_checkpoint()/cr_poll_checkpoint().
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "lazarus/libcr.h"

namespace {

bool holds_image(const std::string& dir) { return access((dir + "/inventory.img").c_str(), F_OK) == 0; }

// Removes what a previous checkpoint wrote (CRIU images, logs, Lazarus meta).
void clear_image(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    bool ours = (n.size() > 4 && n.compare(n.size() - 4, 4, ".img") == 0) || n.rfind("lazarus-criu.", 0) == 0 ||
                n == "dump.log" || n == "restore.log" || n == "restore.pid";
    if (ours) unlink((dir + "/" + n).c_str());
  }
  closedir(d);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Checkpoint a running process into a directory of CRIU images.\n\n"
      "The process must be checkpointable: started with `cr_run PROG`, or a program\n"
      "that called cr_init() (lazarus/libcr.h). Its checkpoint callbacks run, the\n"
      "image is written by CRIU, and the process goes on (unless --term/--kill).\n"
      "Bring it back with `cr_restart DIR`.",
      "cr_checkpoint"};
  pid_t pid = 0;
  std::string file, dir;
  bool term = false, kill_it = false, clobber = false, quiet = false;
  int sig = 0;
  unsigned timeout = 0;
  app.add_option("-p,--pid,pid", pid, "Process to checkpoint")->required()->check(CLI::PositiveNumber);
  app.add_option("-f,--file", file,
                 "Where the image goes. With CRIU an image is a DIRECTORY of files: F is created\n"
                 "(mode 0700) if missing. Default: ./context.<PID>");
  app.add_option("-d,--dir", dir, "Put the image in DIR/context.<PID> (DIR must exist)");
  app.add_flag("--term", term, "Send SIGTERM to the process once its image is saved");
  app.add_flag("--kill", kill_it, "Send SIGKILL to the process once its image is saved");
  app.add_option("--signal", sig, "Send this signal number to the process once its image is saved");
  app.add_option("-t,--timeout", timeout, "Give up after this many seconds (0: wait as long as it takes)");
  app.add_flag("--clobber", clobber, "Overwrite an image already in the destination directory");
  app.add_flag("-q,--quiet", quiet, "Print nothing on success");
  app.footer(
      "Exit status: 0 when the image is complete; 1 otherwise, with the reason\n"
      "(the process is not a libcr process, a callback refused, CRIU failed: see\n"
      "dump.log in the image directory).\n"
      "An ordinary user's process must have been started by cr_run (or restored by\n"
      "cr_restart), which give it CAP_CHECKPOINT_RESTORE in a user namespace of its\n"
      "own; root's need not. A checkpointed process must not hold\n"
      "IPv4/IPv6 sockets (CRIU 4.1.1 cannot save them on kernels >= 6.16).");
  CLI11_PARSE(app, argc, argv);

  if (!file.empty() && !dir.empty()) {
    std::fprintf(stderr, "cr_checkpoint: give --file or --dir, not both\n");
    return 2;
  }
  if (term + kill_it + (sig != 0) > 1) {
    std::fprintf(stderr, "cr_checkpoint: give one of --term, --kill, --signal\n");
    return 2;
  }
  if (term) sig = SIGTERM;
  if (kill_it) sig = SIGKILL;
  std::string dest = !file.empty() ? file : (dir.empty() ? "." : dir) + "/context." + std::to_string(pid);

  if (kill(pid, 0) != 0 && errno == ESRCH) {
    std::fprintf(stderr, "cr_checkpoint: no process with pid %d\n", static_cast<int>(pid));
    return 1;
  }
  struct stat st {};
  if (stat(dest.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
    std::fprintf(stderr, "cr_checkpoint: %s exists and is not a directory (a CRIU image is a directory)\n",
                 dest.c_str());
    return 1;
  }
  const bool created = mkdir(dest.c_str(), 0700) == 0;
  // A request that fails before anything is written leaves no empty directory behind.
  auto undo = [&] {
    if (created) rmdir(dest.c_str());
  };
  if (!created && errno != EEXIST) {
    std::fprintf(stderr, "cr_checkpoint: cannot create %s: %s\n", dest.c_str(), std::strerror(errno));
    return 1;
  }
  if (holds_image(dest)) {
    if (!clobber) {
      std::fprintf(stderr, "cr_checkpoint: %s already holds an image (use --clobber to overwrite it)\n", dest.c_str());
      return 1;
    }
    clear_image(dest);
  }
  int fd = open(dest.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    std::fprintf(stderr, "cr_checkpoint: cannot open %s: %s\n", dest.c_str(), std::strerror(errno));
    return 1;
  }
  char real[PATH_MAX];
  std::string shown = realpath(dest.c_str(), real) ? real : dest;

  cr_checkpoint_args_t args;
  cr_initialize_checkpoint_args_t(&args);
  args.cr_target = pid;
  args.cr_fd = fd;
  args.cr_signal = sig;
  args.cr_timeout = timeout;
  cr_checkpoint_handle_t handle;
  if (cr_request_checkpoint(&args, &handle) != 0) {
    const char* why = *cr_lz_last_error() ? cr_lz_last_error() : cr_strerror(errno);
    std::fprintf(stderr, "cr_checkpoint: cannot checkpoint pid %d: %s\n", static_cast<int>(pid), why);
    close(fd);
    undo();
    return 1;
  }
  close(fd);
  int rc;
  do {
    rc = cr_poll_checkpoint(&handle, nullptr);
  } while (rc == CR_POLL_CHKPT_ERR_PRE && errno == EINTR);
  if (rc == 0) {
    std::fprintf(stderr, "cr_checkpoint: pid %d did not complete its checkpoint within %u s\n", static_cast<int>(pid),
                 timeout);
    return 1;
  }
  if (rc < 0) {
    const char* why = *cr_lz_last_error() ? cr_lz_last_error() : cr_strerror(errno);
    std::fprintf(stderr, "cr_checkpoint: checkpoint of pid %d failed: %s\n", static_cast<int>(pid), why);
    return 1;
  }
  if (!quiet)
    std::printf(
        "cr_checkpoint: pid %d checkpointed to %s (a directory of CRIU images)%s\n"
        "restart it with: cr_restart %s\n",
        static_cast<int>(pid), shown.c_str(), sig ? "; the process was then signalled" : "", shown.c_str());
  return 0;
}
