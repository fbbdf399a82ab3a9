#include "launcher/oob_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "lazarus/auth.h"
#include "lazarus/log.h"

namespace lz::launcher {
namespace {

// Connections allowed in their handshake at once: a flood of strangers is
// refused at accept() instead of exhausting the launcher's descriptors.
constexpr size_t kMaxHandshakes = 256;
// Bytes read per readiness event, so one busy peer cannot starve the others.
constexpr size_t kReadBudget = 1 << 20;
// The only frame a stranger may send is AUTH; its payload is 40 bytes.
constexpr uint32_t kMaxAuthPayload = 64;

}  // namespace

void OobServer::set_place(int rank, uint64_t node_id, const std::string& host) {
  if (rank < 0 || static_cast<size_t>(rank) >= welcome_.node_of_rank.size()) return;
  welcome_.node_of_rank[static_cast<size_t>(rank)] = node_id;
  welcome_.hostname_of_rank[static_cast<size_t>(rank)] = host;
}

OobServer::OobServer(EventLoop& loop, std::string job_id, std::string secret, oob::WelcomeMsg welcome,
                     double handshake_timeout, Callbacks callbacks)
    : loop_(loop),
      job_id_(std::move(job_id)),
      secret_(std::move(secret)),
      welcome_(std::move(welcome)),
      handshake_timeout_(handshake_timeout),
      cb_(std::move(callbacks)) {}

OobServer::~OobServer() {
  for (auto& [id, c] : conns_) {
    loop_.unwatch(c->fd.get());
    if (c->timer) loop_.cancel_timer(c->timer);
  }
  if (listener_.valid()) loop_.unwatch(listener_.get());
}

Status OobServer::listen(const SockAddr& bind_addr) {
  LZ_ASSIGN_OR_RETURN(listener_, oob::listen_tcp(bind_addr, 512));
  LZ_ASSIGN_OR_RETURN(bound_, oob::local_address(listener_.get()));
  loop_.watch(listener_.get(), POLLIN, [this](short) { on_accept(); });
  return Status::Ok();
}

size_t OobServer::pending_handshakes() const {
  size_t n = 0;
  for (const auto& [id, c] : conns_) n += c->state == ConnState::kHandshake;
  return n;
}

void OobServer::on_accept() {
  for (int i = 0; i < 64; ++i) {
    SockAddr peer;
    peer.len = sizeof peer.ss;
    int fd = accept4(listener_.get(), reinterpret_cast<sockaddr*>(&peer.ss), &peer.len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) log::warn("OOB accept: %s", std::strerror(errno));
      return;
    }
    if (pending_handshakes() >= kMaxHandshakes) {
      log::warn("refused unauthenticated OOB connection from %s: too many connections in their handshake",
                peer.to_string().c_str());
      ::close(fd);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto c = std::make_unique<Conn>();
    c->id = next_id_++;
    c->fd.reset(fd);
    c->peer = peer.to_string();
    c->nonce = auth::random_nonce();
    const uint64_t id = c->id;
    c->timer = loop_.add_timer(oob::deadline_in(handshake_timeout_), [this, id] {
      auto it = conns_.find(id);
      if (it == conns_.end()) return;
      it->second->timer = 0;
      char why[96];
      std::snprintf(why, sizeof why, "no authentication within %g s", handshake_timeout_);
      refuse(*it->second, why);
    });
    loop_.watch(fd, POLLIN, [this, id](short revents) { on_event(id, revents); });
    Conn& ref = *c;
    conns_[id] = std::move(c);
    queue(ref, oob::MsgType::kHello, oob::encode_hello({ref.nonce, job_id_}));
  }
}

void OobServer::on_event(uint64_t id, short revents) {
  auto it = conns_.find(id);
  if (it == conns_.end()) return;
  Conn& c = *it->second;
  if (revents & POLLOUT) {
    flush(c);
    if (conns_.count(id) == 0) return;
  }
  if (!(revents & (POLLIN | POLLHUP | POLLERR))) return;
  size_t budget = kReadBudget;
  char buf[65536];
  while (budget > 0) {
    ssize_t n = recv(c.fd.get(), buf, sizeof buf, 0);
    if (n > 0) {
      budget -= std::min(budget, static_cast<size_t>(n));
      if (c.state == ConnState::kClosing) continue;  // discard: we are done with this peer
      c.decoder.feed(buf, static_cast<size_t>(n));
      if (c.state == ConnState::kHandshake) {
        handle_handshake(c);
      } else {
        handle_frames(c);
      }
      if (conns_.count(id) == 0) return;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    // EOF or error.
    if (c.state == ConnState::kHandshake) {
      refuse(c, n == 0 ? "closed before authenticating" : std::string("connection error: ") + std::strerror(errno));
    } else {
      const char* closed = c.helper ? "connection closed by the helper" : "connection closed by the rank";
      // A plain close (kAborted): the peer's process ended or closed it; an
      // error (kUnavailable): the connection broke, or its host fell silent
      // (keepalive: ETIMEDOUT).
      drop(id,
           n == 0 ? Status(Code::kAborted, closed)
                  : Status(Code::kUnavailable, std::string("connection error: ") + std::strerror(errno)),
           c.state == ConnState::kRank);
    }
    return;
  }
}

void OobServer::refuse(Conn& c, const std::string& reason) {
  log::warn("refused unauthenticated OOB connection from %s: %s", c.peer.c_str(), reason.c_str());
  drop(c.id, Status::Ok(), false);
}

void OobServer::handle_handshake(Conn& c) {
  if (c.decoder.buffered() < oob::kHeaderBytes) return;
  // Judge the header before buffering any payload: a stranger gets no more
  // than one small frame's worth of the launcher's memory.
  uint16_t type = 0;
  uint32_t len = 0;
  if (Status s = c.decoder.peek_header(&type, &len); !s.ok()) return refuse(c, s.message());
  if (type != static_cast<uint16_t>(oob::MsgType::kAuth))
    return refuse(c, "expected AUTH, got " + oob::msg_type_name(type));
  if (len > kMaxAuthPayload) return refuse(c, "AUTH frame of " + std::to_string(len) + " bytes");
  oob::Frame f;
  auto got = c.decoder.next(&f);
  if (!got.ok()) return refuse(c, got.status().message());
  if (!*got) return;
  if (f.type != static_cast<uint16_t>(oob::MsgType::kAuth))
    return refuse(c, "expected AUTH, got " + oob::msg_type_name(f.type));
  oob::AuthMsg a;
  if (Status s = oob::decode_auth(f.payload, &a); !s.ok()) return refuse(c, s.message());
  const bool helper = (a.flags & oob::kAuthHelper) != 0;
  const char* what = helper ? "helper of host " : "rank ";
  if (helper) {
    if (!cb_.admit_helper) return refuse(c, "claims to be a helper, and this job has none");
    if (!auth::verify(secret_, oob::kHelperAuthContext, c.nonce, oob::auth_id(job_id_, a.rank), a.mac))
      return refuse(c,
                    "wrong MAC for the helper of host " + std::to_string(a.rank) + " (does not know the job secret)");
  } else {
    if (a.rank >= welcome_.size)
      return refuse(c, "claims rank " + std::to_string(a.rank) + " in a job of " + std::to_string(welcome_.size));
    if (!auth::verify(secret_, "oob", c.nonce, oob::auth_id(job_id_, a.rank), a.mac))
      return refuse(c, "wrong MAC for rank " + std::to_string(a.rank) + " (does not know the job secret)");
  }
  const int rank = static_cast<int>(a.rank);
  if (c.timer) {
    loop_.cancel_timer(c.timer);
    c.timer = 0;
  }
  if (Status s = helper ? cb_.admit_helper(rank) : cb_.admit(rank, a.flags); !s.ok()) {
    log::warn("OOB connection from %s for %s%d refused: %s", c.peer.c_str(), what, rank, s.message().c_str());
    // Closing first: flush() drops the connection once the ERROR is written.
    c.state = ConnState::kClosing;
    queue(c, oob::MsgType::kError, oob::encode_error({s.message()}));
    return;
  }
  c.state = ConnState::kRank;
  c.rank = rank;
  c.helper = helper;
  if (const double keepalive = helper ? helper_keepalive_ : rank_keepalive_; keepalive > 0) {
    if (Status s = oob::set_keepalive(c.fd.get(), keepalive); !s.ok())
      log::warn("%s%d: %s; a host that stops answering will not be noticed", what, rank, s.message().c_str());
  }
  // A rank back from disconnect() before its old connection's end was read
  // (Job::admit): the old one goes without a word, this one is the rank's.
  auto& index = helper ? by_helper_ : by_rank_;
  if (auto old = index.find(rank); old != index.end() && old->second != c.id) {
    const uint64_t gone = old->second;
    index.erase(old);
    drop(gone, Status::Ok(), false);
  }
  index[rank] = c.id;
  const uint64_t id = c.id;
  queue(c, oob::MsgType::kWelcome, oob::encode_welcome(welcome_));
  if (conns_.count(id) == 0) return;
  log::debug("%s%d connected from %s", what, rank, c.peer.c_str());
  if (helper)
    cb_.on_helper_connected(rank);
  else
    cb_.on_connected(rank, a.flags);
  if (conns_.count(id) == 0) return;
  handle_frames(c);  // frames that arrived right behind AUTH
}

void OobServer::handle_frames(Conn& c) {
  const uint64_t id = c.id;
  for (;;) {
    oob::Frame f;
    auto got = c.decoder.next(&f);
    if (!got.ok()) {
      log::error("%s %d (OOB peer %s) broke the protocol: %s; dropping its connection",
                 c.helper ? "the helper of host" : "rank", c.rank, c.peer.c_str(), got.status().message().c_str());
      drop(id, got.status(), true);
      return;
    }
    if (!*got) return;
    if (c.helper)
      cb_.on_helper_frame(c.rank, f);
    else
      cb_.on_frame(c.rank, f);
    auto it = conns_.find(id);
    if (it == conns_.end() || it->second->state != ConnState::kRank) return;
  }
}

void OobServer::queue(Conn& c, oob::MsgType type, std::string_view payload) {
  c.out += oob::encode_frame(type, payload);
  flush(c);
}

void OobServer::flush(Conn& c) {
  const uint64_t id = c.id;
  while (!c.out.empty()) {
    ssize_t n = ::send(c.fd.get(), c.out.data(), c.out.size(), MSG_NOSIGNAL);
    if (n > 0) {
      c.out.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    // The peer is gone; its EOF or exit will be (or was) reported elsewhere.
    if (c.state == ConnState::kHandshake) {
      refuse(c, std::string("write failed: ") + std::strerror(errno));
    } else {
      drop(id, Status(Code::kAborted, std::string("write failed: ") + std::strerror(errno)),
           c.state == ConnState::kRank);
    }
    return;
  }
  if (c.out.empty() && c.state == ConnState::kClosing) {
    drop(id, Status::Ok(), false);
    return;
  }
  update_events(c);
}

void OobServer::update_events(Conn& c) {
  loop_.set_events(c.fd.get(), static_cast<short>(POLLIN | (c.out.empty() ? 0 : POLLOUT)));
}

void OobServer::send(int rank, oob::MsgType type, std::string_view payload) {
  auto it = by_rank_.find(rank);
  if (it == by_rank_.end()) return;
  queue(*conns_.at(it->second), type, payload);
}

void OobServer::send_helper(int host, oob::MsgType type, std::string_view payload) {
  auto it = by_helper_.find(host);
  if (it == by_helper_.end()) return;
  queue(*conns_.at(it->second), type, payload);
}

void OobServer::broadcast(oob::MsgType type, std::string_view payload) {
  std::vector<int> ranks;
  for (const auto& [r, id] : by_rank_) ranks.push_back(r);
  for (int r : ranks) send(r, type, payload);
}

void OobServer::close_rank(int rank) {
  auto it = by_rank_.find(rank);
  if (it == by_rank_.end()) return;
  Conn& c = *conns_.at(it->second);
  by_rank_.erase(it);
  c.state = ConnState::kClosing;
  flush(c);
}

void OobServer::drop(uint64_t id, const Status& why, bool notify) {
  auto it = conns_.find(id);
  if (it == conns_.end()) return;
  std::unique_ptr<Conn> c = std::move(it->second);
  conns_.erase(it);
  loop_.unwatch(c->fd.get());
  if (c->timer) loop_.cancel_timer(c->timer);
  int rank = -1;
  const bool helper = c->helper;
  auto& index = helper ? by_helper_ : by_rank_;
  if (c->rank >= 0) {
    auto r = index.find(c->rank);
    if (r != index.end() && r->second == id) {
      index.erase(r);
      rank = c->rank;
    }
  }
  c.reset();  // closes the socket before the callback reacts
  if (notify && rank >= 0) {
    if (helper)
      cb_.on_helper_closed(rank, why);
    else
      cb_.on_closed(rank, why);
  }
}

}  // namespace lz::launcher
