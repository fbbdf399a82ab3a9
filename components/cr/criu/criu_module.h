// The cr/criu module: core-image checkpoint/restart of this process with CRIU.
//
// checkpoint() is the libcriu self-dump of criu_self_dump.h (BLCR's contract:
// kContinued in the process that goes on, kRestarted in a restored one);
// checkpoint_process() is the same self-dump for the BLCR library (always
// leaving the process running); restore() is criu_restore.h for the launcher
// and cr_restart. Settings come from the
// component's parameter table (cr_criu_*), read once at query time.
#pragma once

#include <cstdint>
#include <string>

#include "criu_self_dump.h"
#include "lazarus/frameworks/cr.h"
#include "lazarus/procfiles/file_record.h"

namespace lz::cr::criu {

struct CriuConfig {
  std::string binary;
  int log_level = 4;
  bool leave_running = true;
  bool shell_job = true;
  std::string hook;  // the post-dump hook that records the process's files (criu_files_hook.h)
  procfiles::Policy files = procfiles::Policy::kTruncate;  // cr_files
  uint64_t files_copy_max = procfiles::kDefaultCopyMax;    // cr_files_copy_max
};

class CriuModule final : public Module {
 public:
  explicit CriuModule(CriuConfig config) : config_(std::move(config)) {}
  uint64_t capabilities() const override {
    return kCapCoreImage | kCapNeedsPrivilege | kCapRestore | kCapSingleProcess | kCapRecordsFiles;
  }
  Status init() override;
  // Dumps into snap.dir. The process keeps running unless snap.terminate or
  // cr_criu_leave_running=false (then CRIU kills it after a good dump, and the
  // call returns only in restored processes).
  StatusOr<Outcome> checkpoint(const LocalSnapshot& snap) override;
  // Dumps into req.dir_fd and leaves the process running, whatever
  // cr_criu_leave_running says (the BLCR caller delivers cr_signal itself).
  StatusOr<Outcome> checkpoint_process(const ProcessCheckpoint& req) override;
  // Restores the process saved in req.dir with req.stdin_fd/stdout_fd/stderr_fd
  // as its stdio; the caller becomes a child subreaper and the restored
  // process its child. Needs the original pid free.
  StatusOr<pid_t> restore(const RestoreRequest& req) override;
  Status finalize() override { return Status::Ok(); }

  const CriuConfig& config() const { return config_; }

 private:
  SelfDumpOptions dump_options(int dir_fd, bool leave_running) const;

  CriuConfig config_;
};

}  // namespace lz::cr::criu
