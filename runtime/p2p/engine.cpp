#include "p2p/engine.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>

#include "lazarus/cpu_list.h"
#include "lazarus/frameworks/transport_proxy.h"
#include "lazarus/log.h"
#include "p2p/comm.h"
#include "p2p/cpu_sharing.h"
#include "p2p/engine_detail.h"
#include "p2p/registration_cache.h"

namespace lz::rt {

using namespace engine_detail;

Engine::Engine() = default;

Engine::~Engine() = default;

Status Engine::init(Bootstrap& boot, Registry& reg) {
  boot_ = &boot;
  const JobInfo& job = boot.job();
  rank_ = job.rank;
  size_ = job.size;
  peer_info_.resize(static_cast<size_t>(size_));
  for (int r = 0; r < size_; ++r) {
    auto& pi = peer_info_[static_cast<size_t>(r)];
    pi.rank = r;
    if (static_cast<size_t>(r) < job.hostname_of_rank.size()) pi.host = job.hostname_of_rank[static_cast<size_t>(r)];
    if (static_cast<size_t>(r) < job.node_of_rank.size()) pi.node_id = job.node_of_rank[static_cast<size_t>(r)];
  }
  peers_.resize(static_cast<size_t>(size_));
  const ParamStore& ps = reg.params();
  eager_limit_param_ = static_cast<uint64_t>(std::max<int64_t>(0, ps.get_int("p2p_eager_limit")));
  spin_count_ = static_cast<int>(std::max<int64_t>(0, ps.get_int("p2p_spin_count")));
  spin_time_ns_ = std::max<int64_t>(0, ps.get_int("p2p_spin_time")) * 1000;
  yield_time_ns_ = std::max<int64_t>(0, ps.get_int("p2p_spin_yield_time")) * 1000;
  wait_timeout_ms_ = static_cast<int>(std::clamp<int64_t>(ps.get_int("p2p_wait_timeout_ms"), 1, 1000));
  flush_timeout_s_ = ps.get_double("p2p_flush_timeout");
  if (!(flush_timeout_s_ >= 0))
    return InvalidArgument("p2p_flush_timeout = " + std::to_string(flush_timeout_s_) +
                           " must be 0 (no limit) or a number of seconds");
  const std::vector<int> my_cpus = own_cpus();
  LZ_RETURN_IF_ERROR(boot.put(kCpusKey, format_cpu_list(my_cpus)).with_context("modex put " + std::string(kCpusKey)));

  Framework* fw = reg.framework("transport");
  if (fw == nullptr) return Internal("no transport framework");
  QueryContext ctx = reg.query_context();
  ctx.rank = rank_;
  ctx.size = size_;
  auto selected = fw->select(ctx);
  if (!selected.ok()) return selected.status().with_context("transport selection");
  std::vector<std::string> names;
  for (auto& q : *selected) {
    if (!q.module) continue;
    names.push_back(q.entry->desc->name);
    owned_.push_back(std::move(q.module));
    modules_.push_back(static_cast<transport::Module*>(owned_.back().get()));
  }
  if (modules_.empty()) return Unavailable("no transport is usable (check the 'transport' parameter)");
  for (size_t i = 0; i < modules_.size(); ++i)
    LZ_RETURN_IF_ERROR(modules_[i]->init(*this).with_context("transport " + names[i] + ": init"));
  // A module whose code lives in a companion library (ucx, ofi) is handed out
  // as a transport::ProxyModule that forwards every call to the real one
  // once init() made it. Called directly from here on: the forwarding was
  // one more indirect call on every send and every progress turn (ucx over
  // shared memory, where a half round trip is about 0.5 us). The proxy still
  // owns it (owned_).
  for (auto*& m : modules_)
    if (auto* px = dynamic_cast<transport::ProxyModule*>(m); px != nullptr && px->real() != nullptr) m = px->real();
  LZ_RETURN_IF_ERROR(boot.fence().with_context("modex fence"));
  oversubscribed_ = decide_oversubscribed(my_cpus);
  log::debug("rank %d on CPUs %s: %s", rank_, format_cpu_list(my_cpus).c_str(),
             oversubscribed_ ? "shared with more ranks than CPUs, a spinning wait yields"
                             : "not oversubscribed, a spinning wait does not yield");
  for (size_t i = 0; i < modules_.size(); ++i)
    LZ_RETURN_IF_ERROR(modules_[i]->connect().with_context("transport " + names[i] + ": connect"));

  module_names_ = names;
  cr_released_.assign(modules_.size(), false);
  LZ_RETURN_IF_ERROR(choose_transports());
  live_ = true;
  boot.set_reply_wait([this](int fd) { wait_readable(fd); });
  return Status::Ok();
}

bool Engine::decide_oversubscribed(const std::vector<int>& my_cpus) const {
  const JobInfo& job = boot_->job();
  std::vector<std::vector<int>> local;
  size_t self = 0;
  for (int r = 0; r < size_; ++r) {
    if (peer_info_[static_cast<size_t>(r)].node_id != job.node_id) continue;
    if (r == rank_) {
      self = local.size();
      local.push_back(my_cpus);
      continue;
    }
    auto text = boot_->get(r, kCpusKey);
    auto cpus = text.ok() ? parse_cpu_list(*text) : StatusOr<std::vector<int>>(text.status());
    if (!cpus.ok()) {
      // Cannot happen between ranks of one build; fall back to the
      // conservative rule (more local ranks than CPUs this rank may use).
      log::warn("rank %d's CPU list: %s", r, cpus.status().message().c_str());
      return job.local_size > static_cast<int>(my_cpus.size());
    }
    local.push_back(std::move(*cpus));
  }
  return shares_cpus_with_more_ranks(local, self);
}

void Engine::refresh_peer_info() {
  const JobInfo& job = boot_->job();
  for (int r = 0; r < size_; ++r) {
    auto& pi = peer_info_[static_cast<size_t>(r)];
    if (static_cast<size_t>(r) < job.hostname_of_rank.size()) pi.host = job.hostname_of_rank[static_cast<size_t>(r)];
    if (static_cast<size_t>(r) < job.node_of_rank.size()) pi.node_id = job.node_of_rank[static_cast<size_t>(r)];
  }
}

Status Engine::choose_transports() {
  active_.clear();
  idle_.clear();
  self_only_ = nullptr;
  sole_ = nullptr;
  any_without_fd_ = false;
  std::string all_names;
  for (auto& n : module_names_) all_names += (all_names.empty() ? "" : ",") + n;
  for (int r = 0; r < size_; ++r) {
    Peer& p = peers_[static_cast<size_t>(r)];
    p.index = r;
    // The highest exclusivity, then the lower latency, then priority order.
    transport::Attributes best;
    size_t chosen = 0;
    p.transport = best_module(modules_, r, &best, &chosen);
    if (p.transport == nullptr)
      return Unavailable("no selected transport (" + all_names + ") reaches rank " + std::to_string(r) + " on host " +
                         peer_info_[static_cast<size_t>(r)].host + "; enable one that does (e.g. --mca transport tcp,self)");
    LZ_RETURN_IF_ERROR(set_limits(p, best));
    // A rank reads its own memory with memcpy: single copy for rendezvous to itself.
    p.has_get = p.has_get || r == rank_;
    if (std::find(active_.begin(), active_.end(), p.transport) == active_.end()) active_.push_back(p.transport);
    log::debug("p2p: rank %d reached through %s (caps %s, exclusivity %u, ~%.2f us, ~%.0f MB/s), eager limit %zu", r,
               module_names_[chosen].c_str(), transport::capability_names(p.transport->capabilities()).c_str(),
               best.exclusivity, best.latency_us, best.bandwidth_mbs, p.eager_limit);
  }
  // Modules no peer of ours uses still get progressed now and then: a peer
  // may reach us through one of them.
  for (auto* m : modules_)
    if (std::find(active_.begin(), active_.end(), m) == active_.end()) idle_.push_back(m);
  self_only_ = nullptr;
  sole_ = nullptr;
  size_t others = 0;
  for (auto* m : active_) {
    uint64_t caps = m->capabilities();
    if (caps & transport::kCapSelf) {
      self_only_ = m;
      continue;
    }
    if (m->wait_fd() < 0) any_without_fd_ = true;
    sole_ = m;
    ++others;
  }
  if (others != 1) sole_ = nullptr;
  // After a checkpoint the bridges' modules come back once reconnect_bridges() connected them.
  add_bridge_modules();
  for (size_t i = 0; i < modules_.size(); ++i)
    if (modules_[i] == sole_ && !oversubscribed_ && spin_time_ns_ > 0)
      log::debug("p2p: rank %d: blocking waits give %s its turns alone (progress_waiting, %d looks)", rank_,
                 module_names_[i].c_str(), kWaitPolls);
  return Status::Ok();
}

void Engine::add_bridge_modules() {
  for (auto& b : bridges_) {
    for (size_t i = 0; i < b->modules().size(); ++i) {
      transport::Module* t = b->modules()[i];
      if (b->released(i) || std::find(active_.begin(), active_.end(), t) != active_.end()) continue;
      active_.push_back(t);
      if (t->wait_fd() < 0) any_without_fd_ = true;
      // More than one transport to look at: no blocking wait gives one its turns alone.
      sole_ = nullptr;
    }
  }
}

transport::Module* Engine::best_module(const std::vector<transport::Module*>& modules, int index,
                                       transport::Attributes* best, size_t* chosen) {
  transport::Module* out = nullptr;
  for (size_t i = 0; i < modules.size(); ++i) {
    transport::Module* m = modules[i];
    if (!m->reaches(index)) continue;
    const transport::Attributes a = m->attributes(index);
    if (out == nullptr || a.exclusivity > best->exclusivity ||
        (a.exclusivity == best->exclusivity && a.latency_us < best->latency_us)) {
      out = m;
      *best = a;
      *chosen = i;
    }
  }
  return out;
}

Status Engine::set_limits(Peer& p, const transport::Attributes& a) const {
  const size_t mf = p.transport->max_frame();
  p.max_payload = mf > sizeof(wire::Header) ? mf - sizeof(wire::Header) : 0;
  if (p.max_payload == 0) return Internal("transport max_frame too small for the p2p header");
  const uint64_t eager = eager_limit_param_ ? eager_limit_param_ : a.eager_limit;
  p.eager_limit = static_cast<size_t>(std::min<uint64_t>(eager, p.max_payload));
  p.get_threshold = a.get_threshold;
  p.zcopy_from = a.zcopy_threshold;
  p.has_get = (p.transport->capabilities() & transport::kCapGet) != 0;
  p.rma_passive = a.rma_passive;
  return Status::Ok();
}

std::string Engine::unsent_to(int r) const {
  const Peer& p = peers_[static_cast<size_t>(r)];
  if (p.failed) return "";  // its frames are gone; peer_failed said so
  const size_t in_transport = p.transport != nullptr ? p.transport->unsent_bytes(p.index) : 0;
  std::string out;
  if (!p.pending.empty()) out = std::to_string(p.pending.size()) + " frame(s) waiting for transport room";
  if (in_transport != 0)
    out += (out.empty() ? "" : ", ") + std::to_string(in_transport) + " bytes queued in the transport";
  return out;
}

std::string Engine::unsent_summary(std::vector<int>* owed) const {
  std::string out;
  for (int r = 0; r < peer_count(); ++r) {
    const std::string what = unsent_to(r);
    if (what.empty()) continue;
    out += (out.empty() ? "rank " : ", rank ") + std::to_string(r) + " (" + what + ")";
    owed->push_back(r);
  }
  return out;
}

Status Engine::flush_sends() {
  const double timeout_s = flush_timeout_s_;
  std::vector<int> owed;
  std::string waiting = unsent_summary(&owed);
  const double t0 = now_seconds();
  double next_note = 30;
  while (!waiting.empty()) {
    progress_wait(wait_timeout_ms_);
    std::string lost;
    for (int r : owed)
      if (peers_[static_cast<size_t>(r)].failed) lost += (lost.empty() ? "" : ", ") + std::to_string(r);
    if (!lost.empty())
      return DataLoss("frames sent before MPI_Finalize to rank(s) " + lost + " were lost: the rank failed first");
    owed.clear();
    waiting = unsent_summary(&owed);
    if (waiting.empty()) break;
    const double waited = now_seconds() - t0;
    if (timeout_s > 0 && waited > timeout_s)
      return Timeout("frames sent before MPI_Finalize did not leave this process within " +
                     std::to_string(static_cast<long>(timeout_s)) + " s (p2p_flush_timeout): " + waiting +
                     "; is that rank alive and calling MPI?");
    if (waited >= next_note) {
      log::warn("MPI_Finalize: still waiting after %ld s for %s to take frames sent to it",
                static_cast<long>(waited), waiting.c_str());
      next_note += 30;
    }
  }
  return Status::Ok();
}

void Engine::wait_readable(int fd) {
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (!live_ || poll(&p, 1, 0) != 0) return;  // readable, or broken: the read says which
    progress_wait(wait_timeout_ms_, fd);
  }
}

