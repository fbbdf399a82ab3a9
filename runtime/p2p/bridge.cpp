#include "p2p/bridge.h"

#include <algorithm>

#include "lazarus/auth.h"
#include "lazarus/frameworks/transport_proxy.h"
#include "lazarus/log.h"
#include "lazarus/registry.h"
#include "lazarus/strings.h"
#include "oob/wire.h"
#include "p2p/engine.h"

namespace lz::rt {
namespace {

// Ranks of one host share a node id in every job's numbering of them.
uint64_t node_of(const std::string& host) { return std::hash<std::string>{}(host); }

}  // namespace

Bridge::Bridge(Engine& engine, std::vector<ProcessName> members, int me, std::string secret, Exchange exchange)
    : engine_(engine),
      members_(std::move(members)),
      me_(me),
      secret_(std::move(secret)),
      exchange_(std::move(exchange)) {
  info_.resize(members_.size());
  for (size_t i = 0; i < members_.size(); ++i) {
    info_[i].rank = static_cast<int>(i);
    info_[i].host = members_[i].host;
    info_[i].node_id = node_of(members_[i].host);
  }
  engine_index_.assign(members_.size(), -1);
}

Bridge::~Bridge() = default;

StatusOr<std::unique_ptr<Bridge>> Bridge::open(Engine& engine, Registry& reg, std::vector<ProcessName> members, int me,
                                               std::string secret, Exchange exchange) {
  std::unique_ptr<Bridge> b(new Bridge(engine, std::move(members), me, std::move(secret), std::move(exchange)));
  Framework* fw = reg.framework("transport");
  if (fw == nullptr) return Internal("no transport framework");
  QueryContext ctx = reg.query_context();
  ctx.rank = me;
  ctx.size = b->size();
  const std::vector<std::string>& wanted = reg.params().get_list("dpm_transport");
  if (wanted.empty()) return InvalidArgument("dpm_transport is empty: name the transports between jobs (e.g. tcp)");
  for (const std::string& name : wanted) {
    const ComponentEntry* e = fw->find(name);
    if (e == nullptr)
      return InvalidArgument("dpm_transport names '" + name +
                             "', which is no transport (known: " + str::join(fw->component_names(), ",") + ")");
    QueryResult q = fw->query_named(*e, ctx);
    if (!q.module) {
      log::debug("dpm: transport %s declined: %s", name.c_str(), q.declined.message().c_str());
      continue;
    }
    b->owned_.push_back(std::move(q.module));
    b->modules_.push_back(static_cast<transport::Module*>(b->owned_.back().get()));
    b->names_.push_back(name);
  }
  if (b->modules_.empty())
    return Unavailable("no transport of dpm_transport (" + str::join(wanted, ",") +
                       ") can run here; set dpm_transport to one that can (e.g. tcp)");
  for (size_t i = 0; i < b->modules_.size(); ++i)
    LZ_RETURN_IF_ERROR(b->modules_[i]->init(*b).with_context("dpm transport " + b->names_[i] + ": init"));
  for (auto*& m : b->modules_)
    if (auto* px = dynamic_cast<transport::ProxyModule*>(m); px != nullptr && px->real() != nullptr) m = px->real();
  LZ_RETURN_IF_ERROR(b->fence());
  // The exchange may hold the join's communicator, which does not outlive
  // this call: a later fence goes through the launchers (reconnect_bridges).
  b->exchange_ = nullptr;
  b->released_.assign(b->modules_.size(), false);
  for (size_t i = 0; i < b->modules_.size(); ++i)
    LZ_RETURN_IF_ERROR(b->modules_[i]->connect().with_context("dpm transport " + b->names_[i] + ": connect"));
  return b;
}

std::string Bridge::describe() const {
  std::vector<std::string> jobs;
  const std::string& mine = members_[static_cast<size_t>(me_)].job;
  for (const ProcessName& n : members_)
    if (n.job != mine && std::find(jobs.begin(), jobs.end(), n.job) == jobs.end()) jobs.push_back(n.job);
  return (jobs.size() == 1 ? "job " : "jobs ") + str::join(jobs, ",");
}

std::string Bridge::fence_key() const {
  // A MAC rather than a plain hash: the key names the bridge to launchers
  // and says nothing of the secret its transports authenticate with.
  const auth::Nonce zero{};
  const auth::Mac mac = auth::mac(secret_, "lazarus bridge key", zero, "");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string key;
  for (size_t i = 0; i < 16; ++i) {
    key += kHex[mac[i] >> 4];
    key += kHex[mac[i] & 15];
  }
  return key + "/" + std::to_string(epoch_);
}

Status Bridge::finalize() {
  Status first;
  for (auto* m : modules_) {
    Status s = m->finalize();
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

void Bridge::deliver(int src, const void* data, size_t len) { engine_.deliver(index_of(src), data, len); }

void Bridge::peer_failed(int r, const Status& why) {
  if (index_of(r) >= 0) engine_.peer_failed(index_of(r), why);
}

size_t Bridge::placement_head() const { return engine_.placement_head(); }

void* Bridge::place(int src, const void* head, size_t len) { return engine_.place(index_of(src), head, len); }

void Bridge::deliver_placed(int src, const void* head, size_t len) { engine_.deliver_placed(index_of(src), head, len); }

Status Bridge::put(std::string_view key, std::string_view value) {
  mine_[std::string(key)] = std::string(value);
  return Status::Ok();
}

std::string Bridge::encoded_entries() const {
  oob::WireWriter w;
  w.u32(static_cast<uint32_t>(mine_.size()));
  for (const auto& [k, v] : mine_) {
    w.str(k);
    w.str(v);
  }
  return w.take();
}

Status Bridge::fence() {
  if (!exchange_)
    return Internal("dpm modex: the bridge to " + describe() +
                    " fences only while it opens; after a checkpoint it re-opens through the launchers");
  LZ_ASSIGN_OR_RETURN(std::vector<std::string> all, exchange_(encoded_entries()));
  return take_entries(all);
}

Status Bridge::take_entries(const std::vector<std::string>& all) {
  if (all.size() != members_.size())
    return ProtocolError("dpm modex: " + std::to_string(all.size()) + " entries for " +
                         std::to_string(members_.size()) + " processes");
  // Decoded whole before anything changes: a bad table leaves the bridge as it was.
  std::vector<Entries> store(members_.size());
  for (size_t m = 0; m < all.size(); ++m) {
    if (all[m].empty()) continue;  // a member that did not re-open
    oob::WireReader r(all[m]);
    uint32_t n = 0;
    if (!r.u32(&n) || r.remaining() / 8 < n)
      return oob::malformed(("dpm modex entry of process " + std::to_string(m)).c_str());
    for (uint32_t i = 0; i < n; ++i) {
      std::string k, v;
      if (!r.str(&k, r.remaining()) || !r.str(&v, r.remaining()))
        return oob::malformed(("dpm modex entry of process " + std::to_string(m)).c_str());
      store[m][std::move(k)] = std::move(v);
    }
  }
  store_ = std::move(store);
  for (size_t m = 0; m < members_.size(); ++m) {
    const Entries& e = store_[m];
    if (auto it = e.find(kJobKey); it != e.end() && !it->second.empty()) members_[m].job = it->second;
    if (auto it = e.find(kHostKey); it != e.end() && !it->second.empty()) {
      members_[m].host = it->second;
      info_[m].host = it->second;
      info_[m].node_id = node_of(it->second);
    }
  }
  return Status::Ok();
}

StatusOr<std::string> Bridge::get(int rank, std::string_view key) const {
  if (rank < 0 || static_cast<size_t>(rank) >= store_.size())
    return NotFound("dpm modex: no process " + std::to_string(rank));
  const auto& e = store_[static_cast<size_t>(rank)];
  auto it = e.find(key);
  if (it == e.end()) return NotFound("dpm modex: process " + std::to_string(rank) + " has no " + std::string(key));
  return it->second;
}

}  // namespace lz::rt
