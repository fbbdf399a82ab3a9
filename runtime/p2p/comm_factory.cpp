#include "p2p/comm_factory.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <tuple>

#include "lazarus/datatype/datatype.h"
#include "p2p/coll_select.h"
#include "p2p/comm_record.h"
#include "p2p/engine.h"
#include "p2p/intercomm_factory.h"
#include "p2p/runtime.h"

namespace lz::rt {
namespace {

// Reserved tag on the parent's collective context: below every tag a
// collective algorithm may use (MPI tags are >= 0; negative ones are ours).
constexpr int kTagAgree = -4096;
// MPI_Comm_create_group's user tag t travels as kTagGroupBase - t, below the
// non-blocking collectives' tags (nbc_algorithms.cpp: -8192 and 2^20 below),
// so calls with different tags on one communicator never match each other's
// messages. The span covers every tag below 2^31 - 2^20 - 8194; larger ones
// fold onto the low ones (two calls in flight together with such tags on
// overlapping groups could mix).
constexpr int kTagGroupBase = -8192 - (1 << 20) - 2;
constexpr int kTagGroupSpan = kTagGroupBase - INT_MIN;  // tags kTagGroupBase .. INT_MIN + 1

struct Record {
  int32_t color;
  int32_t key;
  uint32_t next_context;
  int32_t world;
};

// Every participant's record, in the order of `members` (parent ranks;
// this process is members[me]): gathered to members[0], then scattered, with
// `tag` on the parent's collective context.
StatusOr<std::vector<Record>> exchange(Comm& parent, const std::vector<int>& members, int me, int tag,
                                       const Record& mine) {
  const int n = static_cast<int>(members.size());
  std::vector<Record> all(static_cast<size_t>(n));
  const dt::Datatype& byte = dt::byte_type();
  const int rec = static_cast<int>(sizeof(Record));
  const auto peer = [&](int i) { return members[static_cast<size_t>(i)]; };
  if (me == 0) {
    all[0] = mine;
    for (int r = 1; r < n; ++r) LZ_RETURN_IF_ERROR(parent.recv(&all[static_cast<size_t>(r)], rec, byte, peer(r), tag));
    std::vector<coll::Request*> reqs;
    for (int r = 1; r < n; ++r) {
      auto s = parent.isend(all.data(), rec * n, byte, peer(r), tag);
      if (!s.ok()) {
        parent.waitall(static_cast<int>(reqs.size()), reqs.data()).ignore();
        return s.status();
      }
      reqs.push_back(*s);
    }
    LZ_RETURN_IF_ERROR(parent.waitall(static_cast<int>(reqs.size()), reqs.data()));
  } else {
    LZ_RETURN_IF_ERROR(parent.send(&mine, rec, byte, peer(0), tag));
    LZ_RETURN_IF_ERROR(parent.recv(all.data(), rec * n, byte, peer(0), tag));
  }
  return all;
}

uint32_t agreed_context(const std::vector<Record>& all) {
  uint32_t ctx = 0;
  for (const auto& r : all) ctx = std::max(ctx, r.next_context);
  return ctx;
}

struct Agreed {
  uint32_t context;
  std::vector<Record> records;  // every member's (color, key, world), in the order of members
};

// The context-id agreement of a blocking constructor among `members`
// (parent ranks; this process is members[me]), which also gathers every
// member's record. Other agreements may run at once on other communicators
// (threads of an MPI_THREAD_MULTIPLE process, idups in flight), so the
// protocol is comm_idup.cpp's, blocking: each member holds its proposal
// p = next_context() (taken: no other agreement here proposes or lands on
// it); the maximum v is the candidate; a member takes v when it is its p or
// free here; a second exchange tells whether every member could. Then v is
// this agreement's at every member, and the held p goes back; otherwise
// both go back and the next round proposes again (higher: next_context()
// has passed v where v was held).
StatusOr<Agreed> agree(Comm& parent, const std::vector<int>& members, int me, int tag, Record mine) {
  Engine& eng = runtime().engine();
  for (;;) {
    const uint32_t p = eng.next_context();
    eng.take_context(p);
    mine.next_context = p;
    StatusOr<std::vector<Record>> all = exchange(parent, members, me, tag, mine);
    if (!all.ok()) {
      eng.release_context(p);
      return all.status();
    }
    const uint32_t v = agreed_context(*all);
    const bool took = v != p && eng.context_free(v);
    if (took) eng.take_context(v);
    const Record verdict{v == p || took ? 0 : 1, 0, 0, 0};
    StatusOr<std::vector<Record>> verdicts = exchange(parent, members, me, tag, verdict);
    const bool everyone = verdicts.ok() && std::all_of(verdicts->begin(), verdicts->end(),
                                                       [](const Record& r) { return r.color == 0; });
    if (everyone) {
      if (v != p) eng.release_context(p);
      return Agreed{v, std::move(*all)};
    }
    eng.release_context(p);
    if (took) eng.release_context(v);
    if (!verdicts.ok()) return verdicts.status();
  }
}

// The whole parent, in rank order.
StatusOr<Agreed> agree(Comm& parent, const Record& mine) {
  std::vector<int> members(static_cast<size_t>(parent.size()));
  for (int r = 0; r < parent.size(); ++r) members[static_cast<size_t>(r)] = r;
  return agree(parent, members, parent.rank(), kTagAgree, mine);
}

// The agreement of `call` in a process that took a moved rank's place,
// before its LZ_Restore: the recorded context and members, no communication.
StatusOr<Comm*> replayed(Comm& parent, const char* call) {
  LZ_ASSIGN_OR_RETURN(CommRecord::Entry e, CommRecord::instance().next(call));
  runtime().engine().take_context(e.context);
  if (!e.member) return static_cast<Comm*>(nullptr);
  LZ_ASSIGN_OR_RETURN(Comm * c, make_comm(parent, std::move(e.world_ranks), e.context));
  c->mark_replayable();  // and so again if this process moves in turn (the record stays)
  return c;
}

// An agreement's result, recorded while the rank has not reached its first
// safe point (cr=app).
StatusOr<Comm*> recorded(const char* call, uint32_t ctx, StatusOr<Comm*> made) {
  CommRecord& record = CommRecord::instance();
  if (!made.ok() || !record.recording()) return made;
  Comm* c = *made;
  record.add({call, ctx, c != nullptr, c != nullptr ? c->world_ranks() : std::vector<int>()});
  if (c != nullptr) c->mark_replayable();
  return made;
}

}  // namespace

StatusOr<Comm*> make_comm(Comm& parent, std::vector<int> world_ranks, uint32_t ctx, Comm* holder) {
  const int me = runtime().rank();
  int my_rank = -1;
  for (size_t i = 0; i < world_ranks.size(); ++i)
    if (world_ranks[i] == me) my_rank = static_cast<int>(i);
  auto* c = holder != nullptr ? holder : new Comm();
  c->setup(std::move(world_ranks), my_rank, ctx, false);
  c->errhandler = parent.errhandler;
  Status s = coll_enable(*c);
  if (!s.ok()) {
    c->teardown();
    delete c;
    return s;
  }
  return c;
}

Status init_predefined_comms(int world_rank, int world_size) {
  std::vector<int> all(static_cast<size_t>(world_size));
  for (int i = 0; i < world_size; ++i) all[static_cast<size_t>(i)] = i;
  lz_mpi_comm_world.setup(std::move(all), world_rank, 0, true);
  lz_mpi_comm_self.setup({world_rank}, 0, 2, true);
  lz_mpi_comm_world.name = "MPI_COMM_WORLD";
  lz_mpi_comm_self.name = "MPI_COMM_SELF";
  runtime().engine().take_context(0);
  runtime().engine().take_context(2);
  return Status::Ok();
}

void teardown_predefined_comms() {
  MPI_Errhandler keep_w = lz_mpi_comm_world.errhandler, keep_s = lz_mpi_comm_self.errhandler;
  lz_mpi_comm_world.teardown();
  lz_mpi_comm_self.teardown();
  lz_mpi_comm_world.errhandler = keep_w;
  lz_mpi_comm_self.errhandler = keep_s;
}

StatusOr<Comm*> comm_dup(Comm& parent) {
  if (parent.is_inter()) return intercomm_split(parent, 0, parent.rank());
  static constexpr const char* kCall = "MPI_Comm_dup";
  Comm* c = nullptr;
  if (CommRecord::instance().replaying()) {
    LZ_ASSIGN_OR_RETURN(c, replayed(parent, kCall));
  } else {
    LZ_ASSIGN_OR_RETURN(Agreed a, agree(parent, Record{0, 0, 0, runtime().rank()}));
    LZ_ASSIGN_OR_RETURN(c, recorded(kCall, a.context, make_comm(parent, parent.world_ranks(), a.context)));
  }
  c->topology = parent.topology;  // MPI_Comm_dup keeps the topology
  return c;
}

StatusOr<Comm*> comm_split(Comm& parent, int color, int key) {
  if (parent.is_inter()) return intercomm_split(parent, color, key);
  static constexpr const char* kCall = "MPI_Comm_split";
  if (CommRecord::instance().replaying()) return replayed(parent, kCall);
  LZ_ASSIGN_OR_RETURN(Agreed a, agree(parent, Record{color, key, 0, runtime().rank()}));
  const uint32_t ctx = a.context;
  const std::vector<Record>& all = a.records;
  if (color == MPI_UNDEFINED) return recorded(kCall, ctx, static_cast<Comm*>(nullptr));
  // Members of my color, ordered by (key, parent rank). Different colors
  // share the context id: their memberships are disjoint.
  std::vector<std::tuple<int, int, int>> members;  // key, parent rank, world
  for (size_t r = 0; r < all.size(); ++r)
    if (all[r].color == color) members.emplace_back(all[r].key, static_cast<int>(r), all[r].world);
  std::sort(members.begin(), members.end());
  std::vector<int> world;
  world.reserve(members.size());
  for (auto& m : members) world.push_back(std::get<2>(m));
  return recorded(kCall, ctx, make_comm(parent, std::move(world), ctx));
}

StatusOr<Comm*> comm_create(Comm& parent, const Group& group) {
  for (int w : group.world_ranks)
    if (std::find(parent.world_ranks().begin(), parent.world_ranks().end(), w) == parent.world_ranks().end())
      return InvalidArgument("the group holds world rank " + std::to_string(w) + ", which is not in the communicator");
  if (parent.is_inter()) {
    // The group is of the local group; each side passes its own.
    const int in = group.rank_of_world(runtime().rank());
    return intercomm_split(parent, in == MPI_UNDEFINED ? MPI_UNDEFINED : 0, in);
  }
  static constexpr const char* kCall = "MPI_Comm_create";
  if (CommRecord::instance().replaying()) return replayed(parent, kCall);
  LZ_ASSIGN_OR_RETURN(Agreed a, agree(parent, Record{0, 0, 0, runtime().rank()}));
  const uint32_t ctx = a.context;
  if (group.rank_of_world(runtime().rank()) == MPI_UNDEFINED) return recorded(kCall, ctx, static_cast<Comm*>(nullptr));
  return recorded(kCall, ctx, make_comm(parent, group.world_ranks, ctx));
}

StatusOr<Comm*> comm_create_group(Comm& parent, const Group& group, int tag) {
  if (group.world_ranks.empty()) return static_cast<Comm*>(nullptr);
  // Parent ranks of the members, in group order.
  std::vector<int> members;
  members.reserve(group.world_ranks.size());
  for (int w : group.world_ranks) {
    auto it = std::find(parent.world_ranks().begin(), parent.world_ranks().end(), w);
    if (it == parent.world_ranks().end())
      return InvalidArgument("the group holds world rank " + std::to_string(w) + ", which is not in the communicator");
    members.push_back(static_cast<int>(it - parent.world_ranks().begin()));
  }
  const int me = group.rank_of_world(runtime().rank());
  if (me == MPI_UNDEFINED) return InvalidArgument("the calling process is not in the group");
  if (tag < 0) return InvalidArgument("invalid tag " + std::to_string(tag));
  static constexpr const char* kCall = "MPI_Comm_create_group";
  if (CommRecord::instance().replaying()) return replayed(parent, kCall);
  // Only the members agree, as for MPI_Comm_create.
  LZ_ASSIGN_OR_RETURN(Agreed a, agree(parent, members, me, kTagGroupBase - tag % kTagGroupSpan,
                                      Record{0, 0, 0, runtime().rank()}));
  return recorded(kCall, a.context, make_comm(parent, group.world_ranks, a.context));
}

void comm_free(Comm* comm) {
  if (comm == nullptr || comm->predefined()) return;
  comm->teardown();
  delete comm;
}

}  // namespace lz::rt
