// ShmTransport: module lifecycle: topology, our segment and doorbell, the
// modex address, mapping the peers' segments in connect(), and release.
// The data path is in shm_data_path.cpp, single-copy get() in shm_get.cpp,
// peer liveness in shm_liveness.cpp, the CR hooks in shm_checkpoint.cpp.
#include "shm_transport.h"

#include <errno.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <string>
#include <string_view>

#include "lazarus/log.h"
#include "shm_clock.h"
#include "shm_names.h"

namespace lz::transport::shm {

// get_ok_ starts as what this host allows (so `lazarus info` shows it); the
// probe of each peer in connect() has the last word.
ShmTransport::ShmTransport(const ShmConfig& config)
    : cfg_(config), get_ok_(config.single_copy && yama_ptrace_scope() != 3) {}

ShmTransport::~ShmTransport() {
  release_peers();
  release_local();
  waitset_.reset();
}

uint64_t ShmTransport::capabilities() const {
  return kCapLocalHost | kCapWaitFd | kCapCheckpoint | (get_ok_ ? uint64_t{kCapGet | kCapPut} : uint64_t{0});
}

// Latency and bandwidth as measured on a 2-core VM (tests/perf/results/
// 20261125-bound-s10.md: 0.12 us half round trip, 16 GB/s at 1 MiB with get).
Attributes ShmTransport::attributes(int peer) const {
  (void)peer;
  Attributes a;
  if (get_ok_) a.eager_limit = static_cast<size_t>(cfg_.get_threshold);
  a.get_threshold = 0;
  a.exclusivity = 50;
  a.latency_us = 0.12;
  a.bandwidth_mbs = get_ok_ ? 16000 : 4000;
  a.rma_passive = get_ok_;  // process_vm_writev/_readv: the peer does nothing
  return a;
}

Status ShmTransport::init(Host& host) {
  host_ = &host;
  rank_ = host.rank();
  build_topology();
  setup_single_copy();
  setup_membarrier();
  sweep_stale(cfg_.backing_dir);
  LZ_RETURN_IF_ERROR(create_local());
  return publish();
}

void ShmTransport::build_topology() {
  const int size = host_->size();
  const uint64_t my_node = host_->peer(rank_).node_id;
  local_ranks_.clear();
  peers_.clear();
  inbound_.clear();
  blocked_senders_ = 0;
  slot_of_rank_.assign(static_cast<size_t>(size), -1);
  for (int r = 0; r < size; ++r) {
    if (host_->peer(r).node_id != my_node) continue;
    if (r == rank_) my_local_index_ = static_cast<uint32_t>(local_ranks_.size());
    local_ranks_.push_back(r);
  }
  peers_.reserve(local_ranks_.size());
  for (uint32_t i = 0; i < local_ranks_.size(); ++i) {
    if (local_ranks_[i] == rank_) continue;
    slot_of_rank_[static_cast<size_t>(local_ranks_[i])] = static_cast<int>(peers_.size());
    ShmPeer& p = peers_.emplace_back();
    p.rank = local_ranks_[i];
    p.local_index = i;
  }
  inbound_.resize(peers_.size());
}

Status ShmTransport::create_local() {
  SegmentLayout layout{static_cast<uint32_t>(local_ranks_.size()), cfg_.ring_bytes};
  SegmentName name = SegmentName::for_this_process(rank_, generation_++);
  LZ_ASSIGN_OR_RETURN(Segment seg, Segment::create(name.segment_path(cfg_.backing_dir), layout.total_bytes()));
  auto* hdr = reinterpret_cast<SegmentHeader*>(seg.base());
  hdr->magic = kSegmentMagic;
  hdr->version = kLayoutVersion;
  hdr->num_rings = layout.num_rings;
  hdr->ring_bytes = layout.ring_bytes;
  hdr->total_bytes = layout.total_bytes();
  hdr->owner_rank = rank_;
  hdr->owner_pid = static_cast<int32_t>(::getpid());
  hdr->flags = membarrier_ok_ ? kSegmentSleepBarrier : 0;
  hdr->sleeping.store(0, std::memory_order_relaxed);
  hdr->attached.store(0, std::memory_order_relaxed);
  hdr->state.store(kOwnerAlive, std::memory_order_relaxed);
  for (uint32_t i = 0; i < layout.num_rings; ++i) {
    auto* ctl = reinterpret_cast<RingControl*>(seg.base() + layout.control_offset(i));
    ctl->head.store(0, std::memory_order_relaxed);
    ctl->sender_rank = local_ranks_[i];
    ctl->producer_waiting.store(0, std::memory_order_relaxed);
  }

  LZ_ASSIGN_OR_RETURN(Doorbell bell, Doorbell::create(name.doorbell_path(cfg_.backing_dir)));
  // The epoll set outlives checkpoints (wait_fd() keeps its number); only its
  // members are re-created.
  if (!waitset_.valid()) {
    UniqueFd ep(::epoll_create1(EPOLL_CLOEXEC));
    if (!ep.valid()) return ErrnoError("shm: epoll_create1", errno);
    waitset_ = std::move(ep);
  }
  struct epoll_event ev {};
  ev.events = EPOLLIN;
  ev.data.u64 = kDoorbellTag;
  if (::epoll_ctl(waitset_.get(), EPOLL_CTL_ADD, bell.fd(), &ev) != 0)
    return ErrnoError("shm: epoll_ctl(doorbell)", errno);

  // Our rings, read by progress(); sender ranks never change within a job.
  for (size_t s = 0; s < peers_.size(); ++s) {
    const uint32_t i = peers_[s].local_index;
    inbound_[s].ring = RingConsumer(reinterpret_cast<RingControl*>(seg.base() + layout.control_offset(i)),
                                    seg.base() + layout.data_offset(i), layout.ring_bytes);
    inbound_[s].src = peers_[s].rank;
    inbound_[s].closed = peers_[s].gone;
  }
  local_ = std::move(seg);
  local_hdr_ = hdr;
  bell_ = std::move(bell);
  names_linked_ = true;
  armed_ = false;
  return Status::Ok();
}

Status ShmTransport::publish() {
  ShmAddress a;
  a.rank = rank_;
  a.pid = ::getpid();
  a.node_id = host_->peer(rank_).node_id;
  a.num_rings = local_hdr_->num_rings;
  a.ring_bytes = local_hdr_->ring_bytes;
  a.probe_addr = reinterpret_cast<uint64_t>(&probe_word_);
  a.segment_path = local_.path();
  a.doorbell_path = bell_.path();
  return host_->modex().put(kModexKey, a.encode());
}

Status ShmTransport::connect() {
  if (host_ == nullptr) return Internal("shm: connect() before init()");
  for (ShmPeer& p : peers_) {
    if (p.gone) continue;  // exited before a checkpoint: it has no new segment to map
    auto text = host_->modex().get(p.rank, kModexKey);
    if (!text.ok()) {
      // The peer runs without shm (it declined or was excluded): it cannot
      // reach us either, and the engine picks another transport for the pair.
      log::debug("shm: rank %d published no shm address; not reachable through shm", p.rank);
      continue;
    }
    auto addr = ShmAddress::decode(*text);
    Status s = addr.ok() ? Status::Ok() : addr.status();
    // connect() again with the same address (a rank that did not re-create
    // its segment): keep the mapping and, with it, our ring's position.
    if (s.ok() && p.tx.attached() && addr->pid == p.address.pid && addr->segment_path == p.address.segment_path)
      continue;
    if (s.ok()) {
      release_peer(p);
      p.address = std::move(addr).value();
      s = attach_peer(p);
    }
    if (!s.ok()) {
      log::warn("shm: rank %d is on this host but not reachable through shm: %s", p.rank, s.message().c_str());
      release_peer(p);
      continue;
    }
    if (get_ok_) probe_get(p);
  }
  checkpointed_ = false;
  last_check_ms_ = coarse_now_ms();
  maybe_unlink();
  return Status::Ok();
}

Status ShmTransport::attach_peer(ShmPeer& p) {
  const ShmAddress& a = p.address;
  if (a.rank != p.rank) return ProtocolError("address names rank " + std::to_string(a.rank));
  if (a.node_id != host_->peer(rank_).node_id) return ProtocolError("address is for another node");
  if (a.num_rings != local_ranks_.size())
    return ProtocolError("peer sees " + std::to_string(a.num_rings) + " ranks on this host, we see " +
                         std::to_string(local_ranks_.size()));
  // Only ever open files named like ours, created by that very process.
  const size_t slash = a.segment_path.rfind('/');
  auto name = SegmentName::parse(std::string_view(a.segment_path).substr(slash + 1));
  if (!name || name->pid != a.pid || name->rank != a.rank) return ProtocolError("unexpected segment name");

  SegmentLayout layout{a.num_rings, a.ring_bytes};
  LZ_ASSIGN_OR_RETURN(Segment seg, Segment::open(a.segment_path, layout.total_bytes()));
  auto* hdr = reinterpret_cast<SegmentHeader*>(seg.base());
  if (hdr->magic != kSegmentMagic || hdr->version != kLayoutVersion || hdr->num_rings != a.num_rings ||
      hdr->ring_bytes != a.ring_bytes || hdr->owner_pid != a.pid || hdr->owner_rank != a.rank)
    return ProtocolError("segment " + a.segment_path + " does not match its modex address");
  auto* ctl = reinterpret_cast<RingControl*>(seg.base() + layout.control_offset(my_local_index_));
  if (ctl->sender_rank != rank_) return ProtocolError("ring of " + a.segment_path + " is not ours");
  if (cfg_.max_frame > max_payload_for_ring(a.ring_bytes))
    return InvalidArgument("peer's rings are too small for transport_shm_max_frame");

  LZ_ASSIGN_OR_RETURN(DoorbellWriter bell, DoorbellWriter::open(a.doorbell_path));
  p.tx = RingProducer(ctl, seg.base() + layout.data_offset(my_local_index_), a.ring_bytes);
  p.header = hdr;
  p.fence_sends = !(membarrier_ok_ && (hdr->flags & kSegmentSleepBarrier));
  p.bell = std::move(bell);
  p.segment = std::move(seg);
  watch_exit(p);
  hdr->attached.fetch_add(1, std::memory_order_acq_rel);
  return Status::Ok();
}

bool ShmTransport::reaches(int peer) const {
  if (peer < 0 || static_cast<size_t>(peer) >= slot_of_rank_.size()) return false;
  const int s = slot_of_rank_[static_cast<size_t>(peer)];
  return s >= 0 && peers_[static_cast<size_t>(s)].tx.attached();
}

void ShmTransport::maybe_unlink() {
  if (!names_linked_ || local_hdr_ == nullptr) return;
  if (local_hdr_->attached.load(std::memory_order_acquire) < peers_.size()) return;
  // Every peer has the segment mapped and the doorbell open: the names are no
  // longer needed, and a crash can no longer leave them behind.
  names_linked_ = false;
  if (Status s = local_.unlink(); !s.ok()) log::warn("%s", s.message().c_str());
  if (Status s = bell_.unlink(); !s.ok()) log::warn("%s", s.message().c_str());
}

bool ShmTransport::drained() const {
  for (const ShmPeer& p : peers_)
    if (p.tx.attached() && !p.gone && !p.tx.consumed()) return false;
  for (const Inbound& in : inbound_)
    if (!in.closed && in.ring.attached() && in.ring.pending()) return false;
  return true;
}

Status ShmTransport::finalize() {
  // Tell peers this exit is clean before anything goes away.
  if (local_hdr_ != nullptr) local_hdr_->state.store(kOwnerFinalized, std::memory_order_release);
  release_peers();
  release_local();
  waitset_.reset();
  host_ = nullptr;
  return Status::Ok();
}

void ShmTransport::release_peer(ShmPeer& p) {
  if (p.pidfd.valid() && waitset_.valid()) ::epoll_ctl(waitset_.get(), EPOLL_CTL_DEL, p.pidfd.get(), nullptr);
  if (p.tx_blocked) p.tx_blocked = false, --blocked_senders_;
  p.release();
}

void ShmTransport::release_peers() {
  for (ShmPeer& p : peers_) release_peer(p);
}

// Everything but the epoll set (wait_fd() stays valid; the destructor and
// finalize() close it).
void ShmTransport::release_local() {
  for (Inbound& in : inbound_) in.ring = RingConsumer();
  local_hdr_ = nullptr;
  if (bell_.fd() >= 0 && waitset_.valid()) ::epoll_ctl(waitset_.get(), EPOLL_CTL_DEL, bell_.fd(), nullptr);
  bell_.reset();   // unlinks the FIFO if still named
  local_.reset();  // unmaps, unlinks if still named
  names_linked_ = false;
  armed_ = false;
}

}  // namespace lz::transport::shm
