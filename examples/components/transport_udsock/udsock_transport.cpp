#include "udsock_transport.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>

#include "lazarus/auth.h"

namespace udsock {
namespace {

using lz::Status;
using Clock = std::chrono::steady_clock;

constexpr char kModexKey[] = "transport.udsock.addr";
constexpr uint32_t kHelloMagic = 0x55445331;  // "UDS1"

struct Hello {
  uint32_t magic;
  int32_t rank;
  lz::auth::Mac mac;
};

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// An abstract-namespace address: the name is not a file, it goes with the last
// descriptor, so a killed rank leaves nothing behind.
socklen_t abstract_addr(const std::string& name, sockaddr_un* sa) {
  std::memset(sa, 0, sizeof *sa);
  sa->sun_family = AF_UNIX;
  const size_t n = std::min(name.size(), sizeof(sa->sun_path) - 1);
  std::memcpy(sa->sun_path + 1, name.data(), n);
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
}

// Handshake I/O on a blocking socket, bounded by `deadline`.
Status io_full(int fd, void* buf, size_t len, bool writing, Clock::time_point deadline) {
  auto* p = static_cast<char*>(buf);
  while (len > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return lz::Timeout("udsock handshake timed out");
    pollfd pfd{fd, static_cast<short>(writing ? POLLOUT : POLLIN), 0};
    int r = ::poll(&pfd, 1, static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return lz::Timeout("udsock handshake timed out");
    ssize_t n = writing ? ::send(fd, p, len, MSG_NOSIGNAL) : ::recv(fd, p, len, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return lz::IoError(errno_text(writing ? "udsock handshake send" : "udsock handshake recv"));
    if (n == 0) return lz::ProtocolError("udsock handshake: connection closed");
    p += n;
    len -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

std::string pair_id(int from, int to) { return std::to_string(from) + ">" + std::to_string(to); }

}  // namespace

UdsockTransport::~UdsockTransport() { close_peers(); }

uint64_t UdsockTransport::capabilities() const {
  return lz::transport::kCapLocalHost | lz::transport::kCapWaitFd | lz::transport::kCapCheckpoint;
}

Status UdsockTransport::init(lz::transport::Host& host) {
  host_ = &host;
  peers_.clear();
  peers_.resize(static_cast<size_t>(host.size()));
  epoll_.reset(::epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_.valid()) return lz::IoError(errno_text("udsock: epoll_create1"));
  return listen_and_publish();
}

Status UdsockTransport::listen_and_publish() {
  // A fresh name each time: a connection meant for the listener of before a
  // checkpoint can never reach this one.
  std::random_device rd;
  char name[96];
  std::snprintf(name, sizeof name, "lazarus-udsock-%d-%08x%08x", static_cast<int>(::getpid()), rd(), rd());
  lz::UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return lz::IoError(errno_text("udsock: socket"));
  sockaddr_un sa;
  const socklen_t len = abstract_addr(name, &sa);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&sa), len) != 0)
    return lz::IoError(errno_text("udsock: bind"));
  if (::listen(fd.get(), SOMAXCONN) != 0) return lz::IoError(errno_text("udsock: listen"));
  listener_ = std::move(fd);
  listen_name_ = name;
  return host_->modex().put(kModexKey, listen_name_);
}

Status UdsockTransport::connect() {
  const int me = host_->rank();
  const uint64_t my_node = host_->peer(me).node_id;
  int lower = 0;
  std::vector<std::string> names(peers_.size());
  for (int p = 0; p < host_->size(); ++p) {
    Peer& peer = peers_[static_cast<size_t>(p)];
    peer.reachable = p != me && host_->peer(p).node_id == my_node;
    if (!peer.reachable) continue;
    auto name = host_->modex().get(p, kModexKey);
    if (!name.ok()) return name.status().with_context("udsock: address of rank " + std::to_string(p));
    names[static_cast<size_t>(p)] = *name;
    if (p < me) ++lower;
  }
  // Higher ranks first: their listeners' backlog takes the connection before
  // they accept, so the chain of ranks always ends at one that only accepts.
  for (int p = me + 1; p < host_->size(); ++p)
    if (peers_[static_cast<size_t>(p)].reachable) LZ_RETURN_IF_ERROR(connect_to(p, names[static_cast<size_t>(p)]));
  while (lower > 0) LZ_RETURN_IF_ERROR(accept_one(&lower));
  // Nobody else may connect: a stranger's connection now has nowhere to go.
  listener_.reset();
  return Status::Ok();
}

Status UdsockTransport::connect_to(int peer, const std::string& name) {
  lz::UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return lz::IoError(errno_text("udsock: socket"));
  sockaddr_un sa;
  const socklen_t len = abstract_addr(name, &sa);
  while (::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), len) != 0)
    if (errno != EINTR) return lz::IoError(errno_text(("udsock: connect to rank " + std::to_string(peer)).c_str()));
  const auto deadline = Clock::now() + std::chrono::seconds(cfg_.connect_timeout_s);
  lz::auth::Nonce nonce;
  LZ_RETURN_IF_ERROR(io_full(fd.get(), nonce.data(), nonce.size(), false, deadline));
  Hello h{kHelloMagic, host_->rank(),
          lz::auth::mac(host_->job_secret(), "udsock", nonce, pair_id(host_->rank(), peer))};
  LZ_RETURN_IF_ERROR(io_full(fd.get(), &h, sizeof h, true, deadline));
  attach(peer, std::move(fd));
  return Status::Ok();
}

