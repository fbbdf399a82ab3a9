// JobSpec: everything the launcher decided before starting a job (from the
// command line, the parameters and the host list), and nothing it learns
// while the job runs. Kept as plain data so a checkpoint manifest (issue 4)
// can record it and `lazarus restart` can rebuild a job from it.
#pragma once

#include <string>
#include <vector>

#include "launcher/host_list.h"
#include "oob/socket.h"

namespace lz::launcher {

struct JobSpec {
  std::string job_id;
  std::vector<std::string> argv;        // the program and its arguments
  std::vector<Placement> placement;     // one per rank
  std::vector<std::string> env;         // every rank's environment before the LZ_* job variables
  bool tag_output = false;
  double timeout = 0;                   // seconds; 0: none
  double kill_grace = 3;                // SIGTERM -> SIGKILL
  double handshake_timeout = 5;         // OOB authentication deadline
  oob::SockAddr bind_address;           // OOB listener
  std::string advertised_host;          // host part of LZ_OOB_ADDR given to ranks
  std::vector<std::string> command_line;  // the launcher's own argv, for the job registry
};

}  // namespace lz::launcher
