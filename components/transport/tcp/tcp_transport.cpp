// TcpTransport: module lifecycle (init, address ordering, connect()) and the
// failure bookkeeping every other part of the module shares. The other
// concerns live in tcp_send.cpp, tcp_accept.cpp, tcp_progress.cpp,
// tcp_deadlines.cpp, tcp_finalize.cpp and tcp_checkpoint.cpp.
#include "tcp_transport.h"

#include <algorithm>

#include "lazarus/log.h"
#include "lazarus/strings.h"

namespace lz::transport::tcp {

TcpTransport::TcpTransport(TcpConfig config) : config_(std::move(config)) {}

TcpTransport::~TcpTransport() {
  // A module destroyed without finalize() (an error path): close quietly.
  endpoints_.clear();
  pending_.clear();
}

TcpEndpoint* TcpTransport::endpoint(int peer) const {
  if (peer < 0 || static_cast<size_t>(peer) >= endpoints_.size()) return nullptr;
  return endpoints_[static_cast<size_t>(peer)].get();
}

TcpEndpoint::State TcpTransport::peer_state(int peer) const {
  const TcpEndpoint* ep = endpoint(peer);
  return ep ? ep->state() : TcpEndpoint::State::kFailed;
}

Status TcpTransport::init(Host& host) {
  if (host_ != nullptr) return Internal("tcp: init() called twice");
  if (host.job_secret().empty())
    return PermissionDenied("tcp: no job secret: connections could not be authenticated");
  secret_ = host.job_secret();
  cctx_.secret = &secret_;
  cctx_.my_rank = host.rank();
  cctx_.size = host.size();
  cctx_.max_frame = config_.max_frame;
  cctx_.placement_head = host.placement_head() <= TcpFrameReader::kMaxHead ? host.placement_head() : 0;
  cctx_.sndbuf = config_.sndbuf;
  cctx_.rcvbuf = config_.rcvbuf;

  auto itfs = select_interfaces(config_.if_include, config_.if_exclude);
  if (!itfs.ok()) return itfs.status().with_context("transport tcp");
  interfaces_ = std::move(*itfs);
  Status s = poller_.open();
  if (s.ok()) s = listener_.open(interfaces_);
  for (size_t i = 0; s.ok() && i < listener_.sockets().size(); ++i)
    s = poller_.add(listener_.sockets()[i].fd.get(), PollKind::kListener, static_cast<uint32_t>(i), EPOLLIN);
  if (s.ok()) s = host.modex().put(kModexKey, listener_.address_list());
  if (!s.ok()) {
    listener_.close();
    poller_.close();
    return s;
  }
  endpoints_.clear();
  endpoints_.resize(static_cast<size_t>(host.size()));
  for (int r = 0; r < host.size(); ++r)
    if (r != host.rank()) endpoints_[static_cast<size_t>(r)] = std::make_unique<TcpEndpoint>(r, &poller_);
  host_ = &host;
  log::debug("tcp: rank %d publishes %s", host.rank(), listener_.address_list().c_str());
  return Status::Ok();
}

std::vector<SockAddr> TcpTransport::order_addresses(int peer, const std::string& published, Status* err) const {
  const PeerInfo& me = host_->peer(host_->rank());
  const PeerInfo& them = host_->peer(peer);
  const bool same_host = me.same_host(them);
  struct Candidate {
    SockAddr addr;
    int rank;  // lower is tried first
  };
  std::vector<Candidate> cands;
  for (const std::string& item : str::split(published, ',')) {
    auto a = SockAddr::parse(item);
    if (!a.ok()) {
      *err = ProtocolError("rank " + std::to_string(peer) + " published an invalid tcp address: " +
                           a.status().message());
      return {};
    }
    // A loopback address reaches the peer only from its own host.
    if (a->is_loopback() && !same_host) continue;
    int pref = 2;
    if (a->is_loopback()) {
      pref = 0;
    } else {
      for (const auto& itf : interfaces_)
        if (same_subnet(itf, *a)) pref = 1;
    }
    cands.push_back({*a, pref});
  }
  std::stable_sort(cands.begin(), cands.end(), [](const Candidate& x, const Candidate& y) { return x.rank < y.rank; });
  std::vector<SockAddr> out;
  for (auto& c : cands) out.push_back(c.addr);
  return out;
}

Status TcpTransport::connect() {
  if (host_ == nullptr) return Internal("tcp: connect() before init()");
  for (int r = 0; r < host_->size(); ++r) {
    TcpEndpoint* ep = endpoint(r);
    if (ep == nullptr) continue;
    auto published = host_->modex().get(r, kModexKey);
    if (!published.ok()) {
      if (published.status().code() == Code::kNotFound) continue;  // rank without tcp: unreachable
      return published.status().with_context("tcp: address of rank " + std::to_string(r));
    }
    Status err;
    ep->addresses() = order_addresses(r, *published, &err);
    LZ_RETURN_IF_ERROR(err);
    ep->next_address = 0;
  }
  // After a checkpoint (ours or the peer's): the addresses above are the new
  // ones. Pairs reconnect on the next send; frames queued while suspended
  // (whole frames, in order) go at once.
  checkpointed_ = false;
  for (auto& ep : endpoints_) {
    if (!ep || ep->state() != TcpEndpoint::State::kSuspended) continue;
    ep->set_state(TcpEndpoint::State::kIdle);
    if (!ep->queue_empty() && !ep->addresses().empty()) start_connect(*ep);
  }
  return Status::Ok();
}

bool TcpTransport::reaches(int peer) const {
  const TcpEndpoint* ep = endpoint(peer);
  return ep != nullptr && !ep->addresses().empty();
}

void TcpTransport::fail_endpoint(TcpEndpoint& ep, const Status& why) {
  if (ep.state() == TcpEndpoint::State::kFailed) return;
  log::debug("tcp: rank %d lost: %s", ep.rank(), why.to_string().c_str());
  if (ep.conn() != nullptr) bury(ep.detach());
  ep.queue().clear();
  ep.set_state(TcpEndpoint::State::kFailed);
  ep.failure = why;
  if (!ep.failure_reported) {
    ep.failure_reported = true;
    to_report_.push_back(ep.rank());
  }
}

void TcpTransport::bury(std::unique_ptr<TcpConnection> c) {
  // Closed at the end of the progress turn: the caller may be inside a
  // deliver() that reads from this very connection's buffer.
  if (c) graveyard_.push_back(std::move(c));
}

}  // namespace lz::transport::tcp
