#include "p2p/dpm.h"

#include <algorithm>
#include <atomic>
#include <vector>

#include "lazarus/auth.h"
#include "lazarus/datatype/datatype.h"
#include "oob/wire.h"
#include "p2p/bridge.h"
#include "p2p/byte_messages.h"
#include "p2p/engine.h"
#include "p2p/intercomm_factory.h"
#include "p2p/runtime.h"

namespace lz::rt {
namespace {

// On the local group's collective context, beside comm_factory's agreement
// tag (-4096) and above the intercommunicator leaders' range (-4097 and below).
constexpr int kTagDpm = -4095;

const dt::Datatype& bytes() { return dt::byte_type(); }

// `s` from `root` to every member.
Status bcast_blob(Comm& c, int root, std::string* s) {
  if (c.rank() != root) {
    LZ_ASSIGN_OR_RETURN(*s, recv_bytes(c, root, kTagDpm));
    return Status::Ok();
  }
  for (int r = 0; r < c.size(); ++r)
    if (r != root) LZ_RETURN_IF_ERROR(send_bytes(c, *s, r, kTagDpm));
  return Status::Ok();
}

// Every member's `mine` at `root`, by rank (empty elsewhere).
StatusOr<std::vector<std::string>> gather_blobs(Comm& c, int root, const std::string& mine) {
  std::vector<std::string> all;
  if (c.rank() != root) {
    LZ_RETURN_IF_ERROR(send_bytes(c, mine, root, kTagDpm));
    return all;
  }
  all.resize(static_cast<size_t>(c.size()));
  for (int r = 0; r < c.size(); ++r) {
    if (r == root) {
      all[static_cast<size_t>(r)] = mine;
    } else {
      LZ_ASSIGN_OR_RETURN(all[static_cast<size_t>(r)], recv_bytes(c, r, kTagDpm));
    }
  }
  return all;
}

constexpr uint32_t kMaxMembers = 1u << 20;
constexpr size_t kMaxField = 1u << 26;

// What a group tells the other (step 2).
struct Side {
  uint32_t proposal = 0;
  std::string secret;  // the accepting group's only
  std::vector<ProcessName> members;
};

std::string encode_side(const Side& s) {
  oob::WireWriter w;
  w.u32(s.proposal);
  w.str(s.secret);
  put_names(w, s.members);
  return w.take();
}

StatusOr<Side> decode_side(const std::string& bytes) {
  oob::WireReader r(bytes);
  Side s;
  if (!r.u32(&s.proposal) || !r.str(&s.secret, kMaxField) || !get_names(r, &s.members) || !r.at_end())
    return oob::malformed("dpm group description");
  return s;
}

// A root's message to its members: a verdict (empty: go on; else the
// error) and what follows it.
std::string verdict(const Status& s) { return s.ok() ? std::string() : s.message(); }

Status from_verdict(const std::string& v) {
  return v.empty() ? Status::Ok() : Status(Code::kUnavailable, "at the root of this group: " + v);
}

// The roots swap `mine` and the other's, the connecting root speaking first.
StatusOr<std::string> swap(DpmLink& link, bool accepting, const std::string& mine, double deadline,
                           const DpmIdle& idle) {
  if (!accepting) LZ_RETURN_IF_ERROR(link.send(mine, deadline, idle));
  LZ_ASSIGN_OR_RETURN(std::string theirs, link.recv(deadline, idle));
  if (accepting) LZ_RETURN_IF_ERROR(link.send(mine, deadline, idle));
  return theirs;
}

}  // namespace

namespace {
std::atomic<int> g_dpm_calls{0};
}  // namespace

DpmCallGuard::DpmCallGuard() { g_dpm_calls.fetch_add(1, std::memory_order_acq_rel); }
DpmCallGuard::~DpmCallGuard() { g_dpm_calls.fetch_sub(1, std::memory_order_acq_rel); }
int dpm_calls_under_way() { return g_dpm_calls.load(std::memory_order_acquire); }

StatusOr<Comm*> dpm_join_groups(Comm& local, int root, bool accepting, DpmLink* link, const Status& root_error,
                                double deadline_s) {
  Runtime& rt = runtime();
  Engine& eng = rt.engine();
  const DpmIdle idle = [&eng] { eng.progress(); };
  const bool at_root = local.rank() == root;

  // 1. Context proposals at the root.
  uint32_t proposal = eng.next_context();
  if (!at_root) {
    LZ_RETURN_IF_ERROR(local.send(&proposal, sizeof proposal, bytes(), root, kTagDpm));
  } else {
    for (int r = 0; r < local.size(); ++r) {
      if (r == root) continue;
      uint32_t theirs = 0;
      LZ_RETURN_IF_ERROR(local.recv(&theirs, sizeof theirs, bytes(), r, kTagDpm));
      proposal = std::max(proposal, theirs);
    }
  }

  // 2-3. The roots swap their groups; each tells its members the plan.
  std::string plan;
  if (at_root) {
    Status s = root_error;
    Side mine, theirs;
    if (s.ok() && (link == nullptr || !link->valid())) s = Internal("dpm: no link to the other group's root");
    if (s.ok()) {
      mine.proposal = proposal;
      if (accepting) mine.secret = auth::new_secret();
      for (int w : local.world_ranks()) mine.members.push_back(eng.process_name(w));
      auto got = swap(*link, accepting, encode_side(mine), deadline_s, idle);
      auto side = got.ok() ? decode_side(*got) : StatusOr<Side>(got.status());
      if (side.ok())
        theirs = std::move(*side);
      else
        s = side.status();
    }
    oob::WireWriter w;
    w.str(verdict(s));
    if (s.ok()) {
      const Side& acc = accepting ? mine : theirs;
      const Side& con = accepting ? theirs : mine;
      w.u32(std::max(mine.proposal, theirs.proposal));
      w.str(acc.secret);
      put_names(w, acc.members);
      put_names(w, con.members);
    }
    plan = w.take();
  }
  LZ_RETURN_IF_ERROR(bcast_blob(local, root, &plan));
  oob::WireReader pr(plan);
  std::string v, secret;
  if (!pr.str(&v, kMaxField)) return oob::malformed("dpm plan");
  LZ_RETURN_IF_ERROR(from_verdict(v));
  uint32_t ctx = 0;
  std::vector<ProcessName> acc, con;
  if (!pr.u32(&ctx) || !pr.str(&secret, kMaxField) || !get_names(pr, &acc) || !get_names(pr, &con) || !pr.at_end())
    return oob::malformed("dpm plan");
  eng.take_context(ctx);
  const size_t n_acc = acc.size();
  std::vector<ProcessName> members = std::move(acc);
  members.insert(members.end(), con.begin(), con.end());
  const ProcessName self = eng.process_name(rt.rank());
  const auto at = std::find(members.begin(), members.end(), self);
  if (at == members.end()) return Internal("dpm: this process is not in its own group's list");
  const int me = static_cast<int>(at - members.begin());

  // 4. The bridge, its addresses gathered at each root and swapped.
  Bridge::Exchange exchange = [&](const std::string& entries) -> StatusOr<std::vector<std::string>> {
    LZ_ASSIGN_OR_RETURN(std::vector<std::string> ours, gather_blobs(local, root, entries));
    // The root's answer: a verdict, then every member's entries (the
    // accepting group's first).
    std::string all;
    if (at_root) {
      oob::WireWriter mine;
      oob::put_strings(mine, ours);
      auto got = swap(*link, accepting, mine.data(), deadline_s, idle);
      std::vector<std::string> theirs;
      if (got.ok()) {
        oob::WireReader r(*got);
        if (!oob::get_strings(r, &theirs, kMaxMembers, kMaxField) || !r.at_end())
          got = oob::malformed("dpm address list");
      }
      oob::WireWriter w;
      w.str(got.ok() ? std::string() : got.status().message());
      if (got.ok()) {
        std::vector<std::string>& first = accepting ? ours : theirs;
        const std::vector<std::string>& second = accepting ? theirs : ours;
        first.insert(first.end(), second.begin(), second.end());
        oob::put_strings(w, first);
      }
      all = w.take();
    }
    LZ_RETURN_IF_ERROR(bcast_blob(local, root, &all));
    oob::WireReader r(all);
    std::string v2;
    if (!r.str(&v2, kMaxField)) return oob::malformed("dpm address exchange");
    LZ_RETURN_IF_ERROR(from_verdict(v2));
    std::vector<std::string> out;
    if (!oob::get_strings(r, &out, kMaxMembers, kMaxField) || !r.at_end())
      return oob::malformed("dpm address exchange");
    return out;
  };
  LZ_ASSIGN_OR_RETURN(std::unique_ptr<Bridge> bridge,
                      Bridge::open(eng, rt.registry(), std::move(members), me, std::move(secret), exchange));

  // 5. The engine's numbers of the other group, and the intercommunicator.
  LZ_ASSIGN_OR_RETURN(std::vector<int> index, eng.adopt_bridge(std::move(bridge)));
  std::vector<int> remote;
  if (accepting)
    remote.assign(index.begin() + static_cast<long>(n_acc), index.end());
  else
    remote.assign(index.begin(), index.begin() + static_cast<long>(n_acc));
  return make_intercomm(local, local.world_ranks(), std::move(remote), ctx);
}

}  // namespace lz::rt
