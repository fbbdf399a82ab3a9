// run_coordinator(): `lazarus coordinate`, the coordinator of a job that a
// process manager started (srun, mpiexec) with checkpointing on. Rank 0
// starts it in MPI_Init (bootstrap/coordinator_link.h), detached from its
// own process tree, with every rank's host, node and pid; the job secret
// comes on stdin as hex, and once the OOB listener is up its address and
// this process's pid go back on stdout ("ADDRESS PID", or "error REASON").
//
// It then is what `lazarus run` is to its job, minus starting the ranks
// (AdoptedStarter): the ranks connect to it as `lazarus run`'s do; it serves
// their modex, coordinates and commits checkpoints into the snapshot store
// (the job registry names it by the Slurm step too, for `lazarus checkpoint
// JOB[.STEP]`), takes SIGUSR1 as a checkpoint request, and ends the job when
// a rank ends without MPI_Finalize, naming the rank and the newest
// snapshot. The snapshots restart with `lazarus restart` like any job's.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace lz::launcher {

struct CoordinatorOptions {
  std::string job_id;              // the ranks' job id (LZ_JOB_ID)
  std::vector<std::string> hosts;  // per rank
  std::vector<uint64_t> nodes;     // per rank: equal for ranks on one host
  std::vector<pid_t> pids;         // per rank, on its host
  std::vector<std::string> argv;   // the program, as rank 0 was started
};

// Returns the exit status (0: every rank finalized).
int run_coordinator(const CoordinatorOptions& o);

}  // namespace lz::launcher
