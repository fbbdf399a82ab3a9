// A `criu swrk` service process for one libcriu request from this process.
//
// libcriu's own CRIU_COMM_BIN mode forks the service with daemon(), which
// leaves an intermediate child behind as a zombie of the caller: it lands in
// the image, and a restore then needs its pid free ("Can't fork for N: File
// exists"). Reaping it afterwards with waitpid(-1) would steal the exit status
// of the application's own children. So the service is started here instead:
// fork, fork again, the middle process exits at once and is reaped by its
// known pid before the dump starts, the grandchild (reparented away from this
// process, so outside the dumped tree) execs `criu swrk <fd>`, and libcriu
// talks to it through criu_set_service_fd() (CRIU_COMM_FD).
//
//   LZ_ASSIGN_OR_RETURN(auto swrk, Swrk::start(binary, /*die_with_reaper=*/false));
//   criu_set_service_fd(swrk.fd());   // ... criu_dump() ...
//
// Thread-safety: one Swrk per request; start() is safe to call from any
// thread of a multi-threaded process (only async-signal-safe calls after fork).
#pragma once

#include <string>
#include <vector>

#include "lazarus/status.h"

namespace lz::cr::criu {

class Swrk {
 public:
  // Starts `criu swrk` detached from this process tree. The service gets the
  // default disposition and an empty mask for every signal (an ignored SIGCHLD
  // inherited by criu makes the dump fail with -EBADE), no other descriptor of
  // this process, and an environment without LD_PRELOAD (cr_run's library must
  // not load into criu).
  // With `die_with_reaper` (a job rank, whose launcher is a subreaper) the
  // service gets SIGKILL when the process that adopts it dies, so a launcher
  // killed mid-dump takes its criu along.
  // `extra_env` ("NAME=value") is added to the service's environment.
  static StatusOr<Swrk> start(const std::string& binary, bool die_with_reaper,
                              const std::vector<std::string>& extra_env = {});

  Swrk(Swrk&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Swrk& operator=(Swrk&& o) noexcept;
  Swrk(const Swrk&) = delete;
  Swrk& operator=(const Swrk&) = delete;
  ~Swrk();

  // This process's end of the service socket (SOCK_SEQPACKET).
  int fd() const { return fd_; }

 private:
  explicit Swrk(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace lz::cr::criu
