#include "tcp_transport.h"

#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "lazarus/log.h"
#include "lazarus/strings.h"
#include "tcp_frame.h"

namespace lz::transport::tcp {
namespace {
constexpr int kMaxEvents = 64;
constexpr int kAcceptsPerEvent = 16;
// recv() calls per readable connection and progress turn: bounds the time one
// busy peer can hold the others back (level-triggered epoll brings us back).
constexpr int kReadsPerEvent = 8;
}  // namespace

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
  const bool same_host = me.node_id == them.node_id && me.host == them.host;
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

// ---- sending ---------------------------------------------------------------

Status TcpTransport::send(int peer, const struct iovec* iov, int iovcnt) {
  TcpEndpoint* ep = endpoint(peer);
  if (checkpointed_ && ep != nullptr)
    return Status(Code::kWouldBlock, "tcp: checkpointed; no frame moves before connect()");
  if (ep == nullptr || ep->addresses().empty())
    return InvalidArgument("tcp cannot reach rank " + std::to_string(peer));
  size_t total = 0;
  for (int i = 0; i < iovcnt; ++i) total += iov[i].iov_len;
  if (total > config_.max_frame)
    return InvalidArgument("frame of " + std::to_string(total) + " bytes exceeds tcp max_frame " +
                           std::to_string(config_.max_frame));
  switch (ep->state()) {
    case TcpEndpoint::State::kFailed:
      return Status(Code::kAborted, "tcp connection to rank " + std::to_string(peer) + " failed: " +
                                        ep->failure.message());
    case TcpEndpoint::State::kPeerFinalized:
      return Status(Code::kAborted, "rank " + std::to_string(peer) + " has finalized");
    case TcpEndpoint::State::kIdle:
      start_connect(*ep);
      if (ep->state() == TcpEndpoint::State::kFailed)
        return Status(Code::kAborted, ep->failure.message());
      break;
    default:
      break;
  }
  Status s = ep->send_frame(iov, iovcnt, total, config_.send_queue_limit);
  if (!s.ok() && s.code() != Code::kWouldBlock) {
    fail_endpoint(*ep, s);
    return Status(Code::kAborted, s.message());
  }
  return s;
}

void TcpTransport::start_connect(TcpEndpoint& ep) {
  Status last = Unavailable("rank " + std::to_string(ep.rank()) + " published no reachable tcp address");
  while (ep.next_address < ep.addresses().size()) {
    const SockAddr& to = ep.addresses()[ep.next_address];
    const double deadline = now_seconds() + config_.connect_timeout;
    auto c = TcpConnection::connect_to(to, ep.rank(), cctx_, deadline);
    if (!c.ok()) {
      log::debug("tcp: %s", c.status().message().c_str());
      last = c.status();
      ++ep.next_address;
      continue;
    }
    if (Status s = ep.attach(std::move(*c), false); !s.ok()) {
      fail_endpoint(ep, s);
      return;
    }
    ep.set_state(TcpEndpoint::State::kConnecting);
    poller_.arm_deadline(deadline);
    return;
  }
  fail_endpoint(ep, last.with_context("cannot connect to rank " + std::to_string(ep.rank())));
}

void TcpTransport::attempt_failed(TcpEndpoint& ep, const Status& why) {
  const std::string where =
      ep.next_address < ep.addresses().size() ? ep.addresses()[ep.next_address].to_string() : "?";
  log::debug("tcp: connection to rank %d at %s failed: %s", ep.rank(), where.c_str(), why.to_string().c_str());
  ++ep.next_address;
  if (ep.next_address < ep.addresses().size()) {
    start_connect(ep);
    return;
  }
  fail_endpoint(ep, why.with_context("cannot connect to rank " + std::to_string(ep.rank()) + " (last tried " +
                                     where + ")"));
}

bool TcpTransport::retry_later(TcpEndpoint& ep, const TcpConnection& c, const Status& why) {
  // The connect reached the peer's listener, so the peer was alive; the
  // handshake then failed because the peer did not answer in time (busy
  // outside MPI) or closed the socket after its handshake_timeout. Such a
  // pair is not lost: connect again after a pause growing to 1 s, for as long
  // as the peer lives (a dead peer refuses the connect, which counts against
  // the address in attempt_failed). A peer that proves to be another rank or
  // fails the MAC is not retried.
  if (!c.reached_peer() || (why.code() != Code::kIo && why.code() != Code::kTimeout)) return false;
  const double pause = std::min(1.0, 0.01 * static_cast<double>(1 << std::min(ep.handshake_retries, 7)));
  ++ep.handshake_retries;
  log::debug("tcp: handshake with rank %d failed (%s); live peer, connecting again in %g s", ep.rank(),
             why.message().c_str(), pause);
  ep.set_state(TcpEndpoint::State::kWaitIncoming);
  ep.retry_at = now_seconds() + pause;
  poller_.arm_deadline(ep.retry_at);
  return true;
}

size_t TcpTransport::unsent_bytes(int peer) const {
  const TcpEndpoint* ep = endpoint(peer);
  if (ep == nullptr) return 0;
  switch (ep->state()) {
    case TcpEndpoint::State::kFailed:          // reported through Host::peer_failed
    case TcpEndpoint::State::kPeerFinalized:   // the peer reads no more
      return 0;
    default:
      return ep->queued_bytes();
  }
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

// ---- progress --------------------------------------------------------------

int TcpTransport::progress() {
  if (host_ == nullptr || in_progress_ || checkpointed_) return 0;
  in_progress_ = true;
  int work = stashed_ != 0 ? deliver_stash() : 0;
  work += dispatch_events();
  report_failures();
  in_progress_ = false;
  return work;
}

// Frames kept by on_checkpoint go first: they were sent before anything that
// can come on a new connection.
int TcpTransport::deliver_stash() {
  int n = 0;
  for (auto& ep : endpoints_) {
    if (!ep) continue;
    while (!ep->stash.empty()) {
      std::string f = std::move(ep->stash.front());
      ep->stash.pop_front();
      --stashed_;
      ++ep->frames_received;
      ++n;
      host_->deliver(ep->rank(), f.data(), f.size());
    }
  }
  return n;
}

int TcpTransport::dispatch_events() {
  int work = 0;
  epoll_event evs[kMaxEvents];
  const int n = poller_.poll(evs, kMaxEvents);
  for (int i = 0; i < n; ++i) {
    const PollTag t = PollTag::unpack(evs[i].data.u64);
    switch (t.kind) {
      case PollKind::kListener: on_listener(t.id); break;
      case PollKind::kPending: on_pending(t.id, t.fd); break;
      case PollKind::kEndpoint: on_endpoint(t.id, t.fd, evs[i].events, &work); break;
      case PollKind::kTimer: on_timer(); break;
    }
  }
  graveyard_.clear();
  return work;
}

void TcpTransport::report_failures() {
  // Swap first: the engine's handler may send, and so fail, again.
  while (!to_report_.empty()) {
    std::vector<int> now;
    now.swap(to_report_);
    for (int r : now) {
      ++stats_.failures_reported;
      host_->peer_failed(r, endpoint(r)->failure);
    }
  }
}

void TcpTransport::on_listener(uint32_t index) {
  for (int i = 0; i < kAcceptsPerEvent; ++i) {
    auto acc = listener_.accept_one(index);
    if (!acc) return;
    if (pending_count_ >= static_cast<size_t>(config_.max_pending_accepts)) {
      // Refuse the oldest (the earliest deadline): a flood of silent strangers
      // cannot keep a real peer's connection out.
      uint32_t oldest = 0;
      double when = 0;
      for (uint32_t s = 0; s < pending_.size(); ++s)
        if (pending_[s] && (when == 0 || pending_[s]->deadline() < when)) {
          oldest = s;
          when = pending_[s]->deadline();
        }
      refuse(oldest, "too many connections waiting to authenticate");
    }
    const double deadline = now_seconds() + config_.handshake_timeout;
    auto c = TcpConnection::accepted(std::move(acc->fd), acc->peer, cctx_, deadline);
    uint32_t slot;
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
    } else {
      slot = static_cast<uint32_t>(pending_.size());
      pending_.emplace_back();
    }
    const uint32_t events = EPOLLIN | (c->wants_write() ? EPOLLOUT : 0u);
    if (Status s = poller_.add(c->fd(), PollKind::kPending, slot, events); !s.ok()) {
      log::warn("tcp: %s", s.message().c_str());
      free_slots_.push_back(slot);
      continue;
    }
    pending_[slot] = std::move(c);
    ++pending_count_;
    poller_.arm_deadline(deadline);
  }
}

void TcpTransport::refuse(uint32_t slot, const std::string& why, bool quiet) {
  std::unique_ptr<TcpConnection> c = std::move(pending_[slot]);
  if (!c) return;
  if (quiet) {
    log::debug("tcp: connection from %s closed before authenticating: %s", c->remote().to_string().c_str(),
               why.c_str());
  } else {
    log::warn("refused unauthenticated tcp connection from %s: %s", c->remote().to_string().c_str(), why.c_str());
    ++stats_.refused;
  }
  poller_.remove(c->fd());
  bury(std::move(c));
  free_slots_.push_back(slot);
  --pending_count_;
}

void TcpTransport::on_pending(uint32_t slot, int fd) {
  if (slot >= pending_.size() || !pending_[slot] || pending_[slot]->fd() != fd) return;
  TcpConnection* c = pending_[slot].get();
  const TcpConnection::Event ev = c->advance();
  switch (ev.kind) {
    case TcpConnection::Event::kFailed:
      // A connection closed or reset before sending a single byte is not an
      // attack: it is usually the losing side of a simultaneous connect, or a
      // peer that finalized first. Close it quietly; anything that spoke and
      // failed is refused and logged.
      refuse(slot, ev.why.message(), /*quiet=*/c->nothing_received() && ev.why.code() != Code::kTimeout);
      return;
    case TcpConnection::Event::kAuthenticated: {
      std::unique_ptr<TcpConnection> owned = std::move(pending_[slot]);
      free_slots_.push_back(slot);
      --pending_count_;
      decide(std::move(owned), slot);
      return;
    }
    default:
      (void)poller_.modify(fd, PollKind::kPending, slot, EPOLLIN | (c->wants_write() ? EPOLLOUT : 0u));
      return;
  }
}

void TcpTransport::decide(std::unique_ptr<TcpConnection> c, uint32_t slot) {
  (void)slot;
  const int r = c->peer_rank();
  const int me = host_->rank();
  TcpEndpoint* ep = endpoint(r);
  auto drop = [&](Verdict v) {
    (void)c->send_verdict(v);
    poller_.remove(c->fd());
    bury(std::move(c));
  };
  if (c->auth_target() != static_cast<uint32_t>(me) || ep == nullptr) {
    log::debug("tcp: rank %d from %s wanted rank %u: stale address", r, c->remote().to_string().c_str(),
               c->auth_target());
    drop(Verdict::kWrongTarget);
    return;
  }
  // The connection initiated by the lower rank wins (see the header).
  bool accept = false;
  switch (ep->state()) {
    case TcpEndpoint::State::kIdle:
    case TcpEndpoint::State::kSuspended:  // we missed nothing: the peer continued first
    case TcpEndpoint::State::kWaitIncoming: accept = true; break;
    case TcpEndpoint::State::kConnecting: accept = r < me; break;
    default: accept = false; break;
  }
  if (!accept) {
    ++stats_.duplicates_refused;
    log::debug("tcp: refusing rank %d's connection: pair is %s", r, TcpEndpoint::state_name(ep->state()));
    drop(Verdict::kDuplicate);
    return;
  }
  if (Status s = c->send_verdict(Verdict::kAccept); !s.ok()) {
    log::debug("tcp: accepting rank %d failed: %s", r, s.to_string().c_str());
    poller_.remove(c->fd());
    bury(std::move(c));
    return;
  }
  if (ep->conn() != nullptr) bury(ep->detach());  // our own attempt lost the race
  if (Status s = ep->attach(std::move(c), /*already_registered=*/true); !s.ok()) {
    fail_endpoint(*ep, s);
    return;
  }
  ep->set_state(TcpEndpoint::State::kConnected);
  ep->handshake_retries = 0;
  ++stats_.accepted;
  log::debug("tcp: accepted rank %d from %s", r, ep->conn()->remote().to_string().c_str());
  Status err;
  ep->flush(&err);
  if (!err.ok()) fail_endpoint(*ep, err);
}

void TcpTransport::on_endpoint(uint32_t rank, int fd, uint32_t events, int* work) {
  TcpEndpoint* ep = endpoint(static_cast<int>(rank));
  if (ep == nullptr || ep->conn() == nullptr || ep->conn()->fd() != fd) return;  // stale event
  TcpConnection* c = ep->conn();
  if (!c->established()) {
    const TcpConnection::Event ev = c->advance();
    switch (ev.kind) {
      case TcpConnection::Event::kEstablished: {
        ep->set_state(TcpEndpoint::State::kConnected);
        ep->handshake_retries = 0;
        ++stats_.connected;
        log::debug("tcp: connected to rank %d at %s", ep->rank(), c->remote().to_string().c_str());
        Status err;
        if (ep->flush(&err)) ++*work;
        if (!err.ok()) fail_endpoint(*ep, err);
        ep->update_interest();
        return;
      }
      case TcpConnection::Event::kRejected:
        bury(ep->detach());
        if (ev.verdict == Verdict::kDuplicate) {
          // The peer's own connection wins; wait for it, but not forever.
          ep->set_state(TcpEndpoint::State::kWaitIncoming);
          ep->retry_at = now_seconds() + config_.connect_timeout;
          poller_.arm_deadline(ep->retry_at);
        } else {
          attempt_failed(*ep, ProtocolError("address belongs to another rank now"));
        }
        return;
      case TcpConnection::Event::kFailed: {
        std::unique_ptr<TcpConnection> dead = ep->detach();
        if (!retry_later(*ep, *dead, ev.why)) attempt_failed(*ep, ev.why);
        bury(std::move(dead));
        return;
      }
      default:
        ep->update_interest();
        return;
    }
  }
  // Read before writing: a peer that died may have left frames (and its EOF)
  // behind, and they are delivered before its failure is reported.
  if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
    read_endpoint(*ep, work);
    if (ep->conn() != c) return;
  }
  if (events & EPOLLOUT) {
    Status err;
    if (ep->flush(&err)) ++*work;
    if (!err.ok()) fail_endpoint(*ep, err);
  }
}

