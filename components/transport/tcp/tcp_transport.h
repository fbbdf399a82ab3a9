// transport/tcp: frames over TCP sockets, between ranks on any hosts.
//
// One connection per pair of ranks, made lazily by the first send() in either
// direction. When both ranks send first, both connect; the handshake settles
// it: the connection initiated by the LOWER rank wins everywhere (an acceptor
// that is itself connecting to a higher-ranked peer refuses that peer's
// connection with kDuplicate, and the refused side waits for the winning one).
// Frames are never written before the handshake is accepted, so nothing is
// lost with the losing connection. See tcp_handshake.h for authentication.
//
// Threading: one thread at a time (the engine serializes), per transport.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lazarus/frameworks/transport.h"
#include "tcp_config.h"
#include "tcp_connection.h"
#include "tcp_endpoint.h"
#include "tcp_interfaces.h"
#include "tcp_listener.h"
#include "tcp_poller.h"

namespace lz::transport::tcp {

inline constexpr const char* kModexKey = "transport.tcp.addr";

class TcpTransport final : public Module {
 public:
  explicit TcpTransport(TcpConfig config);
  ~TcpTransport() override;

  // kCapCheckpoint stays off until issue 4 fills the hooks; everything the
  // hooks need to close and re-create lives in TcpListener/TcpConnection,
  // everything they must keep lives in TcpEndpoint.
  uint64_t capabilities() const override { return kCapWaitFd; }
  Status init(Host& host) override;
  Status connect() override;
  bool reaches(int peer) const override;
  size_t max_frame() const override { return config_.max_frame; }
  Status send(int peer, const struct iovec* iov, int iovcnt) override;
  int progress() override;
  Status finalize() override;
  int wait_fd() const override { return poller_.fd(); }
  // Every source of work is in the epoll set except failures decided inside
  // send(), which progress() reports: do not sleep while one is pending.
  bool arm_wait() override { return to_report_.empty(); }

  // Observability for tests and `lazarus` diagnostics.
  struct Stats {
    uint64_t accepted = 0;             // authenticated incoming connections kept
    uint64_t connected = 0;            // outgoing connections established
    uint64_t refused = 0;              // unauthenticated or malformed connections refused
    uint64_t duplicates_refused = 0;   // connection races settled
    uint64_t failures_reported = 0;    // Host::peer_failed calls
  };
  const Stats& stats() const { return stats_; }
  const TcpConfig& config() const { return config_; }
  const TcpListener& listener() const { return listener_; }
  // State of the pair with `peer` (for tests).
  TcpEndpoint::State peer_state(int peer) const;

 private:
  TcpEndpoint* endpoint(int peer) const;
  void start_connect(TcpEndpoint& ep);
  void attempt_failed(TcpEndpoint& ep, const Status& why);
  void fail_endpoint(TcpEndpoint& ep, const Status& why);
  void bury(std::unique_ptr<TcpConnection> c);

  void on_listener(uint32_t index);
  void on_pending(uint32_t slot, int fd);
  void on_endpoint(uint32_t rank, int fd, uint32_t events, int* work);
  void decide(std::unique_ptr<TcpConnection> c, uint32_t slot);
  void refuse(uint32_t slot, const std::string& why);
  void read_endpoint(TcpEndpoint& ep, int* work);
  void on_timer();
  void arm_deadlines();
  void report_failures();
  std::vector<SockAddr> order_addresses(int peer, const std::string& published, Status* err) const;
  Status finalize_connections();

  TcpConfig config_;
  Host* host_ = nullptr;
  std::string secret_;
  ConnectionContext cctx_;
  std::vector<LocalInterface> interfaces_;
  TcpPoller poller_;
  TcpListener listener_;
  std::vector<std::unique_ptr<TcpEndpoint>> endpoints_;  // by rank; null for self
  std::vector<std::unique_ptr<TcpConnection>> pending_;  // accepted, not yet authenticated; by slot
  std::vector<uint32_t> free_slots_;
  size_t pending_count_ = 0;
  std::vector<std::unique_ptr<TcpConnection>> graveyard_;  // closed at the end of progress()
  std::vector<int> to_report_;
  bool in_progress_ = false;
  Stats stats_;
};

}  // namespace lz::transport::tcp
