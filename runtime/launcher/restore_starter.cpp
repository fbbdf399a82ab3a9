#include "launcher/restore_starter.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

#include "launcher/host_list.h"
#include "lazarus/snapshot_layout.h"
#include "oob/restart_info.h"

namespace lz::launcher {
namespace {

std::string env_value(const std::vector<std::string>& env, const std::string& name) {
  const std::string prefix = name + "=";
  for (const auto& e : env)
    if (e.rfind(prefix, 0) == 0) return e.substr(prefix.size());
  return {};
}

// In our own PID namespace (we are pid 1), moves the pid counter far above
// the pids the ranks had, before each restore: restored pids are typically
// consecutive, and a criu process forked right after restoring rank r would
// otherwise take rank r+1's pid ("Can't fork for <pid>: File exists").
void park_pid_counter() {
  if (getpid() != 1) return;  // never touch the counter of a shared namespace
  long pid_max = 32768;
  if (FILE* f = std::fopen("/proc/sys/kernel/pid_max", "r")) {
    if (std::fscanf(f, "%ld", &pid_max) != 1) pid_max = 32768;
    std::fclose(f);
  }
  if (FILE* f = std::fopen("/proc/sys/kernel/ns_last_pid", "w")) {
    std::fprintf(f, "%ld", pid_max - pid_max / 8);
    std::fclose(f);
  }
}

}  // namespace

Status RestoreStarter::can_start_on(const std::string& host) const {
  if (is_local_host(host)) return Status::Ok();
  return Unimplemented("host '" + host + "' is not this host, and restoring ranks on other hosts is not supported yet");
}

StatusOr<StartedRank> RestoreStarter::start(const RankSpec& spec) {
  int out[2], err[2], rp[2];
  if (pipe2(out, O_CLOEXEC) != 0) return ErrnoError("pipe2", errno);
  oob::Fd out_r(out[0]), out_w(out[1]);
  if (pipe2(err, O_CLOEXEC) != 0) return ErrnoError("pipe2", errno);
  oob::Fd err_r(err[0]), err_w(err[1]);
  if (pipe2(rp, O_CLOEXEC) != 0) return ErrnoError("pipe2", errno);
  oob::Fd restart_r(rp[0]), restart_w(rp[1]);

  oob::RestartInfo info;
  info.job_id = env_value(spec.env, "LZ_JOB_ID");
  info.address = env_value(spec.env, "LZ_OOB_ADDR");
  info.secret = spec.secret;
  info.rank = spec.rank;
  info.snapshot_seq = seq_;
  const std::string text = oob::encode_restart_info(info);
  // A few hundred bytes: fits the pipe buffer, so no reader is needed yet.
  if (::write(restart_w.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    return ErrnoError("writing the restart pipe of rank " + std::to_string(spec.rank), errno);
  restart_w.reset();

  park_pid_counter();
  cr::RestoreRequest req;
  req.dir = snapshot_rank_dir(dir_, spec.rank);
  req.rank = spec.rank;
  req.stdout_fd = out_w.get();
  req.stderr_fd = err_w.get();
  req.restart_fd = restart_r.get();
  req.move = seq_ == 0;
  std::vector<std::string> files;
  req.file_report = &files;
  auto pid = cr_.restore(req);
  for (const std::string& line : files) std::fprintf(stderr, "lazarus: rank %d: %s\n", spec.rank, line.c_str());
  // criu restore leaves its log, pid file and statistics in the image
  // directory; a committed snapshot must stay exactly what COMMITTED lists
  // (or it no longer verifies), so they go. A failure's message already
  // quotes the log's errors.
  for (const char* f : {"restore.log", "restore.pid", "stats-restore"}) unlink((req.dir + "/" + f).c_str());
  if (!pid.ok()) return pid.status();
  fcntl(out_r.get(), F_SETFL, O_NONBLOCK);
  fcntl(err_r.get(), F_SETFL, O_NONBLOCK);
  StartedRank r;
  r.pid = *pid;
  r.out = std::move(out_r);
  r.err = std::move(err_r);
  return r;
}

}  // namespace lz::launcher