Status UdsockTransport::accept_one(int* lower_left) {
  const auto deadline = Clock::now() + std::chrono::seconds(cfg_.connect_timeout_s);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return lz::Timeout("udsock: " + std::to_string(*lower_left) + " lower rank(s) never connected");
    pollfd pfd{listener_.get(), POLLIN, 0};
    if (::poll(&pfd, 1, static_cast<int>(left)) <= 0) continue;
    lz::UniqueFd fd(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!fd.valid()) {
      if (errno == EINTR || errno == EAGAIN || errno == ECONNABORTED) continue;
      return lz::IoError(errno_text("udsock: accept"));
    }
    // A stranger gets a short deadline: it must not hold up the real ranks.
    const auto hs_deadline = std::min(deadline, Clock::now() + std::chrono::seconds(5));
    const lz::auth::Nonce nonce = lz::auth::random_nonce();
    Hello h{};
    if (!io_full(fd.get(), const_cast<uint8_t*>(nonce.data()), nonce.size(), true, hs_deadline).ok() ||
        !io_full(fd.get(), &h, sizeof h, false, hs_deadline).ok())
      continue;  // closed: a stranger that went silent or away
    const int r = h.rank;
    const bool valid = h.magic == kHelloMagic && r >= 0 && r < host_->rank() &&
                       peers_[static_cast<size_t>(r)].reachable && !peers_[static_cast<size_t>(r)].fd.valid() &&
                       lz::auth::verify(host_->job_secret(), "udsock", nonce, pair_id(r, host_->rank()), h.mac);
    if (!valid) continue;  // refused: closed by the UniqueFd
    attach(r, std::move(fd));
    --*lower_left;
    return Status::Ok();
  }
}

void UdsockTransport::attach(int peer, lz::UniqueFd fd) {
  const int flags = ::fcntl(fd.get(), F_GETFL);
  (void)::fcntl(fd.get(), F_SETFL, flags | O_NONBLOCK);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u32 = static_cast<uint32_t>(peer);
  (void)::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd.get(), &ev);
  Peer& p = peers_[static_cast<size_t>(peer)];
  p.fd = std::move(fd);
  // p.in is kept: frames received while a checkpoint hook flushed come first.
  p.out.clear();
  p.out_off = 0;
  p.bye = false;
  p.failed = false;
}

bool UdsockTransport::reaches(int peer) const {
  return peer >= 0 && static_cast<size_t>(peer) < peers_.size() && peers_[static_cast<size_t>(peer)].reachable;
}

lz::transport::Attributes UdsockTransport::attributes(int peer) const {
  (void)peer;
  lz::transport::Attributes a;
  a.eager_limit = cfg_.eager_limit;
  a.exclusivity = 20;  // above tcp (10), below shm (50): used when asked for
  a.latency_us = 5;    // nominal for a loopback socket
  a.bandwidth_mbs = 3000;
  return a;
}

