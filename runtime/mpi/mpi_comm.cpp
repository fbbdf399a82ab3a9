// MPI binding: communicators and groups.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "mpi.h"
#include "mpi/attributes.h"
#include "mpi/dpm_state.h"
#include "mpi/entry.h"
#include "mpi/errors.h"
#include "mpi/info.h"
#include "mpi/nbc_start.h"
#include "p2p/comm.h"
#include "p2p/comm_factory.h"
#include "p2p/group.h"
#include "p2p/intercomm_factory.h"
#include "p2p/runtime.h"

using lz::rt::mpi_error;

namespace {

inline bool comm_ok(MPI_Comm c) { return c != nullptr && c->valid(); }
inline bool group_ok(MPI_Group g) { return g != nullptr && g->valid(); }

#define LZ_CHECK_COMM(fn, c) \
  if (!comm_ok(c)) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM, "invalid communicator")
// Calls MPI defines on intracommunicators only (and the reverse).
#define LZ_CHECK_INTRA(fn, c) \
  if ((c)->is_inter()) return mpi_error(c, fn, MPI_ERR_COMM, "not valid on an intercommunicator")
#define LZ_CHECK_INTER(fn, c) \
  if (!(c)->is_inter()) return mpi_error(c, fn, MPI_ERR_COMM, "not an intercommunicator")
#define LZ_CHECK_GROUP(fn, g) \
  if (!group_ok(g)) return mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_GROUP, "invalid group")

int my_world() { return lz::rt::runtime().rank(); }

// MPI_Comm_dup and MPI_Comm_dup_with_info (whose hints none is acted on).
int dup(const char* fn, MPI_Comm comm, MPI_Comm* newcomm) {
  if (newcomm == nullptr) return mpi_error(comm, fn, MPI_ERR_ARG, "newcomm is NULL");
  auto c = lz::rt::comm_dup(*comm);
  if (!c.ok()) {
    *newcomm = MPI_COMM_NULL;
    return mpi_error(comm, fn, c.status());
  }
  if (int e = lz::rt::attributes_copy(fn, comm, *c)) {
    lz::rt::attributes_delete_all(fn, *c);
    lz::rt::comm_free(*c);
    *newcomm = MPI_COMM_NULL;
    return e;
  }
  *newcomm = *c;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  LZ_MPI_ENTRY("MPI_Comm_rank");
  LZ_CHECK_COMM("MPI_Comm_rank", comm);
  *rank = comm->rank();
  return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int* size) {
  LZ_MPI_ENTRY("MPI_Comm_size");
  LZ_CHECK_COMM("MPI_Comm_size", comm);
  *size = comm->size();
  return MPI_SUCCESS;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  LZ_MPI_ENTRY("MPI_Comm_dup");
  LZ_CHECK_COMM("MPI_Comm_dup", comm);
  return dup("MPI_Comm_dup", comm, newcomm);
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  static constexpr const char* kFn = "MPI_Comm_dup_with_info";
  LZ_MPI_ENTRY(kFn);
  LZ_CHECK_COMM(kFn, comm);
  if (info != MPI_INFO_NULL && !info->valid())  // MPI_INFO_NULL: no hints, as MPICH and Open MPI take it
    return mpi_error(comm, kFn, MPI_ERR_INFO, "invalid info object (freed)");
  return dup(kFn, comm, newcomm);
}