void TcpTransport::read_endpoint(TcpEndpoint& ep, int* work) {
  TcpConnection* c = ep.conn();
  for (int round = 0; round < kReadsPerEvent; ++round) {
    bool drained = false;
    int err = 0;
    const auto r = c->reader().fill(c->fd(), &drained, &err);
    if (r == TcpFrameReader::FillResult::kAgain) return;
    if (r == TcpFrameReader::FillResult::kEof || r == TcpFrameReader::FillResult::kError) {
      if (ep.checkpoint_received) {
        peer_checkpointed(ep);
      } else if (r == TcpFrameReader::FillResult::kEof && ep.bye_received) {
        log::debug("tcp: rank %d finalized", ep.rank());
        bury(ep.detach());
        ep.queue().clear();
        ep.set_state(TcpEndpoint::State::kPeerFinalized);
      } else if (r == TcpFrameReader::FillResult::kEof) {
        fail_endpoint(ep, IoError("rank " + std::to_string(ep.rank()) + " closed its tcp connection without finalizing"));
      } else {
        fail_endpoint(ep, ErrnoError("tcp: receive from rank " + std::to_string(ep.rank()), err));
      }
      return;
    }
    for (;;) {
      Status why;
      const TcpFrameReader::Item it = c->reader().next(&why);
      if (it.kind == TcpFrameReader::Item::kNone) break;
      if (it.kind == TcpFrameReader::Item::kBad) {
        log::error("tcp: protocol error on the connection with rank %d (%s): %s; closing it", ep.rank(),
                   c->remote().to_string().c_str(), why.message().c_str());
        fail_endpoint(ep, why);
        return;
      }
      if (it.kind == TcpFrameReader::Item::kControl) {
        if (it.code == kCheckpoint)
          ep.checkpoint_received = true;
        else
          ep.bye_received = true;  // kBye, the only other control code next() lets through
        continue;
      }
      if (stashing_) {  // inside on_checkpoint(): keep it for the next progress()
        ep.stash.emplace_back(it.data, it.len);
        ++stashed_;
        continue;
      }
      ++ep.frames_received;
      ++*work;
      host_->deliver(ep.rank(), it.data, it.len);
      if (ep.conn() != c) return;  // the handler's send() failed this peer
    }
    if (drained) return;
  }
}

