// Communicator construction: the predefined communicators and MPI_Comm_dup /
// idup / split / create / create_group / free.
//
// Context ids: every communicator takes two consecutive ids (point-to-point,
// collective); world is 0/1, self 2/3. A new communicator's id is agreed
// among the parent's members with gathers-to-rank-0 and scatters on the
// parent's collective context using the engine's own p2p (never the coll
// components, which are enabled on the result): each member holds its next
// free id, the maximum is taken by every member where it is free, and a
// second exchange confirms that it was free everywhere, else all try again
// higher. Agreements on other communicators may run meanwhile (threads of an
// MPI_THREAD_MULTIPLE process, idups in flight) without two communicators of
// a process ever sharing an id. MPI_Comm_create_group agrees among the
// group's members only, on a tag of its own per user tag. MPI_Comm_idup runs
// the same protocol as a non-blocking schedule (comm_idup.cpp); on an
// intercommunicator the maxima are taken over both groups and the result is
// an intercommunicator.
// Intercommunicators' other constructors: intercomm_factory.h.
#pragma once

#include <memory>
#include <vector>

#include "lazarus/status.h"
#include "p2p/comm.h"
#include "p2p/group.h"
#include "p2p/nbc_schedule.h"

namespace lz::rt {

// Sets up lz_mpi_comm_world and lz_mpi_comm_self (after the engine is up).
Status init_predefined_comms(int world_rank, int world_size);
void teardown_predefined_comms();

StatusOr<Comm*> comm_dup(Comm& parent);
// Null (MPI_COMM_NULL) for color MPI_UNDEFINED.
StatusOr<Comm*> comm_split(Comm& parent, int color, int key);
// Null for processes outside `group` (which must be a subset of parent's).
StatusOr<Comm*> comm_create(Comm& parent, const Group& group);
// Collective over `group`'s members only (a subset of parent's); null for
// MPI_GROUP_EMPTY; kInvalidArgument when the caller is not in a non-empty
// group or tag is negative.
StatusOr<Comm*> comm_create_group(Comm& parent, const Group& group, int tag);
// The schedule of MPI_Comm_idup on `parent`: when it has ended without
// error, *newcomm is the new communicator (with parent's topology and
// errhandler, and the attributes already in `*newcomm`'s holder). `holder`
// is a communicator object not set up yet (Comm::attributes may be filled);
// the schedule sets it up and stores it in *newcomm, or frees it and stores
// MPI_COMM_NULL if the schedule failed.
std::unique_ptr<NbcSchedule> comm_idup(Comm& parent, Comm* holder, MPI_Comm* newcomm);
void comm_free(Comm* comm);

// Sets up a communicator of `world_ranks` (this process among them) on the
// agreed pair `ctx`, with parent's error handler, and enables the coll
// modules on it (local, no communication). `holder` is the object to set
// up, or null for a new one; freed on error.
StatusOr<Comm*> make_comm(Comm& parent, std::vector<int> world_ranks, uint32_t ctx, Comm* holder = nullptr);

}  // namespace lz::rt
