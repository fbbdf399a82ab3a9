// attach_coordinator(): a rank that a process manager started (srun,
// MPICH's mpiexec, Open MPI's mpirun: a PMI-2 or PMIx bootstrap) with
// checkpointing on gets a coordinator of its job, as `lazarus run` would
// have been, so that the job can be checkpointed, and restarted with
// `lazarus restart`, without `lazarus run`.
//
// In MPI_Init, once the back end is selected:
//   1. every rank puts its pid; fence;
//   2. rank 0 starts `lazarus coordinate` (the lazarus next to liblazarus:
//      <lib>/../bin/lazarus), detached from its own process tree (a core
//      image of rank 0 must not hold it), hands it the job secret on a pipe
//      and every rank's host, node and pid on its command line, and reads
//      back the address of its OOB listener; puts it; fence;
//   3. every rank connects to that address as a rank of `lazarus run` does
//      (OobBootstrap: same job id, secret, layout) and closes the process
//      manager's channel: from here on the rank is a `lazarus run` rank
//      (its modex, checkpoints, spawns and restarts go through the
//      coordinator), and a core image holds no socket of the manager's.
// SIGUSR1 (`scancel --signal=USR1`, `#SBATCH --signal=USR1@120`) asks for a
// checkpoint: rank 0 passes it on to the coordinator, the other ranks
// ignore it, unless the program handles SIGUSR1 itself.
// A rank 0 that cannot start the coordinator says why to every rank, and
// every rank's MPI_Init fails with that reason.
#pragma once

#include <memory>

#include "bootstrap/bootstrap.h"
#include "lazarus/status.h"

namespace lz::rt {

// `manager`: the PMI-2 or PMIx bootstrap (manager->from_process_manager()).
// Returns the OobBootstrap that replaces it; `manager` is finalized.
StatusOr<std::unique_ptr<Bootstrap>> attach_coordinator(std::unique_ptr<Bootstrap> manager, double connect_timeout);

}  // namespace lz::rt