// ---- deadlines ---------------------------------------------------------------

void TcpTransport::on_timer() {
  poller_.timer_fired();
  const double now = now_seconds();
  for (uint32_t s = 0; s < pending_.size(); ++s)
    if (pending_[s] && pending_[s]->deadline() <= now) {
      char why[96];
      std::snprintf(why, sizeof why, "no valid handshake within %g s", config_.handshake_timeout);
      if (pending_[s]->nothing_received()) {
        // Never answered our HELLO: a stranger, or as often a rank that was
        // busy outside MPI when it connected; such a rank notices and
        // connects again (retry_later), so this is no warning.
        log::info("tcp: closed a connection from %s that sent nothing within %g s (a rank busy outside MPI "
                  "connects again)",
                  pending_[s]->remote().to_string().c_str(), config_.handshake_timeout);
        ++stats_.silent_closed;
        refuse(s, why, /*quiet=*/true);
      } else {
        refuse(s, why);
      }
    }
  for (auto& ep : endpoints_) {
    if (!ep) continue;
    if (ep->state() == TcpEndpoint::State::kConnecting && ep->conn() && ep->conn()->deadline() <= now) {
      std::unique_ptr<TcpConnection> late = ep->detach();
      const Status why = Timeout("no answer within connect_timeout");
      if (!retry_later(*ep, *late, why)) attempt_failed(*ep, why);
      bury(std::move(late));
    } else if (ep->state() == TcpEndpoint::State::kWaitIncoming && ep->retry_at <= now) {
      // The winning connection never came (its initiator may have died):
      // try ourselves again; the race rule still holds if both retry.
      ep->next_address = 0;
      start_connect(*ep);
    }
  }
  arm_deadlines();
}

