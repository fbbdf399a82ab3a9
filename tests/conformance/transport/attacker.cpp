#include "attacker.h"

#include <arpa/inet.h>
#include <endian.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "frame_pattern.h"
#include "lazarus/auth.h"

namespace lz::conformance {

namespace {

bool parse_one(std::string_view item, sockaddr_storage* out) {
  std::string host;
  std::string_view port;
  if (!item.empty() && item.front() == '[') {
    auto close = item.find(']');
    if (close == std::string_view::npos || close + 1 >= item.size() || item[close + 1] != ':') return false;
    host = std::string(item.substr(1, close - 1));
    port = item.substr(close + 2);
  } else {
    auto colon = item.rfind(':');
    if (colon == std::string_view::npos || item.find(':') != colon) return false;
    host = std::string(item.substr(0, colon));
    port = item.substr(colon + 1);
  }
  if (port.empty() || port.size() > 5) return false;
  unsigned long p = 0;
  for (char ch : port) {
    if (ch < '0' || ch > '9') return false;
    p = p * 10 + static_cast<unsigned long>(ch - '0');
  }
  if (p == 0 || p > 65535) return false;
  sockaddr_storage ss{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&ss);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&ss);
  if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(p));
  } else if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(p));
  } else {
    return false;
  }
  *out = ss;
  return true;
}

socklen_t addr_len(const sockaddr_storage& a) {
  return a.ss_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
}

// The documented transport/tcp handshake (components/transport/tcp/
// tcp_handshake.h), re-encoded here from the description rather than by
// calling the component, so the test also checks that the description holds.
constexpr uint32_t kTcpMagic = 0x48545a4c;  // "LZTH"
constexpr size_t kTcpHelloBytes = 8 + auth::kNonceBytes;

void put32(std::string& s, uint32_t v) {
  v = htole32(v);
  s.append(reinterpret_cast<const char*>(&v), 4);
}
void put16(std::string& s, uint16_t v) {
  v = htole16(v);
  s.append(reinterpret_cast<const char*>(&v), 2);
}

std::string random_bytes(size_t n, uint64_t seed) {
  std::string s(n, '\0');
  fill_pattern(seed, 0, s.data(), n);
  return s;
}

}  // namespace

