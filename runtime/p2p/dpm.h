// Dynamic process management: joining two groups of processes, of one job or
// of two, into an intercommunicator (MPI_Comm_accept / _connect, and through
// them MPI_Comm_spawn, MPI_Comm_join and a spawned job's parent).
//
// Each group has a root, and the two roots a link (p2p/dpm_port.h). Collective
// over each group, in five steps:
//   1. every member sends its next free context id to its root;
//   2. the roots swap what their groups are: the processes (job id, world
//      rank, host, in local rank order), the group's context proposal, and
//      from the accepting root a fresh secret for the bridge's transports;
//   3. each root tells its members the plan: the two member lists (accepting
//      group first), the context id (the larger proposal) and the secret, or
//      why there is none (every member then fails with the root's error);
//   4. every member opens a Bridge (p2p/bridge.h) over both groups: its
//      modules' addresses are gathered at each root, swapped over the link
//      and sent to every member;
//   5. the engine adopts the bridge, and the intercommunicator is made: the
//      local group in local rank order, the remote group in its own.
//
//   LZ_ASSIGN_OR_RETURN(Comm* inter, dpm_join_groups(comm, root, true, &link, Status::Ok(), deadline));
#pragma once

#include "lazarus/status.h"
#include "p2p/comm.h"
#include "p2p/dpm_port.h"

namespace lz::rt {

using Comm = ::lz_mpi_comm_s;

// Collective over `local` (an intracommunicator). At `root`, `link` is
// connected to the other group's root, or `root_error` says why it is not
// (the other root then sees the link close). `accepting`: this group comes
// first (the same answer at every member). Waits end at `deadline_s`
// (dpm_deadline()).
StatusOr<Comm*> dpm_join_groups(Comm& local, int root, bool accepting, DpmLink* link, const Status& root_error,
                                double deadline_s);

// A dynamic-process call under way in this process (MPI_Comm_spawn,
// _spawn_multiple, _accept, _connect, _join), for its whole length. A
// checkpoint asked for meanwhile is refused before anything is held
// (CrService): the call's link is a socket no image keeps, and the other
// side waits on it (a checkpoint of the spawn tree would stall the spawned
// processes' MPI_Init until dpm_timeout).
class DpmCallGuard {
 public:
  DpmCallGuard();
  ~DpmCallGuard();
  DpmCallGuard(const DpmCallGuard&) = delete;
  DpmCallGuard& operator=(const DpmCallGuard&) = delete;
};
int dpm_calls_under_way();

}  // namespace lz::rt