void TcpTransport::arm_deadlines() {
  double next = 0;
  auto consider = [&](double t) {
    if (next == 0 || t < next) next = t;
  };
  for (const auto& c : pending_)
    if (c) consider(c->deadline());
  for (const auto& ep : endpoints_) {
    if (!ep) continue;
    if (ep->state() == TcpEndpoint::State::kConnecting && ep->conn()) consider(ep->conn()->deadline());
    if (ep->state() == TcpEndpoint::State::kWaitIncoming) consider(ep->retry_at);
  }
  if (next != 0) poller_.arm_deadline(next);
}

// ---- finalize ------------------------------------------------------------------

Status TcpTransport::finalize_connections() {
  // Orderly close: flush what is queued, say bye, half-close, and wait for the
  // peer's own bye/EOF so that closing with unread bytes never turns into a
  // reset that could destroy data the peer has not read yet. The engine
  // barriers before finalize, so every peer is doing the same.
  struct Closing {
    TcpEndpoint* ep;
    bool write_done;
  };
  std::vector<Closing> closing;
  for (auto& ep : endpoints_) {
    if (!ep || ep->state() != TcpEndpoint::State::kConnected || !ep->conn()) continue;
    unsigned char bye[kFrameHeaderBytes];
    encode_frame_header(kControlBit | kBye, bye);
    ep->queue().append(bye, sizeof bye);
    closing.push_back({ep.get(), false});
  }
  const double deadline = now_seconds() + config_.connect_timeout;
  char scratch[16384];
  while (!closing.empty()) {
    const double left = deadline - now_seconds();
    if (left <= 0) return Timeout("tcp: peers did not close within connect_timeout");
    std::vector<pollfd> fds;
    for (auto& cl : closing) {
      if (!cl.write_done) {
        Status err;
        cl.ep->flush(&err);
        if (!err.ok() || cl.ep->queue_empty()) {
          ::shutdown(cl.ep->conn()->fd(), SHUT_WR);
          cl.write_done = true;
        }
      }
      fds.push_back({cl.ep->conn()->fd(), static_cast<short>(POLLIN | (cl.write_done ? 0 : POLLOUT)), 0});
    }
    if (::poll(fds.data(), fds.size(), static_cast<int>(left * 1000) + 1) < 0 && errno != EINTR)
      return ErrnoError("tcp: poll", errno);
    std::vector<Closing> still;
    for (size_t i = 0; i < closing.size(); ++i) {
      bool done = false;
      if (fds[i].revents & (POLLIN | POLLERR | POLLHUP)) {
        for (;;) {
          ssize_t r = ::recv(fds[i].fd, scratch, sizeof scratch, MSG_DONTWAIT);
          if (r > 0) continue;
          if (r < 0 && errno == EINTR) continue;
          done = r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
          break;
        }
      }
      if (!done) still.push_back(closing[i]);
    }
    closing.swap(still);
  }
  return Status::Ok();
}