std::vector<sockaddr_storage> parse_socket_addresses(std::string_view value) {
  std::vector<sockaddr_storage> out;
  while (!value.empty()) {
    auto comma = value.find(',');
    std::string_view item = value.substr(0, comma);
    sockaddr_storage a;
    if (!parse_one(item, &a)) return {};
    out.push_back(a);
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return out;
}

std::string format_address(const sockaddr_storage& a) {
  char buf[INET6_ADDRSTRLEN] = "?";
  if (a.ss_family == AF_INET) {
    auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
    inet_ntop(AF_INET, &v4->sin_addr, buf, sizeof buf);
    return std::string(buf) + ":" + std::to_string(ntohs(v4->sin_port));
  }
  auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
  inet_ntop(AF_INET6, &v6->sin6_addr, buf, sizeof buf);
  return "[" + std::string(buf) + "]:" + std::to_string(ntohs(v6->sin6_port));
}

Attacker::Attacker(std::string transport, const sockaddr_storage& target, std::string secret, int claimed_rank,
                   int target_rank)
    : transport_(std::move(transport)),
      target_(target),
      secret_(std::move(secret)),
      claimed_rank_(claimed_rank),
      target_rank_(target_rank) {}

Attacker::~Attacker() {
  for (auto& c : conns_)
    if (c.fd >= 0) ::close(c.fd);
}

void Attacker::open(const std::string& kind, bool must_be_refused) {
  Conn c;
  c.kind = kind;
  c.must_be_refused = must_be_refused;
  c.fd = ::socket(target_.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (c.fd < 0) {
    problems_.push_back(kind + ": socket(): " + std::strerror(errno));
    return;
  }
  if (::connect(c.fd, reinterpret_cast<const sockaddr*>(&target_), addr_len(target_)) == 0) {
    c.connected = true;
  } else if (errno != EINPROGRESS) {
    problems_.push_back(kind + ": connect to the published address " + format_address(target_) +
                        " failed: " + std::strerror(errno));
    ::close(c.fd);
    c.fd = -1;
  }
  conns_.push_back(std::move(c));
}

bool Attacker::start() {
  open("garbage", true);
  open("silent-1", false);
  open("silent-2", false);
  open("silent-3", false);
  // libfabric 1.17's tcp provider (ofi over tcp;ofi_rxm) reads a connection
  // request's header with one recv() and, when fewer bytes come, returns the
  // thread's errno of the moment (prov/tcp/src/tcpx_conn_mgr.c, rx_cm_data):
  // when that errno is a stale EAGAIN it waits for the rest and keeps the
  // socket open for good, even after the EOF. That is libfabric's acceptor,
  // not ours; the connection is still made, and its fate is in the notes.
  open("truncated", transport_ != "ofi");
  open("reset", false);
  open("wrong-secret-mac", true);
  if (transport_ == "tcp") open("stale-nonce-mac", true);
  return problems_.empty();
}

std::string Attacker::wrong_auth(const std::string& greeting, bool stale_nonce) const {
  if (transport_ != "tcp") return random_bytes(80, 0xbad);
  auth::Nonce server_nonce{};
  if (greeting.size() >= kTcpHelloBytes) std::memcpy(server_nonce.data(), greeting.data() + 8, server_nonce.size());
  std::string secret = secret_;
  if (stale_nonce) {
    server_nonce = auth::random_nonce();  // the right secret over the wrong challenge
  } else {
    secret = auth::new_secret();  // a stranger's secret
  }
  const auth::Nonce client_nonce = auth::random_nonce();
  const auth::Mac mac = auth::mac(secret, "tcp", server_nonce, std::to_string(claimed_rank_));
  std::string m;
  put32(m, kTcpMagic);
  put16(m, 1);  // version
  put16(m, 2);  // AUTH
  put32(m, static_cast<uint32_t>(claimed_rank_));
  put32(m, static_cast<uint32_t>(target_rank_));
  m.append(reinterpret_cast<const char*>(client_nonce.data()), client_nonce.size());
  m.append(reinterpret_cast<const char*>(mac.data()), mac.size());
  return m;
}

void Attacker::act(Conn& c) {
  auto send_all = [&](const std::string& bytes) {
    ssize_t w = ::send(c.fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (w < 0 && (errno == EPIPE || errno == ECONNRESET)) c.closed_by_peer = true;
    c.detail += "sent " + std::to_string(w < 0 ? 0 : w) + "/" + std::to_string(bytes.size()) + " bytes; ";
    c.sent = true;
  };
  if (c.kind == "garbage") {
    // A frame header claiming ~2 GiB, then noise: a transport that trusts
    // lengths before authenticating would allocate or wait for it.
    send_all(std::string(8, '\xff') + random_bytes(4096, 0x9a7ba9e));
  } else if (c.kind == "truncated") {
    std::string part;
    put32(part, kTcpMagic);
    send_all(part.substr(0, 3));
    ::shutdown(c.fd, SHUT_WR);
  } else if (c.kind == "reset") {
    linger l{1, 0};
    ::setsockopt(c.fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    ::close(c.fd);
    c.fd = -1;
    c.sent = true;
    c.detail += "connected, then reset (SO_LINGER 0); ";
  } else if (c.kind == "wrong-secret-mac" || c.kind == "stale-nonce-mac") {
    // Answer the acceptor's challenge once it arrived (or, for a transport
    // whose greeting layout is unknown, after a short wait).
    using namespace std::chrono;
    const bool have_greeting = transport_ == "tcp" ? c.received.size() >= kTcpHelloBytes : !c.received.empty();
    if (!have_greeting && steady_clock::now() - c.opened < seconds(2)) return;
    if (!have_greeting) c.detail += "no greeting from the acceptor; ";
    send_all(wrong_auth(c.received, c.kind == "stale-nonce-mac"));
  } else {
    c.sent = true;  // silent
  }
}

void Attacker::step() {
  for (auto& c : conns_) {
    if (c.fd < 0 || c.closed_by_peer) continue;
    if (!c.connected) {
      pollfd p{c.fd, POLLOUT, 0};
      if (::poll(&p, 1, 0) <= 0) continue;
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) {
        problems_.push_back(c.kind + ": connect to the published address " + format_address(target_) +
                            " failed: " + std::strerror(err));
        ::close(c.fd);
        c.fd = -1;
        continue;
      }
      c.connected = true;
    }
    char buf[4096];
    for (;;) {
      ssize_t n = ::recv(c.fd, buf, sizeof buf, MSG_DONTWAIT);
      if (n > 0) {
        if (c.received.size() < 65536) c.received.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n == 0 || (n < 0 && (errno == ECONNRESET || errno == EPIPE))) c.closed_by_peer = true;
      break;
    }
    if (!c.sent && !c.closed_by_peer) act(c);
  }
}

std::vector<std::string> Attacker::not_refused() const {
  std::vector<std::string> out;
  for (const auto& c : conns_)
    if (c.must_be_refused && c.fd >= 0 && !c.closed_by_peer)
      out.push_back(c.kind + " connection to " + format_address(target_) +
                    " was not closed by the acceptor (" + c.detail + "received " +
                    std::to_string(c.received.size()) + " bytes)");
  return out;
}

std::vector<std::string> Attacker::summary() const {
  std::vector<std::string> out;
  for (const auto& c : conns_)
    out.push_back(c.kind + ": " + c.detail + "received " + std::to_string(c.received.size()) + " bytes, " +
                  (c.fd < 0 ? "closed by us" : c.closed_by_peer ? "closed by the acceptor" : "still open"));
  return out;
}

}  // namespace lz::conformance
