// The engine's side of dynamic processes: peers of other jobs, reached
// through the modules of a Bridge (p2p/bridge.h), and what a checkpoint of
// the spawn tree does with them (markers, re-opening the bridges).
#include <algorithm>

#include "lazarus/log.h"
#include "lazarus/strings.h"
#include "p2p/engine.h"
#include "p2p/engine_detail.h"

namespace lz::rt {

using namespace engine_detail;

StatusOr<std::vector<int>> Engine::adopt_bridge(std::unique_ptr<Bridge> b) {
  const std::string& my_job = boot_->job().job_id;
  const int n = b->size();
  std::vector<int> index(static_cast<size_t>(n), -1);
  std::vector<Peer> added;
  for (int m = 0; m < n; ++m) {
    const ProcessName& who = b->members()[static_cast<size_t>(m)];
    if (who.job == my_job) {
      if (who.rank < 0 || who.rank >= size_)
        return ProtocolError("dpm: process " + std::to_string(who.rank) + " of this job is not one of its " +
                             std::to_string(size_) + " ranks");
      index[static_cast<size_t>(m)] = who.rank;
      continue;
    }
    Peer p;
    p.index = m;
    transport::Attributes best;
    size_t chosen = 0;
    p.transport = best_module(b->modules(), m, &best, &chosen);
    if (p.transport == nullptr)
      return Unavailable("no dpm transport (" + str::join(b->module_names(), ",") + ") reaches rank " +
                         std::to_string(who.rank) + " of job " + who.job + " on host " + who.host +
                         "; set dpm_transport to one that does (e.g. tcp)");
    LZ_RETURN_IF_ERROR(set_limits(p, best));
    index[static_cast<size_t>(m)] = static_cast<int>(peers_.size() + added.size());
    log::debug("dpm: rank %d of job %s is peer %d, through %s", who.rank, who.job.c_str(),
               index[static_cast<size_t>(m)], b->module_names()[chosen].c_str());
    added.push_back(std::move(p));
  }
  // Nothing can fail from here: the engine takes the peers and the modules.
  for (int m = 0; m < n; ++m) {
    b->set_engine_index(m, index[static_cast<size_t>(m)]);
    const ProcessName& who = b->members()[static_cast<size_t>(m)];
    if (who.job == my_job) continue;
    transport::PeerInfo pi = b->peer(m);
    pi.rank = index[static_cast<size_t>(m)];
    peer_info_.push_back(std::move(pi));
    foreign_names_.push_back(who);
  }
  for (auto& p : added) peers_.push_back(std::move(p));
  for (auto* t : b->modules()) {
    active_.push_back(t);
    if (t->wait_fd() < 0) any_without_fd_ = true;
  }
  // More than one transport to look at: no blocking wait gives one its turns alone.
  sole_ = nullptr;
  bridges_.push_back(std::move(b));
  return index;
}

Status Engine::send_marker(int index, uint32_t gen, uint32_t echo) {
  if (index < size_ || index >= peer_count())
    return InvalidArgument("a bridge marker goes to a peer of another job (" + std::to_string(size_) + " to " +
                           std::to_string(peer_count() - 1) + "), not to peer " + std::to_string(index));
  Peer& p = peers_[static_cast<size_t>(index)];
  const ProcessName who = process_name(index);
  if (p.failed) return Status(Code::kAborted, "rank " + std::to_string(who.rank) + " of job " + who.job + " failed");
  wire::Header h = make_header(wire::kMarker, 0, rank_, 0, 0);
  h.sreq = p.sent.messages;
  h.rreq = p.sent.bytes;
  h.addr = static_cast<uint64_t>(gen) << 32 | echo;
  iovec iov{&h, sizeof h};
  // The transport directly: transmit() would count it, send_frame() would hold it.
  return p.transport->send(p.index, &iov, 1);
}

Status Engine::send_line_count(int index, uint64_t epoch, uint64_t sent) {
  if (index < size_ || index >= peer_count())
    return InvalidArgument("a line count goes to a peer of another job, not to peer " + std::to_string(index));
  if (peers_[static_cast<size_t>(index)].failed) return Status(Code::kAborted, "the peer has failed");
  wire::Header h = make_header(wire::kLineCount, 0, rank_, 0, 0);
  h.sreq = sent;
  h.rreq = epoch;
  return send_frame(index, h, nullptr, 0);
}

Status Engine::reconnect_bridges(double timeout_s) {
  // Every bridge, even one whose transports a failed checkpoint_transports()
  // left open: its other members fence it (and count its epoch) all the same.
  std::vector<Bridge*> todo;
  for (auto& b : bridges_) todo.push_back(b.get());
  if (todo.empty()) return Status::Ok();
  // Where this process is now (a restart may have moved it, and gives its job a new id).
  const ProcessName me = process_name(rank_);
  std::vector<oob::BridgeFenceMsg> fences;
  for (Bridge* b : todo) {
    b->next_epoch();
    LZ_RETURN_IF_ERROR(b->put(Bridge::kHostKey, me.host));
    LZ_RETURN_IF_ERROR(b->put(Bridge::kJobKey, me.job));
    oob::BridgeFenceMsg m;
    m.key = b->fence_key();
    m.member = static_cast<uint32_t>(b->rank());
    m.members = static_cast<uint32_t>(b->size());
    m.entries = b->encoded_entries();
    for (int member = 0; member < b->size(); ++member) {
      const int index = b->engine_index(member);
      if (index >= size_ && peer_lost(index)) m.gone.push_back(static_cast<uint32_t>(member));
    }
    if (m.entries.size() > oob::kMaxBridgeEntryBytes)
      return Internal("the addresses of this process for the bridge to " + b->describe() + " take " +
                      std::to_string(m.entries.size()) + " bytes, more than a BRIDGE_FENCE carries (" +
                      std::to_string(oob::kMaxBridgeEntryBytes) + ")");
    fences.push_back(std::move(m));
  }
  LZ_ASSIGN_OR_RETURN(std::vector<oob::BridgeTableMsg> tables, boot_->bridge_fence(fences, timeout_s));
  for (size_t k = 0; k < todo.size(); ++k) {
    Bridge& b = *todo[k];
    const std::string where = "the bridge to " + b.describe() + " (key " + fences[k].key + ")";
    if (!tables[k].error.empty()) return Unavailable(where + ": the launchers could not re-open it: " + tables[k].error);
    LZ_RETURN_IF_ERROR(b.take_entries(tables[k].entries).with_context(where));
    for (size_t i = 0; i < b.modules().size(); ++i) {
      if (!b.released(i)) continue;
      LZ_RETURN_IF_ERROR(b.modules()[i]->connect().with_context(where + ": dpm transport " + b.module_names()[i] +
                                                                 ": connect after the checkpoint"));
      b.set_released(i, false);
    }
    // Its peers' names and hosts as they are now, and a transport for each again.
    for (int m = 0; m < b.size(); ++m) {
      const int index = b.engine_index(m);
      if (index < size_) continue;
      const ProcessName& who = b.members()[static_cast<size_t>(m)];
      foreign_names_[static_cast<size_t>(index - size_)] = who;
      peer_info_[static_cast<size_t>(index)].host = b.peer(m).host;
      peer_info_[static_cast<size_t>(index)].node_id = b.peer(m).node_id;
      Peer& p = peers_[static_cast<size_t>(index)];
      if (p.failed) continue;
      if (!b.has_entries(m)) {
        lose_peer(index,
                  Status(Code::kAborted, "rank " + std::to_string(who.rank) + " of job " + who.job +
                                             " did not re-open its bridge after the checkpoint (its job ended)"),
                  false);
        continue;
      }
      transport::Attributes best;
      size_t chosen = 0;
      transport::Module* t = best_module(b.modules(), m, &best, &chosen);
      if (t == nullptr)
        return Unavailable(where + ": after the checkpoint no dpm transport (" + str::join(b.module_names(), ",") +
                           ") reaches rank " + std::to_string(who.rank) + " of job " + who.job + " on host " +
                           who.host);
      p.transport = t;
      LZ_RETURN_IF_ERROR(set_limits(p, best));
    }
  }
  add_bridge_modules();
  return Status::Ok();
}

ProcessName Engine::process_name(int index) const {
  if (index < size_) return {boot_->job().job_id, index, peer_info_[static_cast<size_t>(index)].host};
  return foreign_names_[static_cast<size_t>(index - size_)];
}

int Engine::index_of(const ProcessName& n) const {
  if (n.job == boot_->job().job_id) return n.rank >= 0 && n.rank < size_ ? n.rank : -1;
  for (size_t i = 0; i < foreign_names_.size(); ++i)
    if (foreign_names_[i] == n) return size_ + static_cast<int>(i);
  return -1;
}

}  // namespace lz::rt
