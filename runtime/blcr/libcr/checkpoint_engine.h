// One checkpoint of this process, from "requested" to "over": the BLCR
// sequence described in lazarus/libcr.h (defer while in critical sections,
// thread-context callbacks nested newest first, then signal-context callbacks
// in their threads, then the selected cr module's checkpoint_process() (see
// backend.h), then everybody resumes).
//
// Runs on libcr's service thread only:
//   engine.begin(req);                 // PENDING, waits for critical sections, ACTIVE
//   int outcome = engine.run();        // 0 continued, 1 restarted, -errno
//   ... record the result, re-create the control socket ...
//   engine.end();                      // IDLE, blocked cr_enter_cs/cr_leave_cs resume
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <string>

#include "lazarus/frameworks/cr.h"
#include "lazarus/libcr.h"

namespace lz::libcr {

struct CheckpointRequest {
  int dir_fd = -1;   // images directory (owned by the caller of begin())
  std::string dest;  // its path, for cr_get_checkpoint_info and messages
  int signal = 0;
  pid_t requester = 0;
};

class CheckpointEngine {
 public:
  static CheckpointEngine& instance();

  // The checkpointer (from cr_init: Service::ensure_started); not owned.
  void set_backend(cr::Module* module) { backend_ = module; }

  void begin(const CheckpointRequest& req);
  int run();
  void end();

  // Why the last run() failed (the checkpointer's message, the cancelling callback).
  const std::string& failure() const { return failure_; }
  // The cancellation asked by a callback (CR_CHECKPOINT_PERM_FAILURE kills).
  bool permanent_failure() const { return abort_perm_; }

  // cr_checkpoint() and cr_replace_self() from a callback of either context.
  int checkpoint_from_callback(int flags);
  int replace_self(cr_callback_t func, void* arg, int flags);

  const cr_checkpoint_info* checkpoint_info() const { return &info_; }
  const cr_restart_info* restart_info() const { return restarted_ ? &restart_info_ : nullptr; }

  // Installs the CR_SIGNUM handler (once per process, from cr_init).
  static void install_signal_handler();
  static void on_signal(int sig, siginfo_t* si, void* uc);

 private:
  int run_thread_chain(int index);
  int after_thread_chain();
  int dump();
  void cancel(int flags);

  cr::Module* backend_ = nullptr;
  CheckpointRequest req_;
  std::string failure_;
  int abort_code_ = 0;  // errno-style code of a cancellation, 0 if none
  bool abort_perm_ = false;
  bool restarted_ = false;
  int sig_expected_ = 0;
  bool registry_locked_ = false;
  cr_checkpoint_info info_{};
  cr_restart_info restart_info_{};
};

}  // namespace lz::libcr
