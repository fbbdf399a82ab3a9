// The engine's side of dynamic processes: peers of other jobs, reached
// through the modules of a Bridge (p2p/bridge.h).
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
