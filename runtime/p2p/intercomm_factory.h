// Intercommunicator construction: MPI_Intercomm_create, MPI_Intercomm_merge,
// and MPI_Comm_dup / split / create on an intercommunicator (which give
// intercommunicators).
//
// Context ids: an intercommunicator takes one pair (point-to-point,
// collective) that must be free at every member of both groups. Each group
// proposes the maximum of its members' next free ids; the two leaders swap
// their groups' proposals and the larger is taken by everyone, so no member
// of either group ever reuses it.
//   - MPI_Intercomm_create: each group gathers its proposals at its leader
//     over the local intracommunicator; the leaders swap (proposal, group)
//     over the peer communicator's collective context; each leader sends the
//     agreed id and the remote group to its members.
//   - On an existing intercommunicator (dup, split, create, merge) every
//     process's record (color, key, proposal, world rank) reaches every
//     process of both groups in three rounds over the intercommunicator's
//     own collective context: everyone sends its record to remote rank 0;
//     rank 0 of each group sends what it gathered (the other group's list)
//     back to every process of the other group; then sends its own group's
//     list, just received, to every process of the other group.
//
//   LZ_ASSIGN_OR_RETURN(Comm* inter, intercomm_create(local, 0, peer, remote_leader, tag));
//   LZ_ASSIGN_OR_RETURN(Comm* intra, intercomm_merge(*inter, /*high=*/false));
#pragma once

#include <vector>

#include "lazarus/status.h"
#include "p2p/comm.h"

namespace lz::rt {

// Collective over `local` (an intracommunicator). `peer` and
// `remote_leader` matter at the leader only (`peer` may be null elsewhere).
// kInvalidArgument when the groups overlap (every member of both groups
// returns it) or, at a leader, when remote_leader is not a rank of `peer`
// (then the leader's members fail the same way).
StatusOr<Comm*> intercomm_create(Comm& local, int local_leader, Comm* peer, int remote_leader, int tag);
// Collective over both groups of `inter`: an intracommunicator of the union,
// the group that passed high = false first (the same `high` on both sides:
// the group whose rank 0 has the lower world rank first).
StatusOr<Comm*> intercomm_merge(Comm& inter, bool high);
// MPI_Comm_split on an intercommunicator: the processes of each group with
// one color form the local group, those of the other group with the same
// color the remote group, each ordered by (key, rank). Null for
// MPI_UNDEFINED and when either side of a color is empty. MPI_Comm_dup is
// split(0, rank); MPI_Comm_create is split(in the group ? 0 : UNDEFINED,
// rank in the group).
StatusOr<Comm*> intercomm_split(Comm& inter, int color, int key);
// Sets up an intercommunicator of `local` (this process among them) and
// `remote` on the agreed pair `ctx`, with parent's error handler (local, no
// communication). `holder` is the object to set up, or null for a new one.
StatusOr<Comm*> make_intercomm(Comm& parent, std::vector<int> local, std::vector<int> remote, uint32_t ctx,
                               Comm* holder = nullptr);

}  // namespace lz::rt
