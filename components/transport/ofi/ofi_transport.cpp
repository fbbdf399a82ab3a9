// OfiTransport: lifecycle (init, connect, finalize), the provider choice and
// the per-pair tags. The data path lives in ofi_send.cpp and
// ofi_progress.cpp, peer liveness in ofi_liveness.cpp, the checkpoint hooks
// in ofi_checkpoint.cpp.
#include "ofi_transport.h"

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "lazarus/auth.h"
#include "lazarus/log.h"
#include "ofi_address.h"
#include "ofi_clock.h"
#include "ofi_info.h"
#include "ofi_shm_sweep.h"

namespace lz::transport::ofi {
namespace {
// finalize(): bound on sending kBye and completing the last sends.
constexpr int64_t kFinalizeWaitMs = 2000;

// A random, non-zero 64-bit number: the incarnation of an endpoint.
uint64_t draw_epoch() {
  uint64_t e = 0;
  if (::getrandom(&e, sizeof e, 0) != static_cast<ssize_t>(sizeof e))  // no entropy source: still new per open
    e = (static_cast<uint64_t>(::getpid()) << 40) ^ static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return e != 0 ? e : 1;
}
}  // namespace

OfiTransport::OfiTransport(OfiConfig config) : config_(std::move(config)) {}

OfiTransport::~OfiTransport() {
  // Destroyed without finalize() (an error path): close quietly.
  close_fabric();
}

uint64_t OfiTransport::capabilities() const {
  if (host_ == nullptr) return capabilities_before_init(config_);
  uint64_t caps = kCapCheckpoint;
  if (fabric_wait_) caps |= kCapWaitFd;
  if (provider_ == "shm") caps |= kCapLocalHost;
  if (rma_) caps |= kCapGet;
  if (rma_write_) caps |= kCapPut;
  return caps;
}

OfiPeer* OfiTransport::peer(int rank) {
  if (rank < 0 || static_cast<size_t>(rank) >= peers_.size() || rank == rank_) return nullptr;
  return &peers_[static_cast<size_t>(rank)];
}

const OfiPeer* OfiTransport::peer(int rank) const {
  return const_cast<OfiTransport*>(this)->peer(rank);
}

// auto: shm when every rank of the job shares this host (the fastest here,
// about 1 us against 11 us for tcp;ofi_rxm), otherwise tcp;ofi_rxm, which
// reaches every host. Every rank sees the same placement, so every rank
// chooses the same provider.
std::string OfiTransport::choose_provider() const {
  if (config_.provider != kAutoProvider) return config_.provider;
  const uint64_t me = host_->peer(rank_).node_id;
  for (int r = 0; r < host_->size(); ++r)
    if (host_->peer(r).node_id != me) return "tcp";  // RDM over tcp is tcp;ofi_rxm
  return "shm";
}

Status OfiTransport::open_fabric() {
  provider_ = choose_provider();
  // A job on one host keeps a socket-based provider on loopback: FI_SOURCE
  // 127.0.0.1 (a domain filter alone does not keep tcp;ofi_rxm off eth0).
  bool one_host = true;
  const uint64_t me = host_->peer(rank_).node_id;
  for (int r = 0; r < host_->size(); ++r) one_host &= host_->peer(r).node_id == me;
  const bool sockets = provider_ != "shm";
  const char* source = sockets && one_host ? "127.0.0.1" : nullptr;
  // FI_RMA reads first (single-copy rendezvous), messages only otherwise.
  StatusOr<FiInfoPtr> info = config_.rma ? get_info(provider_, source, true) : Unavailable("rma off");
  if (!info.ok()) {
    if (config_.rma) log::debug("ofi: %s", info.status().message().c_str());
    info = get_info(provider_, source, false);
    if (!info.ok()) return info.status();
  }
  const size_t cq_size = std::max<size_t>(1024, config_.rx_buffers + config_.max_outstanding);
  if (Status s = fabric_.open(**info, cq_size); !s.ok()) return s;
  provider_ = fabric_.provider();  // the full name ("tcp" asked gives "tcp;ofi_rxm")
  fabric_wait_ = fabric_.wait_fd() >= 0;
  // shm copies an injected frame into the receiver's region before
  // fi_inject returns; tcp;ofi_rxm may still hold it (a connection being
  // made), where unsent_bytes() could not see it.
  use_inject_ = provider_ == "shm";
  rma_ = fabric_.has_rma_read();
  rma_write_ = fabric_.has_rma_write();
  epoch_ = draw_epoch();
  const size_t hdr = sizeof(FrameHeader);
  const size_t provider_max = fabric_.max_msg_size() > hdr ? fabric_.max_msg_size() - hdr : 0;
  max_frame_ = std::min(config_.max_frame, provider_max);
  outstanding_cap_ = std::min(config_.max_outstanding, std::max<size_t>(1, fabric_.tx_size()));
  if (fabric_wait_) {
    struct epoll_event ev {};
    ev.events = EPOLLIN;
    ev.data.u64 = 0;
    if (::epoll_ctl(waitset_.get(), EPOLL_CTL_ADD, fabric_.wait_fd(), &ev) != 0) {
      const int e = errno;
      close_fabric();
      return ErrnoError("ofi: adding the CQ's wait fd to the wait set", e);
    }
  }
  if (Status s = post_receives(); !s.ok()) {
    close_fabric();
    return s;
  }
  return Status::Ok();
}

void OfiTransport::close_fabric() {
  for (auto& p : peers_) unwatch(p);
  close_regions();  // before the domain, which refuses to close under them
  drop_reads();
  if (fabric_wait_ && waitset_.valid() && fabric_.wait_fd() >= 0)
    ::epoll_ctl(waitset_.get(), EPOLL_CTL_DEL, fabric_.wait_fd(), nullptr);
  fabric_.close();  // cancels posted receives; their buffers are ours
  for (auto& op : recv_ops_) op->posted = false;
  to_repost_.clear();
  // Sends still posted (to failed peers only, once drained) die with the
  // endpoint; their completions will never come.
  for (auto& [raw, op] : sends_) {
    OfiPeer* p = peer(op->peer);
    if (p != nullptr) {
      p->outstanding_bytes -= std::min(p->outstanding_bytes, op->bytes);
      if (p->outstanding_frames > 0) --p->outstanding_frames;
    }
  }
  sends_.clear();
  outstanding_ = 0;
  for (auto& p : peers_) {
    if (p.failed) {
      p.backlog.clear();
      p.backlog_bytes = 0;
    }
    p.reachable = false;
    p.connected = false;
    p.addr = FI_ADDR_NOTAVAIL;
    p.epoch = 0;
  }
}

Status OfiTransport::publish() {
  OfiAddress a;
  a.provider = provider_;
  a.pid = ::getpid();
  a.node_id = host_->peer(rank_).node_id;
  a.name = fabric_.name();
  a.epoch = rma_ ? epoch_ : 0;
  if (std::find(known_pids_.begin(), known_pids_.end(), a.pid) == known_pids_.end()) known_pids_.push_back(a.pid);
  LZ_RETURN_IF_ERROR(host_->modex().put(kModexKey, a.encode()));
  const std::string sa = sockaddr_text(fabric_.addr_format(), fabric_.name());
  if (!sa.empty()) LZ_RETURN_IF_ERROR(host_->modex().put(kSockaddrKey, sa));
  log::debug("ofi: rank %d publishes a %s endpoint%s%s", rank_, provider_.c_str(), sa.empty() ? "" : " at ",
             sa.c_str());
  return Status::Ok();
}

// The tag of a pair is a MAC of the job secret over "src>dst": a process
// that does not know the secret cannot make a frame this transport delivers.
void OfiTransport::compute_tags() {
  const auth::Nonce zero{};
  auto tag = [&](int src, int dst) {
    const auth::Mac m =
        auth::mac(host_->job_secret(), "ofi", zero, std::to_string(src) + ">" + std::to_string(dst));
    uint64_t t;
    std::memcpy(&t, m.data(), sizeof t);
    return t;
  };
  for (auto& p : peers_) {
    if (p.rank == rank_) continue;
    p.tag_out = tag(rank_, p.rank);
    p.tag_in = tag(p.rank, rank_);
  }
}

Status OfiTransport::init(Host& host) {
  if (host_ != nullptr) return Internal("ofi: init() called twice");
  if (host.job_secret().empty()) return PermissionDenied("ofi: no job secret: frames could not be authenticated");
  host_ = &host;
  rank_ = host.rank();
  peers_.clear();
  peers_.resize(static_cast<size_t>(host.size()));
  for (int r = 0; r < host.size(); ++r) peers_[static_cast<size_t>(r)].rank = r;
  compute_tags();
  waitset_.reset(::epoll_create1(EPOLL_CLOEXEC));
  tick_.reset(::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
  struct epoll_event tev {};
  tev.events = EPOLLIN;
  tev.data.u64 = kTickTag;
  if (!waitset_.valid() || !tick_.valid() || ::epoll_ctl(waitset_.get(), EPOLL_CTL_ADD, tick_.get(), &tev) != 0) {
    const int e = errno;
    waitset_.reset();
    tick_.reset();
    host_ = nullptr;
    return ErrnoError("ofi: the wait set (epoll, timerfd)", e);
  }
  // A file of the shm provider named after this pid cannot belong to a
  // live process: its owner died (SIGKILL leaves it) and the pid was reused.
  sweep_stale_shm_files({::getpid()});
  Status s = open_fabric();
  if (s.ok()) s = publish();
  if (!s.ok()) {
    close_fabric();
    waitset_.reset();
    host_ = nullptr;
    return s.with_context("transport ofi");
  }
  return Status::Ok();
}

Status OfiTransport::connect() {
  if (host_ == nullptr) return Internal("ofi: connect() before init()");
  if (!fabric_.is_open()) return Internal("ofi: connect() without an open endpoint (checkpointed?)");
  const uint64_t me = host_->peer(rank_).node_id;
  for (auto& p : peers_) {
    if (p.rank == rank_) continue;
    p.reachable = false;
    p.addr = FI_ADDR_NOTAVAIL;
    p.epoch = 0;
    unwatch(p);
    auto text = host_->modex().get(p.rank, kModexKey);
    if (!text.ok()) {
      if (text.status().code() == Code::kNotFound) continue;  // a rank without ofi
      return text.status().with_context("ofi: address of rank " + std::to_string(p.rank));
    }
    auto a = OfiAddress::decode(*text);
    if (!a.ok()) return a.status().with_context("ofi: rank " + std::to_string(p.rank));
    p.local = a->node_id == me && host_->peer(p.rank).node_id == me;
    p.pid = a->pid;
    if (std::find(known_pids_.begin(), known_pids_.end(), a->pid) == known_pids_.end())
      known_pids_.push_back(a->pid);
    if (a->provider != provider_) {
      log::warn("ofi: rank %d uses provider %s, this rank %s: not reachable through ofi", p.rank,
                a->provider.c_str(), provider_.c_str());
      continue;
    }
    if (provider_ == "shm" && !p.local) continue;  // shared memory stops at the host
    fi_addr_t fa = FI_ADDR_NOTAVAIL;
    const int n = fi_av_insert(fabric_.av(), a->name.data(), 1, &fa, 0, nullptr);
    if (n != 1) return Unavailable("ofi: fi_av_insert of rank " + std::to_string(p.rank) + "'s address failed");
    p.addr = fa;
    p.epoch = a->epoch;
    p.reachable = !p.failed;
    if (p.local && !p.failed && !p.finalized) watch(p);
  }
  checkpointed_ = false;
  return wire_up();
}

// Exclusivity 5, below tcp (10) and shm (50): measured here, libfabric's shm
// (1.1 us one way) is slower than transport/shm (0.12 us) and tcp;ofi_rxm
// (11 us) is no faster than transport/tcp (10 us), so where those reach a
// peer they carry it; ofi carries what only it reaches (`--mca transport
// ofi,self`). Bandwidth: fi_pingpong -p shm at 1 MiB gave 14 GB/s here; for
// tcp;ofi_rxm the loopback figure transport/tcp declares (not measured).
//
// Rendezvous reads with fi_read (get_threshold 0: from the first rendezvous
// byte) on both providers: faster than streaming at every rendezvous size
// measured (tests/perf/pingpong.c, np 2 on 2 shared cores, median half round
// trip, transport_ofi_rma 1 against 0): shm 40 KiB 43-76 us against 55-132,
// 1 MiB 554 against 890, 2 MiB 937-1496 against 1342-2172, 4 MiB 2229
// against 4047; tcp;ofi_rxm 40 KiB 95-103 against 171-222, 1 MiB 394-1034
// against 1373-2042, 2 MiB 999-1412 against 3244-6126, 4 MiB 2366-3728
// against 5149-10640. (shm reads by CMA; tcp;ofi_rxm's read is one request
// and the bytes back on the connection, against a frame and its completion
// per 64 KiB when streaming.)
Attributes OfiTransport::attributes(int peer) const {
  (void)peer;
  Attributes a;
  a.get_threshold = 0;
  a.exclusivity = 5;
  const bool shm = (provider_.empty() ? config_.provider : provider_) == "shm";
  a.latency_us = shm ? 1.1 : 11;
  a.bandwidth_mbs = shm ? 14000 : 2500;
  // shm completes a write once the target's progress took its command, and
  // tcp;ofi_rxm emulates RMA over its connection: both need the target's
  // process. Other providers' FI_RMA is the NIC's (rma_write_: an open endpoint).
  a.rma_passive = rma_write_ && !shm && provider_ != "tcp" && provider_ != "tcp;ofi_rxm";
  return a;
}

bool OfiTransport::reaches(int rank) const {
  const OfiPeer* p = peer(rank);
  return p != nullptr && p->addr != FI_ADDR_NOTAVAIL;
}

size_t OfiTransport::unsent_bytes(int rank) const {
  const OfiPeer* p = peer(rank);
  if (p == nullptr || p->failed || p->finalized) return 0;
  return p->pending_bytes();
}

Status OfiTransport::finalize() {
  if (host_ == nullptr) return Status::Ok();
  // kBye to every peer on this host still there (they watch our pid), so
  // that our exit is not taken for a failure; then wait, bounded, for our
  // sends to complete (the engine flushed data frames before its barrier).
  if (fabric_.is_open() && !checkpointed_) {
    const int64_t until = coarse_now_ms() + kFinalizeWaitMs;
    for (auto& p : peers_) {
      if (p.rank == rank_ || !p.local || !reaches(p.rank) || p.failed || p.finalized) continue;
      for (;;) {
        Status s = post_frame(p, FrameKind::kBye, nullptr, 0, 0);
        if (s.code() != Code::kWouldBlock || coarse_now_ms() > until) break;
        progress();
      }
    }
    while (coarse_now_ms() <= until) {
      size_t live = 0;
      for (const auto& p : peers_)
        if (p.rank != rank_ && !p.failed) live += p.pending_bytes();
      if (live == 0) break;
      progress();
    }
  }
  close_fabric();
  // Regions of peers of this host that died (SIGKILL leaves them): nobody
  // maps them any more now that our endpoint is closed.
  std::vector<pid_t> others;
  for (pid_t pid : known_pids_)
    if (pid != ::getpid()) others.push_back(pid);
  sweep_stale_shm_files(others);
  waitset_.reset();
  tick_.reset();
  recv_ops_.clear();
  free_buffers_.clear();
  stash_.clear();
  to_report_.clear();
  host_ = nullptr;
  return Status::Ok();
}

std::vector<std::string> OfiTransport::details(const OfiConfig& config) {
  std::vector<std::string> out;
  out.push_back("libfabric " + library_version() + " (built against " + std::to_string(FI_MAJOR_VERSION) + "." +
                std::to_string(FI_MINOR_VERSION) + "." + std::to_string(FI_REVISION_VERSION) + ")");
  std::string list;
  for (const auto& n : rdm_providers()) list += (list.empty() ? "" : ", ") + n;
  out.push_back("RDM providers (FI_MSG, FI_ORDER_SAS, manual progress): " + (list.empty() ? "none" : list));
  std::string rma;
  for (const auto& n : rdm_providers(true)) rma += (rma.empty() ? "" : ", ") + n;
  out.push_back("with FI_RMA reads (single-copy rendezvous" + std::string(config.rma ? "" : ", off: transport_ofi_rma=0") +
                "): " + (rma.empty() ? "none" : rma));
  out.push_back("provider: " + config.provider +
                (config.provider == kAutoProvider ? " (shm for a job on one host, tcp;ofi_rxm otherwise)" : ""));
  return out;
}

}  // namespace lz::transport::ofi