Status UdsockTransport::send(int peer, const struct iovec* iov, int iovcnt) {
  if (!reaches(peer)) return lz::InvalidArgument("udsock: rank " + std::to_string(peer) + " is not reachable");
  size_t len = 0;
  for (int i = 0; i < iovcnt; ++i) len += iov[i].iov_len;
  if (len > cfg_.max_frame)
    return lz::InvalidArgument("udsock: frame of " + std::to_string(len) + " bytes exceeds max_frame " +
                               std::to_string(cfg_.max_frame));
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.failed || !p.fd.valid()) return {lz::Code::kAborted, "udsock: connection to rank " + std::to_string(peer) + " is gone"};
  if (p.unsent() > cfg_.queue_limit) {
    if (!flush(peer)) return {lz::Code::kAborted, "udsock: connection to rank " + std::to_string(peer) + " broke"};
    if (p.unsent() > cfg_.queue_limit) return {lz::Code::kWouldBlock, "udsock: send queue full"};
  }
  ++p.sent;
  if (cfg_.drop_every > 0 && p.sent % static_cast<uint64_t>(cfg_.drop_every) == 0) return Status::Ok();
  const uint32_t hdr = static_cast<uint32_t>(len);
  if (p.out_off > 0 && p.out_off == p.out.size()) {
    p.out.clear();
    p.out_off = 0;
  }
  p.out.append(reinterpret_cast<const char*>(&hdr), sizeof hdr);
  for (int i = 0; i < iovcnt; ++i) p.out.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
  if (!flush(peer)) return {lz::Code::kAborted, "udsock: connection to rank " + std::to_string(peer) + " broke"};
  return Status::Ok();
}

bool UdsockTransport::flush(int peer) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  while (p.unsent() > 0) {
    ssize_t n = ::send(p.fd.get(), p.out.data() + p.out_off, p.unsent(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      p.out_off += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) break;
    lost(peer, errno_text("send"));
    return false;
  }
  if (p.out_off == p.out.size()) {
    p.out.clear();
    p.out_off = 0;
  } else if (p.out_off > (1u << 20)) {
    p.out.erase(0, p.out_off);
    p.out_off = 0;
  }
  return true;
}

int UdsockTransport::drain(int peer) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  int frames = 0;
  char buf[64 * 1024];
  bool eof = false;
  for (;;) {
    ssize_t n = ::recv(p.fd.get(), buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) {
      p.in.append(buf, static_cast<size_t>(n));
      if (static_cast<size_t>(n) < sizeof buf) break;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) break;
    eof = true;
    break;
  }
  // Whole frames, each taken out of the buffer before the engine sees it
  // (deliver may send, on this peer too).
  size_t off = 0;
  while (p.in.size() - off >= 4) {
    uint32_t len;
    std::memcpy(&len, p.in.data() + off, 4);
    if (len == kByeFrame) {
      p.bye = true;
      off += 4;
      continue;
    }
    if (len > cfg_.max_frame) {
      p.in.clear();
      lost(peer, "frame of " + std::to_string(len) + " bytes announced, max_frame is " + std::to_string(cfg_.max_frame));
      return frames;
    }
    if (p.in.size() - off - 4 < len) break;
    std::string frame = p.in.substr(off + 4, len);
    off += 4 + len;
    p.in.erase(0, off);
    off = 0;
    host_->deliver(peer, frame.data(), frame.size());
    ++frames;
    if (!peers_[static_cast<size_t>(peer)].fd.valid()) return frames;
  }
  if (off > 0) p.in.erase(0, off);
  if (eof) {
    if (p.bye) {
      (void)::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, p.fd.get(), nullptr);
      p.fd.reset();
    } else {
      lost(peer, "connection closed before the peer finalized");
    }
  }
  return frames;
}

void UdsockTransport::lost(int peer, const std::string& why) {
  Peer& p = peers_[static_cast<size_t>(peer)];
  if (p.fd.valid()) (void)::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, p.fd.get(), nullptr);
  p.fd.reset();
  p.out.clear();
  p.out_off = 0;
  if (p.failed) return;
  p.failed = true;
  host_->peer_failed(peer, {lz::Code::kAborted, "udsock: rank " + std::to_string(peer) + ": " + why});
}

int UdsockTransport::progress() {
  int events = 0;
  for (size_t i = 0; i < peers_.size(); ++i) {
    if (!peers_[i].fd.valid()) continue;
    const size_t before = peers_[i].unsent();
    if (before > 0 && flush(static_cast<int>(i)) && peers_[i].unsent() < before) ++events;
    if (peers_[i].fd.valid()) events += drain(static_cast<int>(i));
  }
  return events;
}

size_t UdsockTransport::unsent_bytes(int peer) const {
  if (!reaches(peer)) return 0;
  const Peer& p = peers_[static_cast<size_t>(peer)];
  return p.fd.valid() ? p.unsent() : 0;
}

