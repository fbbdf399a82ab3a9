#include "p2p/intercomm_factory.h"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

#include "lazarus/datatype/datatype.h"
#include "p2p/byte_messages.h"
#include "p2p/comm_factory.h"
#include "p2p/engine.h"
#include "p2p/process_name.h"
#include "p2p/runtime.h"

namespace lz::rt {
namespace {

// comm_factory's agreement tag on a collective context: an
// intercommunicator's collective context carries nothing else but its
// collectives' schedules (nbc tags, far below).
constexpr int kTagAgree = -4096;
// MPI_Intercomm_create's user tag t between the leaders, on the peer
// communicator's collective context: kTagLeaderBase - t % kTagLeaderSpan,
// between the agreement tag and the non-blocking collectives' (-8192 and
// below), so it never meets a collective's or another agreement's message.
// Two creations over one peer communicator, in flight at once between the
// same leaders with tags equal modulo the span, could mix.
constexpr int kTagLeaderBase = -4097;
constexpr int kTagLeaderSpan = 8192 - 4097 - 1;

struct Record {
  int32_t color;
  int32_t key;
  uint32_t next_context;
  int32_t world;
};
constexpr int kRec = static_cast<int>(sizeof(Record));

const dt::Datatype& bytes() { return dt::byte_type(); }

// Transfers started together and waited for together; the first error is
// kept and nothing more is started after it (what was started is still
// waited for, so no request is left behind).
class Batch {
 public:
  explicit Batch(Comm& c) : c_(c) {}
  void send(const void* buf, int n, int peer, int tag) { add(c_.isend(buf, n, bytes(), peer, tag)); }
  void recv(void* buf, int n, int peer, int tag) { add(c_.irecv(buf, n, bytes(), peer, tag)); }
  Status wait() {
    Status w = c_.waitall(static_cast<int>(reqs_.size()), reqs_.data());
    reqs_.clear();
    return first_.ok() ? w : first_;
  }

