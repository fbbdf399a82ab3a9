#include "criu_module.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "criu_restore.h"
#include "criu_self_dump.h"

namespace lz::cr::criu {

Status CriuModule::init() {
  if (access(config_.binary.c_str(), X_OK) != 0)
    return Unavailable("criu binary `" + config_.binary + "` is not executable");
  return Status::Ok();
}

SelfDumpOptions CriuModule::dump_options(int dir_fd, bool leave_running) const {
  SelfDumpOptions o;
  o.dir_fd = dir_fd;
  o.criu_binary = config_.binary;
  o.log_level = config_.log_level;
  o.leave_running = leave_running;
  o.shell_job = config_.shell_job;
  o.hook = config_.hook;
  o.files.policy = config_.files;
  o.files.copy_max = config_.files_copy_max;
  return o;
}

StatusOr<Outcome> CriuModule::checkpoint(const LocalSnapshot& snap) {
  int dir_fd = open(snap.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return ErrnoError("cannot open snapshot directory " + snap.dir, errno);
  SelfDumpOptions o = dump_options(dir_fd, config_.leave_running && !snap.terminate);
  o.restart_fd = snap.restart_fd;
  auto r = self_dump(o);
  close(dir_fd);
  return r;
}

StatusOr<Outcome> CriuModule::checkpoint_process(const ProcessCheckpoint& req) {
  if (req.dir_fd < 0) return InvalidArgument("checkpoint_process: no images directory (dir_fd is -1)");
  return self_dump(dump_options(req.dir_fd, /*leave_running=*/true));
}

StatusOr<pid_t> CriuModule::restore(const RestoreRequest& req) {
  RestoreOptions o;
  o.dir = req.dir;
  o.criu_binary = config_.binary;
  o.log_level = config_.log_level;
  o.stdin_fd = req.stdin_fd;
  o.stdout_fd = req.stdout_fd;
  o.stderr_fd = req.stderr_fd;
  o.restart_fd = req.restart_fd;
  o.rank = req.rank;
  o.move = req.move;
  o.keep_files = config_.files == procfiles::Policy::kKeep;
  o.file_report = req.file_report;
  return restore_image(o);
}

}  // namespace lz::cr::criu