Status Engine::finalize() {
  live_ = false;
  if (boot_ != nullptr) boot_->set_reply_wait(nullptr);
  if (wake_fd_ >= 0) {
    close(wake_fd_);
    wake_fd_ = -1;
  }
  if (interrupt_fd_ >= 0) {
    close(interrupt_fd_);
    interrupt_fd_ = -1;
  }
  registration_cache().drop_registrations();
  rma_drop_all();
  Status first;
  for (auto* m : modules_) {
    Status s = m->finalize();
    if (!s.ok() && first.ok()) first = s;
  }
  for (auto& b : bridges_) {
    Status s = b->finalize();
    if (!s.ok() && first.ok()) first = s;
  }
  // A transport completes its gets (or drops them) by finalize(): what is
  // left was never going to finish.
  for (TransferOp* op : transfers_) delete op;
  transfers_.clear();
  active_.clear();
  idle_.clear();
  return first;
}


MatchQueue* Engine::new_queue(uint32_t ctx) {
  if (ctx >= queues_.size()) queues_.resize(static_cast<size_t>(ctx) + 16);
  queues_[ctx] = std::make_unique<MatchQueue>();
  return queues_[ctx].get();
}

void Engine::release_queue(uint32_t ctx) {
  if (ctx < queues_.size() && queues_[ctx] && queues_[ctx]->empty()) queues_[ctx].reset();
}

std::string Engine::transport_of(int world) const {
  const transport::Module* m = peers_[static_cast<size_t>(world)].transport;
  for (size_t i = 0; i < modules_.size(); ++i)
    if (modules_[i] == m) return module_names_[i];
  return "";
}

Engine::Traffic Engine::traffic_of(const std::string& name) const {
  Traffic t;
  for (size_t i = 0; i < modules_.size(); ++i) {
    if (module_names_[i] != name) continue;
    for (const Peer& p : peers_) {
      if (p.transport != modules_[i]) continue;
      t.messages_sent += p.messages_sent;
      t.bytes_sent += p.sent.bytes;
      t.messages_received += p.messages_received;
      t.bytes_received += p.received.bytes;
    }
  }
  return t;
}

}  // namespace lz::rt