Status TcpTransport::finalize() {
  if (host_ == nullptr) return Status::Ok();
  listener_.close();
  for (auto& c : pending_)
    if (c) poller_.remove(c->fd());
  pending_.clear();
  free_slots_.clear();
  pending_count_ = 0;
  if (Status s = finalize_connections(); !s.ok()) log::debug("%s", s.message().c_str());
  endpoints_.clear();
  graveyard_.clear();
  to_report_.clear();
  poller_.close();
  host_ = nullptr;
  return Status::Ok();
}

// ---- checkpoint / continue / restart ----------------------------------------

void TcpTransport::peer_checkpointed(TcpEndpoint& ep) {
  // The peer closed the connection for a checkpoint after its kCheckpoint
  // frame. Everything we wrote is on the wire; a queue that cannot empty now
  // (the peer reads no more) means frames sent after the drain were lost.
  Status err;
  if (!ep.queue_empty()) ep.flush(&err);
  const size_t left = ep.queue().size();
  bury(ep.detach());
  ep.checkpoint_received = false;
  if (left != 0) {
    fail_endpoint(ep, DataLoss("rank " + std::to_string(ep.rank()) + " closed its connection for a checkpoint with " +
                               std::to_string(left) + " bytes of frames to it unsent (sends were not held)"));
    return;
  }
  ep.set_state(TcpEndpoint::State::kSuspended);
  log::debug("tcp: rank %d closed its connection for a checkpoint", ep.rank());
}

