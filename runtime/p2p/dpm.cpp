#include "p2p/dpm.h"

#include <algorithm>
#include <vector>

#include "lazarus/auth.h"
#include "lazarus/datatype/datatype.h"
#include "p2p/bridge.h"
#include "p2p/dpm_codec.h"
#include "p2p/engine.h"
#include "p2p/intercomm_factory.h"
#include "p2p/runtime.h"

namespace lz::rt {
namespace {

// On the local group's collective context, beside comm_factory's agreement
// tag (-4096) and above the intercommunicator leaders' range (-4097 and below).
constexpr int kTagDpm = -4095;

const dt::Datatype& bytes() { return dt::byte_type(); }

Status send_blob(Comm& c, int dst, const std::string& s) {
  const uint64_t n = s.size();
  LZ_RETURN_IF_ERROR(c.send(&n, sizeof n, bytes(), dst, kTagDpm));
  return c.send(s.data(), static_cast<int>(n), bytes(), dst, kTagDpm);
}

StatusOr<std::string> recv_blob(Comm& c, int src) {
  uint64_t n = 0;
  LZ_RETURN_IF_ERROR(c.recv(&n, sizeof n, bytes(), src, kTagDpm));
  if (n > (1u << 30)) return ProtocolError("dpm: a blob of " + std::to_string(n) + " bytes");
  std::string s(static_cast<size_t>(n), '\0');
  LZ_RETURN_IF_ERROR(c.recv(s.data(), static_cast<int>(n), bytes(), src, kTagDpm));
  return s;
}

// `s` from `root` to every member.
Status bcast_blob(Comm& c, int root, std::string* s) {
  if (c.rank() != root) {
    LZ_ASSIGN_OR_RETURN(*s, recv_blob(c, root));
    return Status::Ok();
  }
  for (int r = 0; r < c.size(); ++r)
    if (r != root) LZ_RETURN_IF_ERROR(send_blob(c, r, *s));
  return Status::Ok();
}

// Every member's `mine` at `root`, by rank (empty elsewhere).
StatusOr<std::vector<std::string>> gather_blobs(Comm& c, int root, const std::string& mine) {
  std::vector<std::string> all;
  if (c.rank() != root) {
    LZ_RETURN_IF_ERROR(send_blob(c, root, mine));
    return all;
  }
  all.resize(static_cast<size_t>(c.size()));
  for (int r = 0; r < c.size(); ++r) {
    if (r == root) {
      all[static_cast<size_t>(r)] = mine;
    } else {
      LZ_ASSIGN_OR_RETURN(all[static_cast<size_t>(r)], recv_blob(c, r));
    }
  }
  return all;
}

void put_names(DpmWriter& w, const std::vector<ProcessName>& names) {
  w.u32(static_cast<uint32_t>(names.size()));
  for (const auto& n : names) {
    w.str(n.job);
    w.u32(static_cast<uint32_t>(n.rank));
    w.str(n.host);
  }
}

StatusOr<std::vector<ProcessName>> get_names(DpmReader& r) {
  LZ_ASSIGN_OR_RETURN(uint32_t n, r.u32());
  if (n > (1u << 20)) return ProtocolError("dpm: a group of " + std::to_string(n) + " processes");
  std::vector<ProcessName> out(n);
  for (auto& p : out) {
    LZ_ASSIGN_OR_RETURN(p.job, r.str());
    LZ_ASSIGN_OR_RETURN(uint32_t rank, r.u32());
    p.rank = static_cast<int>(rank);
    LZ_ASSIGN_OR_RETURN(p.host, r.str());
  }
  return out;
}

void put_strings(DpmWriter& w, const std::vector<std::string>& v) {
  w.u32(static_cast<uint32_t>(v.size()));
  for (const auto& s : v) w.str(s);
}

StatusOr<std::vector<std::string>> get_strings(DpmReader& r) {
  LZ_ASSIGN_OR_RETURN(uint32_t n, r.u32());
  if (n > (1u << 20)) return ProtocolError("dpm: a list of " + std::to_string(n) + " entries");
  std::vector<std::string> out(n);
  for (auto& s : out) {
    LZ_ASSIGN_OR_RETURN(s, r.str());
  }
  return out;
}

// What a group tells the other (step 2).
struct Side {
  uint32_t proposal = 0;
  std::string secret;  // the accepting group's only
  std::vector<ProcessName> members;
};

std::string encode_side(const Side& s) {
  DpmWriter w;
  w.u32(s.proposal);
  w.str(s.secret);
  put_names(w, s.members);
  return w.take();
}

StatusOr<Side> decode_side(const std::string& bytes) {
  DpmReader r(bytes, "the other group's description");
  Side s;
  LZ_ASSIGN_OR_RETURN(s.proposal, r.u32());
  LZ_ASSIGN_OR_RETURN(s.secret, r.str());
  LZ_ASSIGN_OR_RETURN(s.members, get_names(r));
  return s;
}

// A root's message to its members: a verdict (empty: go on; else the
// error) and what follows it.
std::string verdict(const Status& s) { return s.ok() ? std::string() : s.to_string(); }

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
    DpmWriter w;
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
  DpmReader pr(plan, "the dpm plan");
  LZ_ASSIGN_OR_RETURN(std::string v, pr.str());
  LZ_RETURN_IF_ERROR(from_verdict(v));
  LZ_ASSIGN_OR_RETURN(uint32_t ctx, pr.u32());
  LZ_ASSIGN_OR_RETURN(std::string secret, pr.str());
  LZ_ASSIGN_OR_RETURN(std::vector<ProcessName> acc, get_names(pr));
  LZ_ASSIGN_OR_RETURN(std::vector<ProcessName> con, get_names(pr));
  eng.take_context(ctx);
  const size_t n_acc = acc.size();
  std::vector<ProcessName> members = std::move(acc);
  members.insert(members.end(), con.begin(), con.end());
  const ProcessName& self = eng.process_name(rt.rank());
  const auto at = std::find(members.begin(), members.end(), self);
  if (at == members.end()) return Internal("dpm: this process is not in its own group's list");
  const int me = static_cast<int>(at - members.begin());

  // 4. The bridge, its addresses gathered at each root and swapped.
  Bridge::Exchange exchange = [&](const std::string& entries) -> StatusOr<std::vector<std::string>> {
    LZ_ASSIGN_OR_RETURN(std::vector<std::string> ours, gather_blobs(local, root, entries));
    std::string all;
    if (at_root) {
      DpmWriter mine;
      put_strings(mine, ours);
      auto got = swap(*link, accepting, mine.bytes(), deadline_s, idle);
      DpmWriter w;
      w.str(got.ok() ? std::string() : got.status().to_string());
      if (got.ok()) {
        w.str(accepting ? mine.bytes() : *got);
        w.str(accepting ? *got : mine.bytes());
      }
      all = w.take();
    }
    LZ_RETURN_IF_ERROR(bcast_blob(local, root, &all));
    DpmReader r(all, "the dpm address exchange");
    LZ_ASSIGN_OR_RETURN(std::string v2, r.str());
    LZ_RETURN_IF_ERROR(from_verdict(v2));
    LZ_ASSIGN_OR_RETURN(std::string first, r.str());
    LZ_ASSIGN_OR_RETURN(std::string second, r.str());
    DpmReader r1(first, "the accepting group's addresses"), r2(second, "the connecting group's addresses");
    LZ_ASSIGN_OR_RETURN(std::vector<std::string> out, get_strings(r1));
    LZ_ASSIGN_OR_RETURN(std::vector<std::string> more, get_strings(r2));
    out.insert(out.end(), more.begin(), more.end());
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
