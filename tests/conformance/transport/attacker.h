// Hostile connections against a transport's published listening address, for
// the "malformed or unauthenticated frame" scenario: strangers that send
// garbage, stay silent, hang up half-way, reset, or answer the challenge with a
// MAC that is wrong (wrong secret, or right secret over a stale nonce). The
// transport must refuse and close them without crashing, stalling or
// disturbing the real ranks' traffic.
//
//   auto addrs = parse_socket_addresses(value_from_modex);
//   Attacker a("tcp", addrs.front(), secret, /*claimed_rank=*/0, /*target_rank=*/1);
//   a.start();
//   while (...) { a.step(); ... }   // non-blocking; call often
//   for (auto& k : a.not_refused()) fail(k);
//
// Every socket is non-blocking and owned by the Attacker (closed by its
// destructor).
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace lz::conformance {

// "ip:port[,ip:port...]" or "[ipv6]:port" as published by a connection-oriented
// transport; empty when `value` is not such a list (for example a shared
// memory segment name).
std::vector<sockaddr_storage> parse_socket_addresses(std::string_view value);
std::string format_address(const sockaddr_storage& a);

class Attacker {
 public:
  // `transport` selects the handshake layout used for the MAC attacks (the
  // documented tcp layout; any other transport gets random bytes of a
  // plausible length after its greeting). `claimed_rank` is the rank the
  // attacker pretends to be (a real rank of the job, so an implementation that
  // acts on the claim before checking the MAC would drop a real connection).
  Attacker(std::string transport, const sockaddr_storage& target, std::string secret, int claimed_rank,
           int target_rank);
  ~Attacker();
  Attacker(const Attacker&) = delete;
  Attacker& operator=(const Attacker&) = delete;

  // Opens every hostile connection. Returns false if the published address
  // refuses connections (recorded in problems()).
  bool start();
  // Advances every connection: finishes connects, answers greetings, notices
  // the acceptor closing.
  void step();
  // Attacks that must end with the acceptor closing the connection and that
  // it has not closed yet ("garbage: still open after ...").
  std::vector<std::string> not_refused() const;
  // Hard problems met by the attacker itself (connect refused...).
  const std::vector<std::string>& problems() const { return problems_; }
  // One line per connection: what was sent, what came back, how it ended.
  std::vector<std::string> summary() const;

 private:
  struct Conn {
    std::string kind;
    int fd = -1;
    bool connected = false;
    bool sent = false;
    bool closed_by_peer = false;
    bool must_be_refused = false;
    std::string received;
    std::chrono::steady_clock::time_point opened = std::chrono::steady_clock::now();
    std::string detail;
  };
  void open(const std::string& kind, bool must_be_refused);
  void act(Conn& c);
  std::string wrong_auth(const std::string& greeting, bool stale_nonce) const;

  std::string transport_;
  sockaddr_storage target_;
  std::string secret_;
  int claimed_rank_;
  int target_rank_;
  std::vector<Conn> conns_;
  std::vector<std::string> problems_;
};

}  // namespace lz::conformance