bool UdsockTransport::arm_wait() {
  bool ready = false;
  for (size_t i = 0; i < peers_.size(); ++i) {
    Peer& p = peers_[i];
    if (!p.fd.valid()) continue;
    if (p.in.size() >= 4) ready = true;  // maybe a whole frame already read
    // Wake for room too while bytes wait to be written.
    epoll_event ev{};
    ev.events = EPOLLIN | (p.unsent() > 0 ? EPOLLOUT : 0u);
    ev.data.u32 = static_cast<uint32_t>(i);
    (void)::epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, p.fd.get(), &ev);
  }
  return !ready;
}

Status UdsockTransport::on_checkpoint() {
  for (size_t i = 0; i < peers_.size(); ++i) {
    Peer& p = peers_[i];
    if (!p.fd.valid()) continue;
    // Take what the socket holds (delivered later by progress() if this
    // refuses): a peer that reached its own hook first sent only its bye.
    char buf[4096];
    for (ssize_t n; (n = ::recv(p.fd.get(), buf, sizeof buf, MSG_DONTWAIT)) > 0;) p.in.append(buf, static_cast<size_t>(n));
    strip_byes(p);
    if (!p.in.empty())
      return lz::Unavailable("udsock: channel from rank " + std::to_string(i) + " is not drained (" +
                             std::to_string(p.in.size()) +
                             " bytes not delivered); a socket cannot carry them across a checkpoint");
  }
  // Frames send() accepted go out first: their receiver is still draining
  // them (it may not have reached its own hook). Bytes that arrive meanwhile
  // are kept and delivered after connect(), before anything newer.
  const auto deadline = Clock::now() + std::chrono::seconds(cfg_.connect_timeout_s);
  for (size_t i = 0; i < peers_.size(); ++i) {
    Peer& p = peers_[i];
    while (p.fd.valid() && p.unsent() > 0) {
      if (!flush(static_cast<int>(i))) break;
      if (p.unsent() == 0) break;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0)
        return lz::Timeout("udsock: rank " + std::to_string(i) + " took none of the " + std::to_string(p.unsent()) +
                           " bytes queued to it before the checkpoint");
      pollfd pfd{p.fd.get(), POLLOUT | POLLIN, 0};
      if (::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left, 1000))) > 0 && (pfd.revents & POLLIN)) {
        char buf[64 * 1024];
        ssize_t n = ::recv(p.fd.get(), buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) p.in.append(buf, static_cast<size_t>(n));
      }
    }
    strip_byes(p);
  }
  // A deliberate close: the bye tells each peer the EOF that follows is not
  // a failure (it may still be progressing before its own hook).
  const uint32_t bye = kByeFrame;
  for (auto& p : peers_)
    if (p.fd.valid() && !p.failed) (void)::send(p.fd.get(), &bye, sizeof bye, MSG_NOSIGNAL | MSG_DONTWAIT);
  close_peers(/*keep_input=*/true);
  listener_.reset();
  return Status::Ok();
}

void UdsockTransport::strip_byes(Peer& p) {
  std::string kept;
  size_t off = 0;
  while (p.in.size() - off >= 4) {
    uint32_t len;
    std::memcpy(&len, p.in.data() + off, 4);
    if (len == kByeFrame) {
      off += 4;
      continue;
    }
    if (len > cfg_.max_frame || p.in.size() - off - 4 < len) break;
    kept.append(p.in, off, 4 + len);
    off += 4 + len;
  }
  kept.append(p.in, off, std::string::npos);
  p.in = std::move(kept);
}

Status UdsockTransport::finalize() {
  if (finalized_) return Status::Ok();
  finalized_ = true;
  // The engine flushed every frame before finalize: only the bye is left. A
  // peer that finalized first has closed already; that is not a failure, so
  // the bye is written without flush() (which would report it).
  const uint32_t bye = kByeFrame;
  for (auto& p : peers_) {
    if (!p.fd.valid() || p.failed) continue;
    (void)::send(p.fd.get(), &bye, sizeof bye, MSG_NOSIGNAL | MSG_DONTWAIT);
  }
  close_peers();
  listener_.reset();
  return Status::Ok();
}

void UdsockTransport::close_peers(bool keep_input) {
  for (auto& p : peers_) {
    if (p.fd.valid() && epoll_.valid()) (void)::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, p.fd.get(), nullptr);
    p.fd.reset();
    if (!keep_input) p.in.clear();
    p.out.clear();
    p.out_off = 0;
  }
}

}  // namespace udsock