// Data a peer sent that this rank has not delivered: in the reader (part of a
// frame: complete ones are always delivered in the same turn) or unread in
// the socket. A lone control frame (the peer's own kCheckpoint or bye) is not
// data. "" when drained.
std::string TcpTransport::unread_from_peers() const {
  std::string out;
  for (const auto& ep : endpoints_) {
    if (!ep || !ep->conn() || !ep->conn()->established()) continue;
    TcpConnection* c = ep->conn();
    size_t bytes = c->reader().buffered();
    int inq = 0;
    if (::ioctl(c->fd(), FIONREAD, &inq) == 0 && inq > 0) {
      unsigned char hdr[kFrameHeaderBytes];
      const ssize_t n = ::recv(c->fd(), hdr, sizeof hdr, MSG_PEEK | MSG_DONTWAIT);
      const bool lone_control = bytes == 0 && inq == static_cast<int>(kFrameHeaderBytes) &&
                                n == static_cast<ssize_t>(kFrameHeaderBytes) &&
                                (decode_frame_header(hdr) & kControlBit) != 0;
      if (!lone_control) bytes += static_cast<size_t>(inq);
    }
    if (bytes != 0)
      out += (out.empty() ? "" : ", ") + std::to_string(bytes) + " bytes from rank " + std::to_string(ep->rank());
  }
  return out;
}

