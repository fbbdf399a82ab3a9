#include "shm_transport.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "lazarus/log.h"
#include "shm_names.h"

namespace lz::transport::shm {
namespace {

// Frames one progress() call takes from one ring: bounds the time a single
// busy sender can keep the engine from its other work.
constexpr int kMaxFramesPerDrain = 256;
// epoll data of the doorbell; a peer's pidfd carries its slot + 1.
constexpr uint64_t kDoorbellTag = 0;

int64_t coarse_now_ms() {
  struct timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// Yama's ptrace_scope, or -1 without Yama.
int yama_ptrace_scope() {
  FILE* f = std::fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
  if (f == nullptr) return -1;
  int v = -1;
  if (std::fscanf(f, "%d", &v) != 1) v = -1;
  std::fclose(f);
  return v;
}

int pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

Status peer_gone_status(int rank) {
  return Status(Code::kAborted, "shm: rank " + std::to_string(rank) + " has exited");
}

// Undoes the "in progress" mark however progress() returns.
struct ReentryGuard {
  bool& flag;
  explicit ReentryGuard(bool& f) : flag(f) { flag = true; }
  ~ReentryGuard() { flag = false; }
};

}  // namespace

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
  return kCapLocalHost | kCapWaitFd | kCapCheckpoint | (get_ok_ ? uint64_t{kCapGet} : uint64_t{0});
}

Status ShmTransport::init(Host& host) {
  host_ = &host;
  rank_ = host.rank();
  build_topology();
  setup_single_copy();
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

// Single copy: peers read our memory with process_vm_readv, which needs
// ptrace access. Under Yama scope 1 only descendants may do that unless we
// name a tracer; like Open MPI's vader, allow any process of this user (the
// uid check still applies). Scope 3 forbids it outright. The real answer
// comes from probing each peer in connect(). The ptracer exception belongs to
// the process (not inherited by fork, not restored by a checkpointer): a
// restored rank sets it again in on_restart().
void ShmTransport::setup_single_copy() {
  get_ok_ = false;
  if (cfg_.single_copy) {
    const int scope = yama_ptrace_scope();
    if (scope == 1) ::prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    get_ok_ = scope != 3;
  }
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
  UniqueFd pidfd(pidfd_open(a.pid));
  if (pidfd.valid()) {
    struct epoll_event ev {};
    ev.events = EPOLLIN;
    ev.data.u64 = static_cast<uint64_t>(&p - peers_.data()) + 1;
    if (::epoll_ctl(waitset_.get(), EPOLL_CTL_ADD, pidfd.get(), &ev) != 0) pidfd.reset();
  }
  p.tx = RingProducer(ctl, seg.base() + layout.data_offset(my_local_index_), a.ring_bytes);
  p.header = hdr;
  p.bell = std::move(bell);
  p.pidfd = std::move(pidfd);
  p.segment = std::move(seg);
  hdr->attached.fetch_add(1, std::memory_order_acq_rel);
  return Status::Ok();
}

void ShmTransport::probe_get(const ShmPeer& p) {
  uint64_t word = 0;
  struct iovec l{&word, sizeof word}, r{reinterpret_cast<void*>(p.address.probe_addr), sizeof word};
  const ssize_t n = ::process_vm_readv(p.address.pid, &l, 1, &r, 1, 0);
  if (n == static_cast<ssize_t>(sizeof word) && word == kProbeMagic) return;
  if (n < 0 && errno == ESRCH) return;  // the peer is gone; liveness reports it
  const int err = errno;
  get_ok_ = false;
  log::info("shm: single-copy get disabled: process_vm_readv from rank %d (pid %d) %s", p.rank,
            static_cast<int>(p.address.pid),
            n < 0 ? strerror(err) : "returned unexpected data");
}

bool ShmTransport::reaches(int peer) const {
  if (peer < 0 || static_cast<size_t>(peer) >= slot_of_rank_.size()) return false;
  const int s = slot_of_rank_[static_cast<size_t>(peer)];
  return s >= 0 && peers_[static_cast<size_t>(s)].tx.attached();
}

Status ShmTransport::send(int peer, const struct iovec* iov, int iovcnt) {
  if (peer < 0 || static_cast<size_t>(peer) >= slot_of_rank_.size() || slot_of_rank_[static_cast<size_t>(peer)] < 0)
    return InvalidArgument("shm: rank " + std::to_string(peer) + " is not on this host");
  ShmPeer& p = peers_[static_cast<size_t>(slot_of_rank_[static_cast<size_t>(peer)])];
  if (p.gone) return peer_gone_status(peer);
  if (checkpointed_) return Status(Code::kWouldBlock, "shm: checkpointed; no frame moves before connect()");
  if (!p.tx.attached()) return InvalidArgument("shm: rank " + std::to_string(peer) + " is not reachable through shm");
  size_t total = 0;
  for (int i = 0; i < iovcnt; ++i) total += iov[i].iov_len;
  if (total > cfg_.max_frame)
    return InvalidArgument("shm: frame of " + std::to_string(total) + " bytes exceeds max_frame " +
                           std::to_string(cfg_.max_frame));
  uint8_t* dst = p.tx.reserve(total);
  if (dst == nullptr) {
    // Full: have the receiver ring our doorbell when it frees space, so the
    // engine may sleep in poll() until then.
    dst = p.tx.reserve_or_request_wakeup(total);
    if (dst == nullptr) {
      if (!p.tx_blocked) p.tx_blocked = true, ++blocked_senders_;
      return Status(Code::kWouldBlock, "shm ring full");
    }
  }
  if (p.tx_blocked) p.tx_blocked = false, --blocked_senders_;
  for (int i = 0; i < iovcnt; ++i) {
    std::memcpy(dst, iov[i].iov_base, iov[i].iov_len);
    dst += iov[i].iov_len;
  }
  p.tx.commit();  // seq_cst: ordered before the flag load below
  if (p.header->sleeping.load(std::memory_order_seq_cst) != 0 &&
      p.header->sleeping.exchange(0, std::memory_order_acq_rel) != 0)
    p.bell.ring();
  return Status::Ok();
}

int ShmTransport::progress() {
  if (in_progress_ || local_hdr_ == nullptr) return 0;  // deliver() re-entered us
  ReentryGuard guard(in_progress_);
  if (armed_) disarm();
  int n = 0;
  for (size_t s = 0; s < inbound_.size(); ++s) n += drain(s);
  if ((++tick_ & 255u) == 0) {
    const int64_t now = coarse_now_ms();
    if (now - last_check_ms_ >= cfg_.liveness_ms) {
      last_check_ms_ = now;
      check_liveness();
      maybe_unlink();
    }
  }
  return n;
}

int ShmTransport::drain(size_t slot) {
  Inbound& in = inbound_[slot];
  if (in.closed) return 0;
  int n = 0;
  uint64_t len = 0;
  while (n < kMaxFramesPerDrain) {
    const uint8_t* data = in.ring.peek(&len);
    if (data == nullptr) break;
    host_->deliver(in.src, data, len);
    in.ring.pop();
    ++n;
  }
  in.ring.publish();
  if (in.ring.take_wakeup_request() && peers_[slot].bell.valid()) peers_[slot].bell.ring();
  if (in.ring.corrupt()) {
    in.closed = true;
    ShmPeer& p = peers_[slot];
    p.gone = true;
    if (!p.reported) {
      p.reported = true;
      host_->peer_failed(p.rank, ProtocolError("shm: corrupt record in the ring from rank " + std::to_string(p.rank)));
    }
  }
  return n;
}

bool ShmTransport::arm_wait() {
  if (local_hdr_ == nullptr) return true;
  local_hdr_->sleeping.store(1, std::memory_order_seq_cst);
  armed_ = true;
  for (const Inbound& in : inbound_)
    if (!in.closed && in.ring.pending()) return false;
  // A ring we found full may have drained since: its consumer cleared our
  // request (and rang, but that byte may already have been read). Both
  // loads are seq_cst, after our flag store: no wake-up can fall between.
  if (blocked_senders_ > 0)
    for (ShmPeer& p : peers_)
      if (p.tx_blocked && (p.gone || !p.tx.wakeup_requested())) {
        p.tx_blocked = false;
        --blocked_senders_;
        return false;
      }
  return true;
}

void ShmTransport::disarm() {
  armed_ = false;
  local_hdr_->sleeping.store(0, std::memory_order_relaxed);
  // We may have slept: find out why (doorbell bytes, a peer that exited).
  service_waitset(/*take_doorbell=*/true);
}

// Doorbell bytes are read only when disarming: a byte read at any other time
// could be the wake-up of a wait that is about to start.
void ShmTransport::service_waitset(bool take_doorbell) {
  struct epoll_event evs[16];
  const int n = ::epoll_wait(waitset_.get(), evs, 16, 0);
  for (int i = 0; i < n; ++i) {
    if (evs[i].data.u64 == kDoorbellTag) {
      if (take_doorbell) bell_.drain();
    } else {
      const size_t slot = static_cast<size_t>(evs[i].data.u64 - 1);
      if (slot < peers_.size()) peer_exited(slot);
    }
  }
}

void ShmTransport::check_liveness() {
  service_waitset(/*take_doorbell=*/false);
  for (size_t s = 0; s < peers_.size(); ++s) {
    const ShmPeer& p = peers_[s];
    if (p.gone || p.pidfd.valid() || p.address.pid <= 0) continue;
    if (::kill(p.address.pid, 0) != 0 && errno == ESRCH) peer_exited(s);
  }
}

void ShmTransport::peer_exited(size_t slot) {
  ShmPeer& p = peers_[slot];
  if (p.gone) return;
  // The peer's finalize() marks its segment before it exits; read that first
  // (acquire) so every frame it published before is visible to the drain.
  const bool clean = p.header != nullptr && p.header->state.load(std::memory_order_acquire) == kOwnerFinalized;
  while (!inbound_[slot].closed && drain(slot) > 0) {
  }
  p.gone = true;
  inbound_[slot].closed = true;
  if (p.pidfd.valid()) {
    ::epoll_ctl(waitset_.get(), EPOLL_CTL_DEL, p.pidfd.get(), nullptr);
    p.pidfd.reset();
  }
  if (clean || p.reported) return;
  p.reported = true;
  log::debug("shm: rank %d (pid %d) exited without finalizing", p.rank, static_cast<int>(p.address.pid));
  host_->peer_failed(p.rank, Status(Code::kAborted, "shm: rank " + std::to_string(p.rank) + " (pid " +
                                                        std::to_string(p.address.pid) +
                                                        ") on this host exited without finalizing"));
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

Status ShmTransport::get(int peer, void* local, uint64_t remote, size_t len) {
  if (!get_ok_) return Unimplemented("shm: single-copy get is not available (see `lazarus info` and the log)");
  if (checkpointed_) return Status(Code::kWouldBlock, "shm: checkpointed; no get() before connect()");
  if (peer < 0 || static_cast<size_t>(peer) >= slot_of_rank_.size() || slot_of_rank_[static_cast<size_t>(peer)] < 0)
    return InvalidArgument("shm: rank " + std::to_string(peer) + " is not on this host");
  const ShmPeer& p = peers_[static_cast<size_t>(slot_of_rank_[static_cast<size_t>(peer)])];
  if (p.address.pid <= 0) return InvalidArgument("shm: rank " + std::to_string(peer) + " has no shm address");
  size_t done = 0;
  while (done < len) {
    struct iovec l{static_cast<char*>(local) + done, len - done};
    struct iovec r{reinterpret_cast<void*>(remote + done), len - done};
    const ssize_t n = ::process_vm_readv(p.address.pid, &l, 1, &r, 1, 0);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    const int err = n < 0 ? errno : EFAULT;
    if (err == EINTR) continue;
    if (err == ESRCH) return peer_gone_status(peer);
    if (err == EPERM) return PermissionDenied("shm: process_vm_readv from rank " + std::to_string(peer) + ": " + strerror(err));
    if (err == EFAULT)
      return InvalidArgument("shm: get of " + std::to_string(len) + " bytes at 0x" + [&] {
        char b[32];
        std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(remote + done));
        return std::string(b);
      }() + " in rank " + std::to_string(peer) + ": bad address");
    return ErrnoError("shm: process_vm_readv from rank " + std::to_string(peer), err);
  }
  return Status::Ok();
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

// ---- checkpoint / continue / restart ------------------------------------------

std::string ShmTransport::inbound_pending() const {
  std::string out;
  for (size_t s = 0; s < inbound_.size(); ++s) {
    const Inbound& in = inbound_[s];
    if (in.closed || !in.ring.attached() || !in.ring.pending()) continue;
    out += (out.empty() ? "" : ", ") + std::to_string(in.src);
  }
  return out;
}

Status ShmTransport::wait_peers_consumed() {
  const int64_t until = coarse_now_ms() + cfg_.checkpoint_wait_ms;
  for (;;) {
    std::string waiting;
    for (const ShmPeer& p : peers_) {
      if (!p.tx.attached() || p.gone || p.tx.consumed()) continue;
      // Gone since (crashed, or finalized): its segment dies with it; the
      // engine hears of it from progress() after the hooks.
      if (::kill(p.address.pid, 0) != 0 && errno == ESRCH) continue;
      if (p.header->state.load(std::memory_order_acquire) == kOwnerCheckpointed)
        return DataLoss("shm: rank " + std::to_string(p.rank) +
                        " released its segment with frames of ours unconsumed (it was checkpointed before "
                        "the drain was complete)");
      waiting += (waiting.empty() ? "" : ", ") + std::to_string(p.rank);
    }
    if (waiting.empty()) return Status::Ok();
    if (coarse_now_ms() >= until)
      return Timeout("shm: not drained: rank(s) " + waiting + " did not consume the frames this rank sent within " +
                     std::to_string(cfg_.checkpoint_wait_ms) + " ms (transport_shm_checkpoint_wait_ms)");
    struct timespec ts{0, 200 * 1000};
    ::nanosleep(&ts, nullptr);
  }
}

// Precondition (transport.h): the crcp drain delivered every frame sent to
// this rank, so our rings are empty; refused otherwise, before anything is
// released, so that the engine can progress and call us again.
Status ShmTransport::on_checkpoint() {
  if (host_ == nullptr) return Internal("shm: on_checkpoint() before init()");
  if (checkpointed_) return Internal("shm: on_checkpoint() twice without continue/restart and connect()");
  if (in_progress_) return Internal("shm: on_checkpoint() from inside progress()");
  if (local_hdr_ == nullptr) return Internal("shm: on_checkpoint() without a segment (init() failed?)");
  std::string pending = inbound_pending();
  if (!pending.empty())
    return Status(Code::kWouldBlock, "shm: not drained: frames from rank(s) " + pending +
                                         " are still in this rank's rings (progress, then checkpoint again)");
  // Our frames in peers' rings live in their memory; they are theirs to
  // consume before their own checkpoint. Waiting for it keeps the hooks
  // symmetric: once every rank is past on_checkpoint, no ring holds a frame.
  LZ_RETURN_IF_ERROR(wait_peers_consumed());
  pending = inbound_pending();  // a peer that sent while we waited broke the drain
  if (!pending.empty())
    return Status(Code::kWouldBlock, "shm: not drained: frames from rank(s) " + pending +
                                         " arrived during the checkpoint (sends were not held)");

  // Tell peers this segment is dead before it goes away (see OwnerState).
  local_hdr_->state.store(kOwnerCheckpointed, std::memory_order_release);
  release_peers();
  release_local();  // unmaps, closes and unlinks the FIFO and the segment
  armed_ = false;
  checkpointed_ = true;
  log::debug("shm: rank %d released its shared memory for a checkpoint (generation %u)", rank_, generation_);
  return Status::Ok();
}

Status ShmTransport::recreate(bool restarted) {
  if (host_ == nullptr) return Internal("shm: continue/restart before init()");
  if (!checkpointed_)
    return Internal(std::string("shm: on_") + (restarted ? "restart" : "continue") +
                    "() without a successful on_checkpoint()");
  if (restarted) {
    // A restored process set: new pids, maybe other hosts. Nothing learned
    // about the old processes holds (a peer seen exiting before the
    // checkpoint was restored with the rest).
    rank_ = host_->rank();
    build_topology();
    setup_single_copy();
    last_check_ms_ = 0;
    tick_ = 0;
    sweep_stale(cfg_.backing_dir);
  }
  if (Status s = create_local(); !s.ok()) {
    release_local();
    return s.with_context(std::string("shm: on_") + (restarted ? "restart" : "continue"));
  }
  return publish();
}

Status ShmTransport::on_continue() { return recreate(false); }
Status ShmTransport::on_restart() { return recreate(true); }

}  // namespace lz::transport::shm