// The new communicator is set up when the request completes (the context
// id is agreed by a schedule, comm_idup.cpp) and only then stored in
// *newcomm. The attributes are copied now, as MPI_Comm_dup would, onto the
// object the schedule sets up.
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  static constexpr const char* kFn = "MPI_Comm_idup";
  LZ_MPI_ENTRY(kFn);
  LZ_COLL_CHECK(lz::rt::nbc_start::check_request(kFn, comm, request));
  LZ_CHECK_COMM(kFn, comm);
  if (newcomm == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "newcomm is NULL");
  auto* holder = new lz_mpi_comm_s();
  if (int e = lz::rt::attributes_copy(kFn, comm, holder)) {
    lz::rt::attributes_delete_all(kFn, holder);
    delete holder;
    *newcomm = MPI_COMM_NULL;
    return e;
  }
  return lz::rt::nbc_start::start(comm, lz::rt::comm_idup(*comm, holder, newcomm), request);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  LZ_MPI_ENTRY("MPI_Comm_split");
  LZ_CHECK_COMM("MPI_Comm_split", comm);
  if (color < 0 && color != MPI_UNDEFINED)
    return mpi_error(comm, "MPI_Comm_split", MPI_ERR_ARG, "invalid color " + std::to_string(color));
  auto c = lz::rt::comm_split(*comm, color, key);
  if (!c.ok()) {
    *newcomm = MPI_COMM_NULL;
    return mpi_error(comm, "MPI_Comm_split", c.status());
  }
  *newcomm = *c;
  return MPI_SUCCESS;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  LZ_MPI_ENTRY("MPI_Comm_create");
  LZ_CHECK_COMM("MPI_Comm_create", comm);
  if (!group_ok(group)) return mpi_error(comm, "MPI_Comm_create", MPI_ERR_GROUP, "invalid group");
  auto c = lz::rt::comm_create(*comm, *group);
  if (!c.ok()) {
    *newcomm = MPI_COMM_NULL;
    return mpi_error(comm, "MPI_Comm_create", c.status());
  }
  *newcomm = *c;
  return MPI_SUCCESS;
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  static constexpr const char* kFn = "MPI_Comm_create_group";
  LZ_MPI_ENTRY(kFn);
  LZ_CHECK_COMM(kFn, comm);
  LZ_CHECK_INTRA(kFn, comm);
  if (!group_ok(group)) return mpi_error(comm, kFn, MPI_ERR_GROUP, "invalid group");
  if (tag < 0) return mpi_error(comm, kFn, MPI_ERR_TAG, "invalid tag " + std::to_string(tag));
  if (newcomm == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "newcomm is NULL");
  if (group != MPI_GROUP_EMPTY && group->rank_of_world(my_world()) == MPI_UNDEFINED)
    return mpi_error(comm, kFn, MPI_ERR_GROUP, "the calling process is not in the group");
  auto c = lz::rt::comm_create_group(*comm, *group, tag);
  if (!c.ok()) {
    *newcomm = MPI_COMM_NULL;
    return mpi_error(comm, kFn, c.status());
  }
  *newcomm = *c;
  return MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm* comm) {
  LZ_MPI_ENTRY("MPI_Comm_free");
  if (comm == nullptr || !comm_ok(*comm)) return mpi_error(MPI_COMM_WORLD, "MPI_Comm_free", MPI_ERR_COMM, "invalid communicator");
  if ((*comm)->predefined())
    return mpi_error(*comm, "MPI_Comm_free", MPI_ERR_COMM, "cannot free a predefined communicator");
  if (int e = lz::rt::attributes_delete_all("MPI_Comm_free", *comm)) return e;
  lz::rt::dpm_forget(*comm);
  lz::rt::comm_free(*comm);
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  LZ_MPI_ENTRY("MPI_Comm_compare");
  LZ_CHECK_COMM("MPI_Comm_compare", comm1);
  LZ_CHECK_COMM("MPI_Comm_compare", comm2);
  if (comm1 == comm2) {
    *result = MPI_IDENT;
  } else if (comm1->is_inter() != comm2->is_inter()) {
    *result = MPI_UNEQUAL;
  } else if (comm1->is_inter()) {
    // Both groups compared, each as MPI_Group_compare would.
    auto same = [](std::vector<int> a, std::vector<int> b) {
      if (a == b) return MPI_IDENT;
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      return a == b ? MPI_SIMILAR : MPI_UNEQUAL;
    };
    const int l = same(comm1->world_ranks(), comm2->world_ranks());
    const int r = same(comm1->remote_world_ranks(), comm2->remote_world_ranks());
    *result = l == MPI_UNEQUAL || r == MPI_UNEQUAL ? MPI_UNEQUAL
              : l == MPI_IDENT && r == MPI_IDENT   ? MPI_CONGRUENT
                                                   : MPI_SIMILAR;
  } else if (comm1->world_ranks() == comm2->world_ranks()) {
    *result = MPI_CONGRUENT;
  } else {
    auto a = comm1->world_ranks(), b = comm2->world_ranks();
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    *result = a == b ? MPI_SIMILAR : MPI_UNEQUAL;
  }
  return MPI_SUCCESS;
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  LZ_MPI_ENTRY("MPI_Comm_group");
  LZ_CHECK_COMM("MPI_Comm_group", comm);
  *group = lz_mpi_group_s::make(comm->world_ranks(), my_world());
  return MPI_SUCCESS;
}

