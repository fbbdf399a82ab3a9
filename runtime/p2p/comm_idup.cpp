// MPI_Comm_idup: the context-id agreement of comm_dup as a non-blocking
// schedule (comm_factory.h).
//
// A blocking agreement proposes next_context(), above every id its members
// have taken, so the maximum is free everywhere. Here other agreements run
// while this one is in flight (blocking ones on other communicators, other
// idups), so each round:
//   1. every member takes its proposal p = next_context() (held: no later
//      agreement here proposes or lands on it) and the members allreduce the
//      maximum v;
//   2. each member checks v: its own p, or free here (then taken too); the
//      members allreduce whether any failed;
//   3. none failed: v is held by this agreement at every member, so no other
//      communicator of any member has it; the other held pair is given back
//      and the communicator set up on v. Some failed: both held pairs go back
//      and the next round proposes again (next_context() has grown past v
//      at the member whose p was v, so the maximum rises each round).
#include <algorithm>
#include <memory>

#include "lazarus/datatype/op.h"
#include "p2p/comm_factory.h"
#include "p2p/engine.h"
#include "p2p/intercomm_factory.h"
#include "p2p/nbc_algorithms.h"
#include "p2p/runtime.h"

namespace lz::rt {
namespace {

struct Agreement {
  Comm* parent = nullptr;
  Comm* holder = nullptr;
  MPI_Comm* newcomm = nullptr;
  NbcSchedule* s = nullptr;
  uint32_t proposal = 0, agreed = 0;  // this member's p, the maximum v
  uint32_t mine = 0, all = 0;         // allreduce buffers
  bool took_agreed = false;
  bool finished = false;

  ~Agreement() {
    // The schedule ended before the communicator was set up (a failed
    // transfer): hand the held pairs back; the holder goes, with the
    // attributes copied onto it (their delete callbacks do not run), and
    // *newcomm stays MPI_COMM_NULL.
    if (finished) return;
    Engine& eng = runtime().engine();
    eng.release_context(proposal);
    if (took_agreed) eng.release_context(agreed);
    delete holder;
  }
};

const dt::Op& max_op() {
  static const dt::Op op(dt::Op::Kind::kMax);
  return op;
}
const dt::Datatype& u32() { return dt::internal_type(dt::Basic::kUint32); }

void propose(const std::shared_ptr<Agreement>& a);

// The maximum of every member's *mine into *all, in rounds of its own. On
// an intercommunicator (whose transfers reach the remote group only) in
// two: each member sends its value to every remote member and keeps the
// largest it receives (the remote group's maximum); then sends that to every
// remote member, which so learns its own group's maximum.
void add_max(NbcSchedule& s, Comm& c, uint32_t* mine, uint32_t* all) {
  if (!c.is_inter()) {
    add_allreduce(s, c.size(), c.rank(), mine, all, 1, u32(), max_op());
    return;
  }
  const int nr = c.remote_size();
  auto* in = static_cast<uint32_t*>(s.temp(nr, u32()));
  auto* back = static_cast<uint32_t*>(s.temp(nr, u32()));
  auto* remote_max = static_cast<uint32_t*>(s.temp(1, u32()));
  s.next_round();
  for (int r = 0; r < nr; ++r) {
    s.send(mine, 1, u32(), r);
    s.recv(&in[r], 1, u32(), r);
  }
  s.call([in, nr, remote_max] {
    uint32_t m = 0;
    for (int r = 0; r < nr; ++r) m = std::max(m, in[r]);
    *remote_max = m;
    return Status::Ok();
  });
  s.next_round();
  for (int r = 0; r < nr; ++r) {
    s.send(remote_max, 1, u32(), r);
    s.recv(&back[r], 1, u32(), r);
  }
  s.call([back, remote_max, all] {
    *all = std::max(*remote_max, back[0]);  // every back[r] is this group's maximum
    return Status::Ok();
  });
  s.next_round();
}

Status check(const std::shared_ptr<Agreement>& a) {
  Engine& eng = runtime().engine();
  a->agreed = a->all;
  bool ok = a->agreed == a->proposal;
  if (!ok && eng.context_free(a->agreed)) {
    eng.take_context(a->agreed);
    a->took_agreed = true;
    ok = true;
  }
  a->mine = ok ? 0 : 1;
  NbcSchedule& s = *a->s;
  add_max(s, *a->parent, &a->mine, &a->all);
  s.next_round();
  s.call([a] {
    Engine& eng = runtime().engine();
    if (a->all == 0) {  // every member holds `agreed`
      if (a->agreed != a->proposal) eng.release_context(a->proposal);
      a->finished = true;
      LZ_ASSIGN_OR_RETURN(Comm * c, a->parent->is_inter()
                                        ? make_intercomm(*a->parent, a->parent->world_ranks(),
                                                         a->parent->remote_world_ranks(), a->agreed, a->holder)
                                        : make_comm(*a->parent, a->parent->world_ranks(), a->agreed, a->holder));
      c->topology = a->parent->topology;  // as MPI_Comm_dup
      *a->newcomm = c;
      return Status::Ok();
    }
    eng.release_context(a->proposal);
    if (a->took_agreed) eng.release_context(a->agreed);
    a->took_agreed = false;
    a->s->next_round();
    propose(a);
    return Status::Ok();
  });
  return Status::Ok();
}

void propose(const std::shared_ptr<Agreement>& a) {
  Engine& eng = runtime().engine();
  a->proposal = eng.next_context();
  eng.take_context(a->proposal);
  a->mine = a->proposal;
  NbcSchedule& s = *a->s;
  add_max(s, *a->parent, &a->mine, &a->all);
  s.next_round();
  s.call([a] { return check(a); });
}

}  // namespace

std::unique_ptr<NbcSchedule> comm_idup(Comm& parent, Comm* holder, MPI_Comm* newcomm) {
  auto s = std::make_unique<NbcSchedule>(parent, nbc_tag(parent));
  auto a = std::make_shared<Agreement>();
  a->parent = &parent;
  a->holder = holder;
  a->newcomm = newcomm;
  a->s = s.get();
  *newcomm = MPI_COMM_NULL;
  propose(a);
  return s;
}

}  // namespace lz::rt
