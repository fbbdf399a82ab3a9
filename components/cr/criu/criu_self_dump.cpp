#include "criu_self_dump.h"

#ifdef LZ_HAVE_LIBCRIU
#include <criu/criu.h>
#endif
#include <fcntl.h>
#include <signal.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <mutex>
#include <vector>

#include "criu_dumpable.h"
#include "criu_env.h"
#include "criu_image_meta.h"
#include "criu_swrk.h"
#include "dump_sigpipe_guard.h"
#include "lazarus/userns/reopen.h"

namespace lz::cr::criu {
namespace {

std::mutex g_dump_mutex;

std::string dir_path_of(int dir_fd) {
  const std::string path = userns::path_of_fd(dir_fd);
  return path.empty() ? "<images directory>" : path;
}

}  // namespace

std::string criu_log_errors(const std::string& log, int max_lines) {
  std::ifstream in(log);
  std::deque<std::string> errors;
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("Error") == std::string::npos) continue;
    errors.push_back(line);
    if (static_cast<int>(errors.size()) > max_lines) errors.pop_front();
  }
  std::string out;
  for (const auto& e : errors) out += (out.empty() ? "" : "\n") + e;
  return out;
}

StatusOr<Outcome> self_dump(const SelfDumpOptions& o) {
#ifndef LZ_HAVE_LIBCRIU
  (void)o;
  (void)&dir_path_of;
  return Unavailable("Lazarus was built without libcriu (no CRIU >= 4.1 found); run scripts/setup and rebuild");
#else
  if (o.dir_fd < 0) return InvalidArgument("self_dump: no images directory");
  // getsid() answers 0 when the session leader lives outside this process's
  // PID namespace (a CI runner or container that unshared the namespace):
  // CRIU then refuses with "A session leader ... is outside of its pid
  // namespace". Say so before CRIU does, with the fix.
  if (getsid(0) == 0)
    return Unavailable("pid " + std::to_string(getpid()) +
                              " cannot be checkpointed: its session leader is outside its PID namespace, which "
                              "CRIU cannot save; start it in its own session (setsid; `lazarus run` and "
                              "`cr_run` do this)");
  std::lock_guard<std::mutex> lock(g_dump_mutex);
  const std::string dir = dir_path_of(o.dir_fd);
  LZ_RETURN_IF_ERROR(check_dumpable(getpid()));

  LZ_RETURN_IF_ERROR(write_meta(o.dir_fd, current_process_meta(o.dir_fd, o.leave_running, o.restart_fd)).with_context(dir));
  // The hook is named in a CRIU configuration file beside the images, which
  // `criu swrk` reads at its start (libcriu cannot pass action scripts).
  std::vector<std::string> env = criu_environment();
  if (!o.hook.empty()) {
    FilesRequest files = o.files;
    files.skip_fds.push_back(o.dir_fd);
    LZ_RETURN_IF_ERROR(write_files_request(o.dir_fd, files, o.hook).with_context(dir));
    const std::string here = dir[0] == '/' ? dir : "/proc/" + std::to_string(getpid()) + "/fd/" +
                                                       std::to_string(o.dir_fd);
    env.push_back("CRIU_CONFIG_FILE=" + here + "/" + kCriuConfig);
  }
  // A job rank (it has a restart channel) is the child of a launcher that
  // adopts the criu service and must take it along if it dies.
  LZ_ASSIGN_OR_RETURN(Swrk swrk, Swrk::start(o.criu_binary, /*die_with_reaper=*/o.restart_fd >= 0, env));

  if (criu_init_opts() != 0) return Internal("criu_init_opts failed");
  criu_set_service_fd(swrk.fd());
  criu_set_pid(getpid());
  criu_set_images_dir_fd(o.dir_fd);
  criu_set_leave_running(o.leave_running);
  criu_set_shell_job(o.shell_job);
  criu_set_unprivileged(geteuid() != 0);
  criu_set_log_level(o.log_level);
  if (criu_set_log_file(o.log_file.c_str()) != 0) return Internal("criu_set_log_file failed");

  int ret, err;
  {
    DumpSigpipeGuard sigpipe_guard;
    ret = criu_dump();
    err = errno;
  }
  if (ret == 1) return Outcome::kRestarted;
  if (ret == 0) {
    // The continuing process: record sizes so a truncated image is refused by name.
    Status s = write_file_list(o.dir_fd);
    if (!s.ok()) return s.with_context("dump of pid " + std::to_string(getpid()) + " into " + dir);
    return Outcome::kContinued;
  }
  std::string log = dir + "/" + o.log_file;
  std::string why = criu_log_errors(log);
  std::string msg = "criu dump of pid " + std::to_string(getpid()) + " into " + dir + " failed (libcriu " +
                    std::to_string(ret) + ": " + std::strerror(ret < 0 ? -ret : err) + ")";
  if (std::string hook_error = files_error(o.dir_fd); !hook_error.empty()) return IoError(msg + ": " + hook_error);
  // A full store is the likeliest cause and CRIU may not even manage to log
  // it (its log lives there too): say it from what the file system reports.
  struct statvfs fs;
  if (fstatvfs(o.dir_fd, &fs) == 0) {
    const unsigned long long free_bytes = static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize;
    if (free_bytes < (1ull << 20))
      msg += "; No space left on device: the file system of " + dir + " has " + std::to_string(free_bytes) +
             " bytes free";
  }
  if (!why.empty())
    msg += "; " + log + " says:\n" + why;
  else
    msg += "; see " + log;
  return IoError(msg);
#endif
}

}  // namespace lz::cr::criu