int MPI_Group_size(MPI_Group group, int* size) {
  LZ_MPI_ENTRY("MPI_Group_size");
  LZ_CHECK_GROUP("MPI_Group_size", group);
  *size = group->size();
  return MPI_SUCCESS;
}

int MPI_Group_rank(MPI_Group group, int* rank) {
  LZ_MPI_ENTRY("MPI_Group_rank");
  LZ_CHECK_GROUP("MPI_Group_rank", group);
  *rank = group == MPI_GROUP_EMPTY ? MPI_UNDEFINED : group->my_rank;
  return MPI_SUCCESS;
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  LZ_MPI_ENTRY("MPI_Group_incl");
  LZ_CHECK_GROUP("MPI_Group_incl", group);
  if (n < 0 || n > group->size())
    return mpi_error(MPI_COMM_WORLD, "MPI_Group_incl", MPI_ERR_ARG, "invalid count " + std::to_string(n));
  std::vector<int> world;
  std::vector<bool> seen(static_cast<size_t>(group->size()), false);
  for (int i = 0; i < n; ++i) {
    int r = ranks[i];
    if (r < 0 || r >= group->size() || seen[static_cast<size_t>(r)])
      return mpi_error(MPI_COMM_WORLD, "MPI_Group_incl", MPI_ERR_RANK,
                       "invalid or repeated rank " + std::to_string(r) + " (group size " +
                           std::to_string(group->size()) + ")");
    seen[static_cast<size_t>(r)] = true;
    world.push_back(group->world_ranks[static_cast<size_t>(r)]);
  }
  *newgroup = n == 0 ? MPI_GROUP_EMPTY : lz_mpi_group_s::make(std::move(world), my_world());
  return MPI_SUCCESS;
}

int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  LZ_MPI_ENTRY("MPI_Group_excl");
  LZ_CHECK_GROUP("MPI_Group_excl", group);
  if (n < 0 || n > group->size())
    return mpi_error(MPI_COMM_WORLD, "MPI_Group_excl", MPI_ERR_ARG, "invalid count " + std::to_string(n));
  std::vector<bool> drop(static_cast<size_t>(group->size()), false);
  for (int i = 0; i < n; ++i) {
    int r = ranks[i];
    if (r < 0 || r >= group->size() || drop[static_cast<size_t>(r)])
      return mpi_error(MPI_COMM_WORLD, "MPI_Group_excl", MPI_ERR_RANK,
                       "invalid or repeated rank " + std::to_string(r) + " (group size " +
                           std::to_string(group->size()) + ")");
    drop[static_cast<size_t>(r)] = true;
  }
  std::vector<int> world;
  for (int r = 0; r < group->size(); ++r)
    if (!drop[static_cast<size_t>(r)]) world.push_back(group->world_ranks[static_cast<size_t>(r)]);
  *newgroup = world.empty() ? MPI_GROUP_EMPTY : lz_mpi_group_s::make(std::move(world), my_world());
  return MPI_SUCCESS;
}

int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]) {
  LZ_MPI_ENTRY("MPI_Group_translate_ranks");
  LZ_CHECK_GROUP("MPI_Group_translate_ranks", group1);
  LZ_CHECK_GROUP("MPI_Group_translate_ranks", group2);
  for (int i = 0; i < n; ++i) {
    int r = ranks1[i];
    if (r == MPI_PROC_NULL) {
      ranks2[i] = MPI_PROC_NULL;
      continue;
    }
    if (r < 0 || r >= group1->size())
      return mpi_error(MPI_COMM_WORLD, "MPI_Group_translate_ranks", MPI_ERR_RANK,
                       "invalid rank " + std::to_string(r) + " (group size " + std::to_string(group1->size()) + ")");
    ranks2[i] = group2->rank_of_world(group1->world_ranks[static_cast<size_t>(r)]);
  }
  return MPI_SUCCESS;
}

int MPI_Group_free(MPI_Group* group) {
  LZ_MPI_ENTRY("MPI_Group_free");
  if (group == nullptr || !group_ok(*group))
    return mpi_error(MPI_COMM_WORLD, "MPI_Group_free", MPI_ERR_GROUP, "invalid group");
  if (!(*group)->predefined) {
    (*group)->magic = 0;
    delete *group;
  }
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}

int MPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
  static constexpr const char* kFn = "MPI_Comm_set_name";
  LZ_MPI_ENTRY(kFn);
  LZ_CHECK_COMM(kFn, comm);
  if (comm_name == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "comm_name is NULL");
  // Longer names are truncated (MPI-3.1 section 6.8). The name is local.
  comm->name.assign(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

int MPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
  static constexpr const char* kFn = "MPI_Comm_get_name";
  LZ_MPI_ENTRY(kFn);
  LZ_CHECK_COMM(kFn, comm);
  if (comm_name == nullptr || resultlen == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "NULL output argument");
  const size_t n = std::min(comm->name.size(), static_cast<size_t>(MPI_MAX_OBJECT_NAME - 1));
  std::memcpy(comm_name, comm->name.data(), n);
  comm_name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}

int MPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  static constexpr const char* kFn = "MPI_Comm_test_inter";
  LZ_MPI_ENTRY(kFn);
  LZ_CHECK_COMM(kFn, comm);
  if (flag == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "flag is NULL");
  *flag = comm->is_inter() ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Comm_remote_size(MPI_Comm comm, int* size) {
  static constexpr const char* kFn = "MPI_Comm_remote_size";
  LZ_MPI_ENTRY(kFn);
  LZ_CHECK_COMM(kFn, comm);
  LZ_CHECK_INTER(kFn, comm);
  if (size == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "size is NULL");
  *size = comm->remote_size();
  return MPI_SUCCESS;
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  static constexpr const char* kFn = "MPI_Comm_remote_group";
  LZ_MPI_ENTRY(kFn);
  LZ_CHECK_COMM(kFn, comm);
  LZ_CHECK_INTER(kFn, comm);
  if (group == nullptr) return mpi_error(comm, kFn, MPI_ERR_ARG, "group is NULL");
  *group = lz_mpi_group_s::make(comm->remote_world_ranks(), my_world());
  return MPI_SUCCESS;
}

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                         MPI_Comm* newintercomm) {
  static constexpr const char* kFn = "MPI_Intercomm_create";
  LZ_MPI_ENTRY(kFn);
  LZ_CHECK_COMM(kFn, local_comm);
  LZ_CHECK_INTRA(kFn, local_comm);
  if (newintercomm == nullptr) return mpi_error(local_comm, kFn, MPI_ERR_ARG, "newintercomm is NULL");
  *newintercomm = MPI_COMM_NULL;
  if (local_leader < 0 || local_leader >= local_comm->size())
    return mpi_error(local_comm, kFn, MPI_ERR_RANK,
                     "invalid local_leader " + std::to_string(local_leader) + " (communicator size " +
                         std::to_string(local_comm->size()) + ")");
  if (tag < 0 || tag > MPI_TAG_UB_VALUE)
    return mpi_error(local_comm, kFn, MPI_ERR_TAG, "invalid tag " + std::to_string(tag));
  // peer_comm and remote_leader matter at the leader only; a bad one there
  // fails every member of its group (the leader tells them).
  const bool leader = local_comm->rank() == local_leader;
  MPI_Comm peer = nullptr;
  if (leader) {
    if (!comm_ok(peer_comm)) return mpi_error(local_comm, kFn, MPI_ERR_COMM, "invalid peer communicator");
    peer = peer_comm;
  }
  auto c = lz::rt::intercomm_create(*local_comm, local_leader, peer, remote_leader, tag);
  if (!c.ok()) {
    const int cls = c.status().code() == lz::Code::kNotFound          ? MPI_ERR_RANK
                    : c.status().code() == lz::Code::kInvalidArgument ? MPI_ERR_COMM
                                                                      : lz::rt::mpi_class_of(c.status());
    return mpi_error(local_comm, kFn, cls, c.status().message());
  }
  *newintercomm = *c;
  return MPI_SUCCESS;
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  static constexpr const char* kFn = "MPI_Intercomm_merge";
  LZ_MPI_ENTRY(kFn);
  LZ_CHECK_COMM(kFn, intercomm);
  LZ_CHECK_INTER(kFn, intercomm);
  if (newintracomm == nullptr) return mpi_error(intercomm, kFn, MPI_ERR_ARG, "newintracomm is NULL");
  *newintracomm = MPI_COMM_NULL;
  auto c = lz::rt::intercomm_merge(*intercomm, high != 0);
  if (!c.ok()) return mpi_error(intercomm, kFn, c.status());
  *newintracomm = *c;
  return MPI_SUCCESS;
}

}  // extern "C"