 private:
  void add(StatusOr<coll::Request*> r) {
    if (!r.ok()) {
      if (first_.ok()) first_ = r.status();
      return;
    }
    reqs_.push_back(*r);
  }
  Comm& c_;
  std::vector<coll::Request*> reqs_;
  Status first_;
};

struct Lists {
  std::vector<Record> local, remote;  // by rank in each group
};

// Every process's record to every process of both groups, in three rounds
// over `c`'s collective context (intercomm_factory.h).
StatusOr<Lists> exchange(Comm& c, const Record& mine) {
  const int nl = c.size(), nr = c.remote_size();
  Lists out;
  out.local.resize(static_cast<size_t>(nl));
  out.remote.resize(static_cast<size_t>(nr));
  std::vector<Record> gathered;  // rank 0: the other group's records
  {
    Batch b(c);
    b.send(&mine, kRec, 0, kTagAgree);
    if (c.rank() == 0) {
      gathered.resize(static_cast<size_t>(nr));
      for (int j = 0; j < nr; ++j) b.recv(&gathered[static_cast<size_t>(j)], kRec, j, kTagAgree);
    }
    LZ_RETURN_IF_ERROR(b.wait());
  }
  {
    Batch b(c);
    if (c.rank() == 0)
      for (int j = 0; j < nr; ++j) b.send(gathered.data(), kRec * nr, j, kTagAgree);
    b.recv(out.local.data(), kRec * nl, 0, kTagAgree);
    LZ_RETURN_IF_ERROR(b.wait());
  }
  {
    Batch b(c);
    if (c.rank() == 0)
      for (int j = 0; j < nr; ++j) b.send(out.local.data(), kRec * nl, j, kTagAgree);
    b.recv(out.remote.data(), kRec * nr, 0, kTagAgree);
    LZ_RETURN_IF_ERROR(b.wait());
  }
  // Each process's number here, by its position: a process of another job
  // (dynamic processes) has a different number in each job's processes.
  for (int r = 0; r < nl; ++r) out.local[static_cast<size_t>(r)].world = c.world_ranks()[static_cast<size_t>(r)];
  for (int j = 0; j < nr; ++j)
    out.remote[static_cast<size_t>(j)].world = c.remote_world_ranks()[static_cast<size_t>(j)];
  return out;
}

uint32_t max_context(const Lists& l) {
  uint32_t ctx = 0;
  for (const auto& r : l.local) ctx = std::max(ctx, r.next_context);
  for (const auto& r : l.remote) ctx = std::max(ctx, r.next_context);
  return ctx;
}

// The world ranks of the records of `color`, ordered by (key, rank).
std::vector<int> members(const std::vector<Record>& all, int color) {
  std::vector<std::tuple<int, int, int>> m;  // key, rank, world
  for (size_t r = 0; r < all.size(); ++r)
    if (all[r].color == color) m.emplace_back(all[r].key, static_cast<int>(r), all[r].world);
  std::sort(m.begin(), m.end());
  std::vector<int> world;
  world.reserve(m.size());
  for (auto& x : m) world.push_back(std::get<2>(x));
  return world;
}

// One round of MPI_Intercomm_create's agreement: every member's proposal
// `mine` to its leader, the leaders' maxima and groups swapped over the peer
// communicator, the leader's answer (the larger maximum, the remote group)
// back to its members.
struct Proposed {
  uint32_t ctx;
  std::vector<ProcessName> remote;
};

StatusOr<Proposed> propose(Comm& local, int leader, Comm* peer, int remote_leader, int tag, uint32_t mine) {
  Engine& eng = runtime().engine();
  // Groups travel as process names (process_name.h): a world rank names
  // another process in each job when the peer communicator spans two.
  // The leader's answer to its members: verdict (1 ok, 0 bad remote_leader,
  // 2 overlap), context, the remote group.
  std::string answer;
  if (local.rank() != leader) {
    LZ_RETURN_IF_ERROR(local.send(&mine, sizeof mine, bytes(), leader, kTagAgree));
    LZ_ASSIGN_OR_RETURN(answer, recv_bytes(local, leader, kTagAgree));
  } else {
    uint32_t proposal = mine;
    for (int r = 0; r < local.size(); ++r) {
      if (r == leader) continue;
      uint32_t theirs = 0;
      LZ_RETURN_IF_ERROR(local.recv(&theirs, sizeof theirs, bytes(), r, kTagAgree));
      proposal = std::max(proposal, theirs);
    }
    uint32_t verdict = 1;
    uint32_t ctx = proposal;
    std::vector<ProcessName> remote;
    if (peer == nullptr || remote_leader < 0 || remote_leader >= peer->peer_size()) {
      verdict = 0;
    } else {
      // [proposal, group] both ways.
      std::vector<ProcessName> group;
      for (int w : local.world_ranks()) group.push_back(eng.process_name(w));
      oob::WireWriter out;
      out.u32(proposal);
      put_names(out, group);
      const int t = kTagLeaderBase - tag % kTagLeaderSpan;
      // Both leaders send first: each message waits at most for its receive.
      const uint64_t n_out = out.data().size();
      uint64_t n_in = 0;
      LZ_RETURN_IF_ERROR(peer->sendrecv(&n_out, sizeof n_out, bytes(), remote_leader, t, &n_in, sizeof n_in, bytes(),
                                        remote_leader, t));
      if (n_in > (1u << 30))
        return ProtocolError("the remote leader sent a group of " + std::to_string(n_in) + " bytes");
      std::string in(static_cast<size_t>(n_in), '\0');
      LZ_RETURN_IF_ERROR(peer->sendrecv(out.data().data(), static_cast<int>(n_out), bytes(), remote_leader, t,
                                        in.data(), static_cast<int>(n_in), bytes(), remote_leader, t));
      oob::WireReader r(in);
      uint32_t theirs = 0;
      if (!r.u32(&theirs) || !get_names(r, &remote) || !r.at_end() || remote.empty())
        return oob::malformed("remote leader's group");
      ctx = std::max(proposal, theirs);
      for (const ProcessName& p : remote)
        if (std::find(group.begin(), group.end(), p) != group.end()) verdict = 2;
    }
    oob::WireWriter w;
    w.u32(verdict);
    w.u32(ctx);
    put_names(w, remote);
    answer = w.take();
    for (int r = 0; r < local.size(); ++r)
      if (r != leader) LZ_RETURN_IF_ERROR(send_bytes(local, answer, r, kTagAgree));
  }
  oob::WireReader r(answer);
  uint32_t verdict = 0, ctx = 0;
  std::vector<ProcessName> names;
  if (!r.u32(&verdict) || !r.u32(&ctx) || !get_names(r, &names) || !r.at_end())
    return oob::malformed("local leader's answer");
  if (verdict == 0)
    return Status(Code::kNotFound, "remote_leader " + std::to_string(remote_leader) +
                                       " is not a rank of the peer communicator (at the local leader)");
  if (verdict == 2) return InvalidArgument("the local and remote groups overlap");
  return Proposed{ctx, std::move(names)};
}

// Whether every member of both groups could take the agreed id: `ok` of
// each member to its leader, the leaders' conjunctions swapped, the result
// back to the members (the tags of propose()).
StatusOr<bool> confirm(Comm& local, int leader, Comm* peer, int remote_leader, int tag, bool ok) {
  uint32_t all = ok ? 1 : 0;
  if (local.rank() != leader) {
    LZ_RETURN_IF_ERROR(local.send(&all, sizeof all, bytes(), leader, kTagAgree));
    LZ_RETURN_IF_ERROR(local.recv(&all, sizeof all, bytes(), leader, kTagAgree));
    return all != 0;
  }
  for (int r = 0; r < local.size(); ++r) {
    if (r == leader) continue;
    uint32_t theirs = 0;
    LZ_RETURN_IF_ERROR(local.recv(&theirs, sizeof theirs, bytes(), r, kTagAgree));
    all &= theirs;
  }
  const int t = kTagLeaderBase - tag % kTagLeaderSpan;
  uint32_t remote = 0;
  LZ_RETURN_IF_ERROR(
      peer->sendrecv(&all, sizeof all, bytes(), remote_leader, t, &remote, sizeof remote, bytes(), remote_leader, t));
  all &= remote;
  for (int r = 0; r < local.size(); ++r)
    if (r != leader) LZ_RETURN_IF_ERROR(local.send(&all, sizeof all, bytes(), r, kTagAgree));
  return all != 0;
}

// The agreement of MPI_Intercomm_merge and _split over an intercommunicator
// (comm_factory.cpp's protocol, both groups at once): each process holds its
// proposal, takes the maximum where it is free, and a second exchange
// confirms it was free everywhere, else all try again.
struct AgreedInter {
  uint32_t ctx;
  Lists all;
};

StatusOr<AgreedInter> agree(Comm& inter, Record mine) {
  Engine& eng = runtime().engine();
  for (;;) {
    const uint32_t p = eng.next_context();
    eng.take_context(p);
    mine.next_context = p;
    StatusOr<Lists> all = exchange(inter, mine);
    if (!all.ok()) {
      eng.release_context(p);
      return all.status();
    }
    const uint32_t v = max_context(*all);
    const bool took = v != p && eng.context_free(v);
    if (took) eng.take_context(v);
    StatusOr<Lists> verdicts = exchange(inter, Record{v == p || took ? 0 : 1, 0, 0, 0});
    const auto fine = [](const std::vector<Record>& rs) {
      return std::all_of(rs.begin(), rs.end(), [](const Record& r) { return r.color == 0; });
    };
    if (verdicts.ok() && fine(verdicts->local) && fine(verdicts->remote)) {
      if (v != p) eng.release_context(p);
      return AgreedInter{v, std::move(*all)};
    }
    eng.release_context(p);
    if (took) eng.release_context(v);
    if (!verdicts.ok()) return verdicts.status();
  }
}

}  // namespace

StatusOr<Comm*> make_intercomm(Comm& parent, std::vector<int> local, std::vector<int> remote, uint32_t ctx,
                               Comm* holder) {
  const int me = runtime().rank();
  const auto it = std::find(local.begin(), local.end(), me);
  if (it == local.end()) {
    delete holder;
    return Internal("intercommunicator set up by a process outside its local group");
  }
  const int my_rank = static_cast<int>(it - local.begin());
  auto* c = holder != nullptr ? holder : new Comm();
  c->setup_inter(std::move(local), my_rank, std::move(remote), ctx);
  c->errhandler = parent.errhandler;
  return c;
}

StatusOr<Comm*> intercomm_create(Comm& local, int leader, Comm* peer, int remote_leader, int tag) {
  Engine& eng = runtime().engine();
  // comm_factory.cpp's protocol across both groups: each member holds its
  // proposal, takes the agreed maximum where it is free, and confirm() tells
  // whether all could; else all try again.
  for (;;) {
    const uint32_t mine = eng.next_context();
    eng.take_context(mine);
    StatusOr<Proposed> proposed = propose(local, leader, peer, remote_leader, tag, mine);
    if (!proposed.ok()) {
      eng.release_context(mine);
      return proposed.status();
    }
    const uint32_t ctx = proposed->ctx;
    const bool took = ctx != mine && eng.context_free(ctx);
    if (took) eng.take_context(ctx);
    StatusOr<bool> everyone = confirm(local, leader, peer, remote_leader, tag, ctx == mine || took);
    if (!everyone.ok() || !*everyone) {
      eng.release_context(mine);
      if (took) eng.release_context(ctx);
      if (!everyone.ok()) return everyone.status();
      continue;
    }
    if (ctx != mine) eng.release_context(mine);
    std::vector<int> remote;
    for (const ProcessName& p : proposed->remote) {
      const int i = eng.index_of(p);
      if (i < 0)
        return Unavailable("rank " + std::to_string(p.rank) + " of job " + p.job +
                           " (remote group) is not connected to this process");
      remote.push_back(i);
    }
    return make_intercomm(local, local.world_ranks(), std::move(remote), ctx);
  }
}

StatusOr<Comm*> intercomm_merge(Comm& inter, bool high) {
  Engine& eng = runtime().engine();
  LZ_ASSIGN_OR_RETURN(AgreedInter a, agree(inter, Record{high ? 1 : 0, 0, 0, runtime().rank()}));
  const uint32_t ctx = a.ctx;
  const Lists& all = a.all;
  const bool remote_high = all.remote[0].color != 0;
  bool local_first = !high && remote_high;
  // Both groups alike: the one whose rank 0 has the smaller (job id, world
  // rank) first, which both groups see the same, of one job or of two.
  if (high == remote_high) {
    const ProcessName a = eng.process_name(inter.world_ranks()[0]);
    const ProcessName b = eng.process_name(inter.remote_world_ranks()[0]);
    local_first = std::tie(a.job, a.rank) < std::tie(b.job, b.rank);
  }
  std::vector<int> world = local_first ? inter.world_ranks() : inter.remote_world_ranks();
  const std::vector<int>& second = local_first ? inter.remote_world_ranks() : inter.world_ranks();
  world.insert(world.end(), second.begin(), second.end());
  return make_comm(inter, std::move(world), ctx);
}

StatusOr<Comm*> intercomm_split(Comm& inter, int color, int key) {
  // Taken by every process, whatever its color: the colors share the id
  // (their memberships are disjoint), as in comm_split.
  LZ_ASSIGN_OR_RETURN(AgreedInter a, agree(inter, Record{color, key, 0, runtime().rank()}));
  const uint32_t ctx = a.ctx;
  const Lists& all = a.all;
  if (color == MPI_UNDEFINED) return static_cast<Comm*>(nullptr);
  std::vector<int> local = members(all.local, color), remote = members(all.remote, color);
  if (remote.empty()) return static_cast<Comm*>(nullptr);
  return make_intercomm(inter, std::move(local), std::move(remote), ctx);
}

}  // namespace lz::rt
