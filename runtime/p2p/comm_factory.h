// Communicator construction: the predefined communicators and MPI_Comm_dup /
// split / create / free.
//
// Context ids: every communicator takes two consecutive ids (point-to-point,
// collective); world is 0/1, self 2/3. A new communicator's id is the maximum
// of every parent member's next free id, agreed with a gather-to-rank-0 and
// scatter on the parent's collective context using the engine's own p2p
// (never the coll components, which are enabled on the result). Every parent
// member then reserves the id, so no member ever reuses it.
#pragma once

#include "lazarus/status.h"
#include "p2p/comm.h"
#include "p2p/group.h"

namespace lz::rt {

// Sets up lz_mpi_comm_world and lz_mpi_comm_self (after the engine is up).
Status init_predefined_comms(int world_rank, int world_size);
void teardown_predefined_comms();

StatusOr<Comm*> comm_dup(Comm& parent);
// Null (MPI_COMM_NULL) for color MPI_UNDEFINED.
StatusOr<Comm*> comm_split(Comm& parent, int color, int key);
// Null for processes outside `group` (which must be a subset of parent's).
StatusOr<Comm*> comm_create(Comm& parent, const Group& group);
void comm_free(Comm* comm);

}  // namespace lz::rt
