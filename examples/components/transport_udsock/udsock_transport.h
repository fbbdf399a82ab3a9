// transport/udsock: an example transport built out of tree with the Lazarus
// SDK. Frames go over one Unix-domain stream socket per pair of ranks on the
// same host (abstract socket names: nothing to clean up in the filesystem).
//
// Wire: every frame is a 4-byte length then the bytes; length kByeFrame says
// the sender closes the connection on purpose (finalize, a checkpoint hook),
// so the EOF after it is not a peer failure. Connections are made in connect(): each rank connects to every
// higher rank and accepts every lower one. The acceptor sends a nonce, the
// connector answers with its rank and lz::auth::mac(job secret, "udsock",
// nonce, "<from>><to>"); a stranger (wrong MAC, another rank, garbage) is
// closed and does not count.
//
// Checkpoint/restart: on_checkpoint() refuses while a frame sent to this rank
// is not delivered (the bytes in a socket would be lost with it), writes out
// what it queued (its receiver is draining; frames arriving meanwhile are
// kept and delivered first after connect()), says bye and closes every
// socket; on_continue()/on_restart() listen on a fresh name and publish it;
// the engine's connect() then connects afresh.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lazarus/frameworks/transport.h"
#include "lazarus/unique_fd.h"

namespace udsock {

inline constexpr uint32_t kByeFrame = 0xffffffffu;

struct Config {
  size_t max_frame = 256 * 1024;
  size_t eager_limit = 64 * 1024;
  size_t queue_limit = 64 * 1024 * 1024;  // bytes queued per peer before send() says would-block
  int connect_timeout_s = 60;
  int drop_every = 0;  // >0: silently drop every Nth frame sent (the broken example)
};

// One connected peer.
struct Peer {
  lz::UniqueFd fd;
  std::string in;        // bytes read, not yet a whole frame
  std::string out;       // bytes accepted by send(), not yet written
  size_t out_off = 0;    // first unwritten byte of `out`
  bool bye = false;      // the peer said it is closing on purpose
  bool failed = false;   // reported through Host::peer_failed
  bool reachable = false;
  uint64_t sent = 0;     // frames accepted by send() (drop_every counts them)
  size_t unsent() const { return out.size() - out_off; }
};

class UdsockTransport final : public lz::transport::Module {
 public:
  explicit UdsockTransport(Config cfg) : cfg_(cfg) {}
  ~UdsockTransport() override;

  uint64_t capabilities() const override;
  lz::Status init(lz::transport::Host& host) override;
  lz::Status connect() override;
  bool reaches(int peer) const override;
  size_t max_frame() const override { return cfg_.max_frame; }
  lz::transport::Attributes attributes(int peer) const override;
  lz::Status send(int peer, const struct iovec* iov, int iovcnt) override;
  int progress() override;
  lz::Status finalize() override;
  size_t unsent_bytes(int peer) const override;
  int wait_fd() const override { return epoll_.get(); }
  bool arm_wait() override;
  lz::Status on_checkpoint() override;
  lz::Status on_continue() override { return listen_and_publish(); }
  lz::Status on_restart() override { return listen_and_publish(); }

 private:
  lz::Status listen_and_publish();
  lz::Status connect_to(int peer, const std::string& name);
  lz::Status accept_one(int* lower_left);
  void attach(int peer, lz::UniqueFd fd);
  // Writes queued bytes; false when the connection broke.
  bool flush(int peer);
  // Reads what the socket holds and delivers whole frames; returns frames.
  int drain(int peer);
  void lost(int peer, const std::string& why);
  // keep_input: frames read but not delivered stay (a checkpoint hook's).
  void close_peers(bool keep_input = false);
  // Removes bye markers from p.in, keeping whole frames and a partial tail.
  void strip_byes(Peer& p);

  Config cfg_;
  lz::transport::Host* host_ = nullptr;
  lz::UniqueFd epoll_;
  lz::UniqueFd listener_;
  std::string listen_name_;
  std::vector<Peer> peers_;
  bool finalized_ = false;
};

}  // namespace udsock
