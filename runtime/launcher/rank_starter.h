// RankStarter: how the launcher starts one rank on a host. The local
// implementation forks and execs; a later ssh (or srun) implementation starts
// it remotely behind the same interface. The starter also hands the rank its
// job secret without putting it on a command line or in the environment: the
// local starter through an inherited pipe (LZ_SECRET_FD), a remote one would
// write it to the remote shell's stdin.
//
//   LocalStarter starter;
//   LZ_ASSIGN_OR_RETURN(StartedRank r, starter.start(spec));
//   loop.watch(r.out.get(), POLLIN, ...);
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "lazarus/status.h"
#include "oob/socket.h"

namespace lz::launcher {

struct RankSpec {
  int rank = 0;
  std::string host;
  std::vector<std::string> argv;  // argv[0]: the program, looked up in PATH
  std::vector<std::string> env;   // complete environment, "NAME=value"
  std::string secret;             // delivered out of band
  bool inherit_stdin = false;     // otherwise stdin is /dev/null
  std::vector<int> cpus;          // bind the rank to these CPUs (launcher/binding.h); empty: not bound
};

struct StartedRank {
  pid_t pid = -1;  // also the rank's process group
  oob::Fd out;     // read ends of the rank's stdout/stderr, non-blocking
  oob::Fd err;
};

class RankStarter {
 public:
  virtual ~RankStarter() = default;
  // Whether this starter can place a rank on `host`; otherwise the reason.
  virtual Status can_start_on(const std::string& host) const = 0;
  // Starts the rank; returns when its program is running (a program that
  // cannot be executed is an error naming it).
  virtual StatusOr<StartedRank> start(const RankSpec& spec) = 0;
};

}  // namespace lz::launcher
