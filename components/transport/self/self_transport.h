// transport/self: frames a rank sends to itself. Copies each frame into a
// queue and delivers it on the next progress(); holds nothing but process
// memory, so its checkpoint hooks have nothing to release.
#pragma once

#include <deque>
#include <string>

#include "lazarus/frameworks/transport.h"

namespace lz::transport {

class SelfTransport final : public Module {
 public:
  uint64_t capabilities() const override { return kCapSelf | kCapCheckpoint; }
  Status init(Host& host) override;
  Status connect() override { return Status::Ok(); }
  bool reaches(int peer) const override;
  size_t max_frame() const override { return kMaxFrame; }
  // Only the rank itself: the engine's rendezvous to itself is one memcpy.
  Attributes attributes(int peer) const override {
    (void)peer;
    Attributes a;
    a.exclusivity = 100;
    a.latency_us = 0.05;
    a.bandwidth_mbs = 10000;
    return a;
  }
  Status send(int peer, const struct iovec* iov, int iovcnt) override;
  int progress() override;
  Status finalize() override;
  Status on_checkpoint() override { return Status::Ok(); }
  Status on_continue() override { return Status::Ok(); }
  Status on_restart() override { return Status::Ok(); }

  static constexpr size_t kMaxFrame = size_t{1} << 30;

 private:
  Host* host_ = nullptr;
  std::deque<std::string> queue_;
};

}  // namespace lz::transport