Status TcpTransport::flush_for_checkpoint(double deadline) {
  for (;;) {
    std::string waiting;
    for (const auto& ep : endpoints_) {
      if (!ep || ep->queue_empty()) continue;
      const auto st = ep->state();
      if (st == TcpEndpoint::State::kConnected || st == TcpEndpoint::State::kConnecting ||
          st == TcpEndpoint::State::kWaitIncoming)
        waiting += (waiting.empty() ? "" : ", ") + std::to_string(ep->rank());
    }
    if (waiting.empty()) return Status::Ok();
    if (now_seconds() >= deadline) {
      char why[160];
      std::snprintf(why, sizeof why, "tcp: not drained: frames queued to rank(s) %s were not taken within %g s "
                    "(transport_tcp_checkpoint_timeout)", waiting.c_str(), config_.checkpoint_timeout);
      return Timeout(why);
    }
    in_progress_ = true;
    dispatch_events();
    in_progress_ = false;
    pollfd p{poller_.fd(), POLLIN, 0};
    (void)::poll(&p, 1, 1);
  }
}

// Orderly close of every connection: kCheckpoint, half-close, read to the
// peer's EOF (it does the same in its own on_checkpoint, or in progress()),
// so no close ever turns into a reset that could destroy unread bytes.
void TcpTransport::close_for_checkpoint(double deadline) {
  struct Closing {
    TcpEndpoint* ep;
    bool write_done = false;
    bool done = false;
  };
  std::vector<Closing> closing;
  for (auto& ep : endpoints_) {
    if (!ep || !ep->conn()) continue;
    if (!ep->conn()->established()) {  // a handshake with nothing queued behind it
      bury(ep->detach());
      continue;
    }
    unsigned char mark[kFrameHeaderBytes];
    encode_frame_header(kControlBit | kCheckpoint, mark);
    ep->queue().append(mark, sizeof mark);
    closing.push_back({ep.get()});
  }
  size_t open = closing.size();
  while (open > 0) {
    const double left = deadline - now_seconds();
    if (left <= 0) {
      log::debug("tcp: %zu peer(s) did not close within checkpoint_timeout; closing without their answer", open);
      break;
    }
    std::vector<pollfd> fds;
    std::vector<Closing*> who;
    for (auto& cl : closing) {
      if (cl.done) continue;
      const int fd = cl.ep->conn()->fd();
      if (!cl.write_done) {
        Status err;
        cl.ep->flush(&err);
        if (!err.ok() || cl.ep->queue_empty()) {
          ::shutdown(fd, SHUT_WR);
          cl.write_done = true;
        }
      }
      fds.push_back({fd, static_cast<short>(POLLIN | (cl.write_done ? 0 : POLLOUT)), 0});
      who.push_back(&cl);
    }
    if (::poll(fds.data(), fds.size(), static_cast<int>(left * 1000) + 1) < 0 && errno != EINTR) break;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLERR | POLLHUP))) continue;
      Closing& cl = *who[i];
      TcpEndpoint& ep = *cl.ep;
      TcpConnection* c = ep.conn();
      for (;;) {
        bool drained = false;
        int err = 0;
        const auto r = c->reader().fill(c->fd(), &drained, &err);
        if (r == TcpFrameReader::FillResult::kAgain) break;
        if (r != TcpFrameReader::FillResult::kData) {
          cl.done = true;  // EOF (or a reset after the peer gave up waiting)
          break;
        }
        Status why;
        for (TcpFrameReader::Item it = c->reader().next(&why); it.kind != TcpFrameReader::Item::kNone;
             it = c->reader().next(&why)) {
          if (it.kind == TcpFrameReader::Item::kBad) {
            log::warn("tcp: rank %d broke the protocol while closing for a checkpoint: %s", ep.rank(),
                      why.message().c_str());
            cl.done = true;
            break;
          }
          if (it.kind == TcpFrameReader::Item::kControl) {
            if (it.code == kBye) ep.bye_received = true;
            continue;
          }
          log::debug("tcp: rank %d sent a frame during the checkpoint; kept for delivery after it", ep.rank());
          ep.stash.emplace_back(it.data, it.len);
          ++stashed_;
        }
        if (cl.done || drained) break;
      }
      if (cl.done) --open;
    }
  }
  for (auto& cl : closing) {
    TcpEndpoint& ep = *cl.ep;
    bury(ep.detach());
    ep.queue().clear();  // at most our kCheckpoint frame, if the peer never read
    if (cl.done && ep.bye_received) ep.set_state(TcpEndpoint::State::kPeerFinalized);
  }
}

