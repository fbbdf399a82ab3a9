// OobServer: the launcher's side of the OOB channel. One non-blocking
// listener, any number of connections, all served by the EventLoop.
//
// Every new connection gets a HELLO with a fresh nonce and must answer with
// an AUTH frame (rank, flags, MAC with the job secret) before its handshake
// deadline. Until then the server reads at most one small frame from it: a
// wrong magic, a wrong type, an oversized length, a bad MAC or silence gets
// the connection closed and logged as
//   "refused unauthenticated OOB connection from 10.0.0.5:41234: <reason>"
// and nothing else happens: the job never waits on a stranger. Authenticated
// connections belong to a rank; their frames go to Callbacks::on_frame.
// A per-host helper (launcher/helper.h) authenticates the same way with
// kAuthHelper, its host index in place of a rank and its own MAC context;
// its frames go to the on_helper_* callbacks (helpers are refused when
// admit_helper is not set).
//
//   OobServer srv(loop, job_id, secret, welcome, 5.0, callbacks);
//   LZ_RETURN_IF_ERROR(srv.listen(bind_addr));
//   srv.send(rank, MsgType::kFenceDone, payload);
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "launcher/event_loop.h"
#include "oob/frame.h"
#include "oob/messages.h"
#include "oob/socket.h"

namespace lz::launcher {

class OobServer {
 public:
  struct Callbacks {
    // Whether `rank` may attach now (flags: AuthMsg flags). An error is sent
    // to the peer as ERROR and the connection is closed.
    std::function<Status(int rank, uint32_t flags)> admit;
    // The rank is authenticated and welcomed.
    std::function<void(int rank, uint32_t flags)> on_connected;
    std::function<void(int rank, oob::Frame& frame)> on_frame;
    // The rank's connection ended: kAborted for a plain close by the peer,
    // kUnavailable when it failed (reset, or timed out: its host is
    // silent), kProtocol when it broke the protocol (already logged).
    std::function<void(int rank, const Status& why)> on_closed;

    // The same for per-host helpers, by host index.
    std::function<Status(int host)> admit_helper;
    std::function<void(int host)> on_helper_connected;
    std::function<void(int host, oob::Frame& frame)> on_helper_frame;
    std::function<void(int host, const Status& why)> on_helper_closed;
  };

  OobServer(EventLoop& loop, std::string job_id, std::string secret, oob::WelcomeMsg welcome,
            double handshake_timeout, Callbacks callbacks);
  ~OobServer();
  OobServer(const OobServer&) = delete;
  OobServer& operator=(const OobServer&) = delete;

  Status listen(const SockAddr& bind_addr);
  const SockAddr& bound_address() const { return bound_; }

  // Queues a frame to `rank` (dropped if the rank is not connected).
  void send(int rank, oob::MsgType type, std::string_view payload);
  // Where `rank` lives from now on, in the WELCOME of every later connection
  // (a rank moved to another host; ranks read the layout when they reconnect).
  void set_place(int rank, uint64_t node_id, const std::string& host);
  // The modex rounds completed so far, in the WELCOME of later connections.
  void set_rounds(uint64_t fences_done, uint64_t barriers_done) {
    welcome_.fences_done = fences_done;
    welcome_.barriers_done = barriers_done;
  }
  // Queues a frame to every connected rank.
  void broadcast(oob::MsgType type, std::string_view payload);
  // Closes the rank's connection once its queued frames are written; no
  // on_closed callback follows.
  void close_rank(int rank);
  bool connected(int rank) const { return by_rank_.count(rank) != 0; }
  // Queues a frame to the helper of `host` (dropped if it is not connected).
  void send_helper(int host, oob::MsgType type, std::string_view payload);
  // A helper's host that stops answering (its link went down, it froze)
  // closes nothing: TCP keepalive probes on every helper connection, and a
  // bound on unacknowledged data (TCP_USER_TIMEOUT), make the kernel fail
  // the connection after about `seconds` of silence, which then ends as a
  // helper's closed connection does (on_helper_closed). 0: no probes.
  void set_helper_keepalive(double seconds) { helper_keepalive_ = seconds; }
  // The same for ranks' connections: those of a job srun started, whose
  // ranks on other hosts have no helper to watch them (0: never).
  void set_rank_keepalive(double seconds) { rank_keepalive_ = seconds; }
  // Connections still in their handshake (for tests and diagnostics).
  size_t pending_handshakes() const;

 private:
  enum class ConnState { kHandshake, kRank, kClosing };
  struct Conn {
    uint64_t id = 0;
    oob::Fd fd;
    std::string peer;
    ConnState state = ConnState::kHandshake;
    auth::Nonce nonce{};
    int rank = -1;  // or the host index of a helper
    bool helper = false;
    uint64_t timer = 0;
    oob::FrameDecoder decoder;
    std::string out;
  };

  void on_accept();
  void on_event(uint64_t id, short revents);
  void handle_handshake(Conn& c);
  void handle_frames(Conn& c);
  void refuse(Conn& c, const std::string& reason);
  void queue(Conn& c, oob::MsgType type, std::string_view payload);
  void flush(Conn& c);
  void update_events(Conn& c);
  // Removes the connection; for a rank connection reports `why` unless quiet.
  void drop(uint64_t id, const Status& why, bool notify);

  EventLoop& loop_;
  std::string job_id_;
  std::string secret_;
  oob::WelcomeMsg welcome_;
  double handshake_timeout_;
  double helper_keepalive_ = 0;
  double rank_keepalive_ = 0;
  Callbacks cb_;
  oob::Fd listener_;
  SockAddr bound_;
  uint64_t next_id_ = 1;
  std::map<uint64_t, std::unique_ptr<Conn>> conns_;
  std::map<int, uint64_t> by_rank_;
  std::map<int, uint64_t> by_helper_;
};

}  // namespace lz::launcher
