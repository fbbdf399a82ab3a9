// The job registry seen from outside a launcher: `lazarus ps` lists it and
// `lazarus checkpoint` finds a job's control socket in it (JobFile writes the
// entries, one JSON file per running job).
//
//   for (const JobEntry& j : list_jobs(/*prune=*/true)) print(j);
//   LZ_ASSIGN_OR_RETURN(JobEntry j, find_job("1a2b3c4d"));   // or a launcher pid
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "lazarus/status.h"

namespace lz::launcher {

struct JobEntry {
  std::string job_id;
  pid_t launcher_pid = 0;
  int np = 0;
  std::vector<std::string> command;
  std::vector<std::string> hosts;  // the hosts of its ranks, in rank order of first use
  struct Rank {
    int rank = 0;
    std::string host;
    pid_t pid = 0;  // on its host (a moved rank: its new process)
    int moves = 0;  // times it was migrated
  };
  std::vector<Rank> ranks;  // placement, in rank order
  std::string last_snapshot;
  std::string control_socket;
  std::string snapshot_store;
  std::string manager_job;  // "123.0": the Slurm job and step of a job srun started (`lazarus coordinate`)
  std::string file;  // the registry file
};

// Entries of running launchers, oldest job first. Files of launchers that no
// longer exist (the pid is gone, or the control socket no longer listens: a
// launcher SIGKILLed in another PID namespace leaves a pid that may be alive
// here) are removed when `prune` (else skipped); unreadable ones are skipped.
std::vector<JobEntry> list_jobs(bool prune);
// By job id; by Slurm job ("123") or step ("123.0") of a job srun started;
// or by launcher pid when `what` is a number that is neither.
StatusOr<JobEntry> find_job(const std::string& what);

}  // namespace lz::launcher
