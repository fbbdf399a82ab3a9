// UcxTransport: lifecycle (init, connect, finalize), the UCX resources the
// checkpoint hooks release (worker, endpoints), and endpoint creation. The
// other concerns live in ucx_send.cpp, ucx_progress.cpp, ucx_liveness.cpp and
// ucx_checkpoint.cpp.
#include "ucx_transport.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>

#include "lazarus/log.h"
#include "ucx_address.h"
#include "ucx_library.h"

namespace lz::transport::ucx {
namespace {

ucs_status_t am_trampoline(void* arg, const void* header, size_t header_length, void* data, size_t length,
                           const ucp_am_recv_param_t* param) {
  return static_cast<UcxTransport*>(arg)->on_am(header, header_length, data, length, param);
}

void ep_error_trampoline(void* arg, ucp_ep_h, ucs_status_t status) {
  auto* p = static_cast<UcxPeer*>(arg);
  p->owner->on_ep_error(*p, status);
}

}  // namespace

UcxTransport::UcxTransport(UcxConfig config) : config_(std::move(config)) {}

UcxTransport::~UcxTransport() {
  // Destroyed without finalize() (an error path): release without waiting.
  for (auto& p : peers_)
    if (p) close_ep(*p, true, "destroy");
  wait_closes(now_s() + 1);
  close_worker();
}

Status UcxTransport::init(Host& host) {
  if (host_ != nullptr) return Internal("ucx: init() called twice");
  if (host.job_secret().empty()) return PermissionDenied("ucx: no job secret: frames could not carry a job tag");
  LZ_RETURN_IF_ERROR(check_tls(config_.tls, "transport_ucx_tls"));
  waitset_ = UniqueFd(::epoll_create1(EPOLL_CLOEXEC));
  if (!waitset_.valid()) return ErrnoError("ucx: epoll_create1", errno);
  host_ = &host;
  rank_ = host.rank();
  tag_ = job_tag(host.job_secret());
  peers_.clear();
  peers_.resize(static_cast<size_t>(host.size()));
  for (int r = 0; r < host.size(); ++r) {
    if (r == rank_) continue;
    auto p = std::make_unique<UcxPeer>();
    p->owner = this;
    p->rank = r;
    peers_[static_cast<size_t>(r)] = std::move(p);
  }
  Status s = open_worker();
  if (s.ok()) s = publish();
  if (!s.ok()) {
    close_worker();
    host_ = nullptr;
    return s;
  }
  return Status::Ok();
}

Status UcxTransport::open_worker() {
  UcxWorker::Options o;
  o.tls = config_.tls;
  o.name = "lazarus-rank-" + std::to_string(rank_);
  o.on_am = &am_trampoline;
  o.am_arg = this;
  const PeerInfo& me = host_->peer(rank_);
  o.keepalive = false;  // unless a peer is on another host
  for (int r = 0; r < host_->size(); ++r) o.keepalive = o.keepalive || !host_->peer(r).same_host(me);
  LZ_RETURN_IF_ERROR(worker_.open(o));
  if (Status s = create_gather_dt(); !s.ok()) {
    worker_.close();
    return s;
  }
  struct epoll_event ev {};
  ev.events = EPOLLIN;
  ev.data.u64 = kWorkerTag;
  if (::epoll_ctl(waitset_.get(), EPOLL_CTL_ADD, worker_.event_fd(), &ev) != 0) {
    const int err = errno;
    worker_.close();
    destroy_gather_dt();
    return ErrnoError("ucx: adding the worker's event fd to the wait set", err);
  }
  log::debug("ucx: rank %d opened a worker (UCX %s, UCX_TLS=%s, UCX's keepalive %s)", rank_, library_version().c_str(),
             config_.tls.c_str(), o.keepalive ? "on" : "off: every peer is on this host");
  return Status::Ok();
}

void UcxTransport::close_worker() {
  if (!worker_.is_open()) return;
  unmap_regions();
  if (waitset_.valid()) ::epoll_ctl(waitset_.get(), EPOLL_CTL_DEL, worker_.event_fd(), nullptr);
  fail_bulk_sends(nullptr, Status(Code::kAborted, "ucx: the worker was closed with the send under way"));
  worker_.close();
  destroy_gather_dt();
  free_abandoned();
  free_zcopies();
}

Status UcxTransport::publish() {
  return host_->modex().put(kModexKey, encode_address({::getpid(), worker_.address()}));
}

Status UcxTransport::connect() {
  if (host_ == nullptr) return Internal("ucx: connect() before init()");
  if (!worker_.is_open()) return Internal("ucx: connect() after on_checkpoint() without on_continue/on_restart");
  const PeerInfo& me = host_->peer(rank_);
  for (auto& pp : peers_) {
    if (!pp) continue;
    UcxPeer& p = *pp;
    auto text = host_->modex().get(p.rank, kModexKey);
    if (!text.ok() && text.status().code() != Code::kNotFound)
      return text.status().with_context("ucx: address of rank " + std::to_string(p.rank));
    // Nothing of the old address is valid any more (a hook, or a first connect).
    close_ep(p, true, "connect");
    unwatch(p);
    // Every rank reached the fence before this: a loss seen since the last
    // connect() that was not reported yet was its endpoint failing while it
    // released its worker for the checkpoint, before its kCheckpoint frame
    // arrived (over UCX's tcp that frame and the error come on different
    // sockets). Reported now it would fail a live peer. A peer already
    // reported failed keeps its failure: send() names it.
    if (p.state != UcxPeer::State::kFailed) {
      p.lost = false;
      p.failure = Status();
    }
    if (!text.ok()) {  // that rank runs without ucx
      p.address.clear();
      if (p.state != UcxPeer::State::kFailed) p.state = UcxPeer::State::kNoAddress;
      continue;
    }
    auto a = decode_address(*text);
    if (!a.ok())
      return ProtocolError("ucx: rank " + std::to_string(p.rank) + " published an invalid address: " +
                           a.status().message());
    p.pid = a->pid;
    p.address = std::move(a->worker);
    p.local = host_->peer(p.rank).same_host(me);
    p.shared_memory = shared_memory(p.local);
    if (p.state == UcxPeer::State::kFailed) continue;
    p.state = UcxPeer::State::kActive;
    if (p.local) watch(p);
  }
  any_lost_ = false;
  wait_closes(now_s() + config_.checkpoint_timeout);
  checkpointed_ = false;
  return Status::Ok();
}

bool UcxTransport::reaches(int peer) const {
  const UcxPeer* p = peer_at(peer);
  return p != nullptr && !p->address.empty();
}

Status UcxTransport::ensure_ep(UcxPeer& p) {
  if (p.ep != nullptr) return Status::Ok();
  if (p.address.empty()) return Unavailable("ucx: rank " + std::to_string(p.rank) + " published no ucx address");
  ucp_ep_params_t ep{};
  ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                  UCP_EP_PARAM_FIELD_ERR_HANDLER;
  ep.address = reinterpret_cast<const ucp_address_t*>(p.address.data());
  ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  ep.err_handler.cb = &ep_error_trampoline;
  ep.err_handler.arg = &p;
  const ucs_status_t st = ucp_ep_create(worker_.worker(), &ep, &p.ep);
  if (st != UCS_OK) {
    p.ep = nullptr;
    // A peer on this host that has just died: its shared memory is gone
    // before its pidfd says so (a process closes its files before it turns
    // zombie). That is the peer's failure, not ours (--recover needs it so).
    if (p.local && exited_soon(p, 0.2)) {
      mark_lost(p, Status(Code::kAborted, "ucx: rank " + std::to_string(p.rank) + " (pid " + std::to_string(p.pid) +
                                              ") on this host exited without finalizing"));
      return p.failure;
    }
    return Unavailable("ucx: ucp_ep_create to rank " + std::to_string(p.rank) + ": " + ucs_status_string(st));
  }
  p.need_ep = false;
  return Status::Ok();
}

void UcxTransport::close_ep(UcxPeer& p, bool force, const char* why) {
  if (p.ep != nullptr || p.bulk_ep != nullptr) log::debug("ucx: closing the endpoint(s) to rank %d (%s)", p.rank, why);
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  param.flags = force ? UCP_EP_CLOSE_FLAG_FORCE : 0;
  for (ucp_ep_h* ep : {&p.ep, &p.bulk_ep}) {
    if (*ep == nullptr) continue;
    void* req = ucp_ep_close_nbx(*ep, &param);
    *ep = nullptr;
    if (req != nullptr && !UCS_PTR_IS_ERR(req)) closing_.push_back(req);
  }
  // The peer's bulk endpoint goes with the connection (or it closes it).
  p.bulk_reply = nullptr;
  p.hello_wanted = p.hello_sent = p.hello_due = p.bulk_acked = false;
  abandon_control(p, &UcxPeer::hello_op);
  abandon_control(p, &UcxPeer::ack_op);
}

void UcxTransport::wait_closes(double deadline) {
  while (!closing_.empty() && worker_.is_open()) {
    for (size_t i = 0; i < closing_.size();) {
      if (ucp_request_check_status(closing_[i]) != UCS_INPROGRESS) {
        ucp_request_free(closing_[i]);
        closing_[i] = closing_.back();
        closing_.pop_back();
      } else {
        ++i;
      }
    }
    if (closing_.empty() || now_s() >= deadline) break;
    const bool was = in_progress_;
    in_progress_ = true;
    while (ucp_worker_progress(worker_.worker()) != 0) {
    }
    in_progress_ = was;
  }
  if (!closing_.empty()) {
    log::debug("ucx: %zu endpoint close(s) did not complete; released with the worker", closing_.size());
    for (void* r : closing_) ucp_request_free(r);
    closing_.clear();
  }
}

Status UcxTransport::finalize() {
  if (host_ == nullptr || finalized_) return Status::Ok();
  finalized_ = true;
  if (worker_.is_open()) {
    const double deadline = now_s() + config_.checkpoint_timeout;
    stashing_ = true;  // nothing is delivered any more
    // Peers that finalized first said kBye, and those gone are seen by their
    // pidfd: telling them would make UCX attach to a FIFO that no longer
    // exists (and log an error per peer).
    in_progress_ = true;
    progress_worker();
    if (any_local_) check_waitset();
    in_progress_ = false;
    tell_peers(kBye, deadline);
    settle_bulk(deadline);
    // Peers that finalized first are gone: a flush to them fails, which is
    // no error of this rank's.
    if (Status s = flush_all(deadline, "finalize"); !s.ok()) log::debug("%s", s.to_string().c_str());
    for (auto& p : peers_)
      if (p) close_ep(*p, true, "finalize");
    wait_closes(deadline);
    stashing_ = false;
  }
  for (auto& p : peers_)
    if (p) unwatch(*p);
  close_worker();
  waitset_.reset();
  return Status::Ok();
}

}  // namespace lz::transport::ucx