Status TcpTransport::on_checkpoint() {
  if (host_ == nullptr) return Internal("tcp: on_checkpoint() before init()");
  if (checkpointed_) return Internal("tcp: on_checkpoint() twice without continue/restart and connect()");
  if (in_progress_) return Internal("tcp: on_checkpoint() from inside progress()");
  // Precondition (transport.h): the crcp drain delivered every frame sent to
  // this rank. Refused before anything is closed: progress, then try again.
  if (stashed_ != 0)
    return Status(Code::kWouldBlock, "tcp: not drained: " + std::to_string(stashed_) +
                                         " frame(s) kept by an earlier checkpoint attempt are not delivered yet");
  if (std::string unread = unread_from_peers(); !unread.empty())
    return Status(Code::kWouldBlock, "tcp: not drained: " + unread + " not yet delivered (progress, then checkpoint again)");

  const double deadline = now_seconds() + config_.checkpoint_timeout;
  stashing_ = true;
  // Frames accepted by send() but still queued (a full socket, a handshake in
  // progress) go out first; their receiver is draining them.
  if (Status s = flush_for_checkpoint(deadline); !s.ok()) {
    stashing_ = false;
    return s;
  }
  close_for_checkpoint(deadline);
  stashing_ = false;

  for (auto& c : pending_)
    if (c) poller_.remove(c->fd());
  pending_.clear();
  free_slots_.clear();
  pending_count_ = 0;
  for (const auto& ls : listener_.sockets()) poller_.remove(ls.fd.get());
  listener_.close();
  graveyard_.clear();
  for (auto& ep : endpoints_) {
    if (!ep) continue;
    switch (ep->state()) {
      case TcpEndpoint::State::kIdle:
      case TcpEndpoint::State::kConnecting:
      case TcpEndpoint::State::kWaitIncoming:
      case TcpEndpoint::State::kConnected: ep->set_state(TcpEndpoint::State::kSuspended); break;
      default: break;
    }
    ep->addresses().clear();  // connect() reads the new ones
    ep->next_address = 0;
    ep->checkpoint_received = false;
  }
  checkpointed_ = true;
  log::debug("tcp: rank %d closed its sockets for a checkpoint", host_->rank());
  return Status::Ok();
}

Status TcpTransport::reopen(bool restarted) {
  const char* hook = restarted ? "tcp: on_restart" : "tcp: on_continue";
  if (host_ == nullptr) return Internal(std::string(hook) + "() before init()");
  if (!checkpointed_) return Internal(std::string(hook) + "() without a successful on_checkpoint()");
  if (restarted) {
    // A restored process set: maybe another host (other interfaces), a new
    // launcher (maybe a new job secret); failures seen in the old process set
    // say nothing about the new one.
    auto itfs = select_interfaces(config_.if_include, config_.if_exclude);
    if (!itfs.ok()) return itfs.status().with_context(hook);
    interfaces_ = std::move(*itfs);
    if (host_->job_secret().empty())
      return PermissionDenied("tcp: no job secret after restart: connections could not be authenticated");
    secret_ = host_->job_secret();
    cctx_.my_rank = host_->rank();
    cctx_.size = host_->size();
    to_report_.clear();
    for (auto& ep : endpoints_) {
      if (!ep || ep->state() != TcpEndpoint::State::kFailed) continue;
      ep->set_state(TcpEndpoint::State::kSuspended);
      ep->failure = Status();
      ep->failure_reported = false;
    }
  }
  Status s = listener_.open(interfaces_);
  for (size_t i = 0; s.ok() && i < listener_.sockets().size(); ++i)
    s = poller_.add(listener_.sockets()[i].fd.get(), PollKind::kListener, static_cast<uint32_t>(i), EPOLLIN);
  if (s.ok()) s = host_->modex().put(kModexKey, listener_.address_list());
  if (!s.ok()) {
    for (const auto& ls : listener_.sockets()) poller_.remove(ls.fd.get());
    listener_.close();
    return s.with_context(hook);
  }
  log::debug("tcp: rank %d publishes %s after a checkpoint", host_->rank(), listener_.address_list().c_str());
  return Status::Ok();
}

Status TcpTransport::on_continue() { return reopen(false); }
Status TcpTransport::on_restart() { return reopen(true); }

}  // namespace lz::transport::tcp
