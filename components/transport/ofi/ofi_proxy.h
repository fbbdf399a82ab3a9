// OfiProxy: the module query() hands out. It holds the configuration and
// creates the real module (OfiTransport, in liblazarus_ofi.so, ofi_loader.h)
// in init(), forwarding every call to it from then on. Before a successful
// init() the calls answer as a module with no peers would, and
// capabilities() gives what the configuration implies (ofi_config.h).
#pragma once

#include <memory>

#include "lazarus/frameworks/transport.h"
#include "ofi_config.h"

namespace lz::transport::ofi {

class OfiProxy final : public Module {
 public:
  explicit OfiProxy(OfiConfig config) : config_(std::move(config)) {}

  uint64_t capabilities() const override { return real_ ? real_->capabilities() : capabilities_before_init(config_); }
  Status init(Host& host) override;
  Status connect() override;
  bool reaches(int peer) const override { return real_ && real_->reaches(peer); }
  size_t max_frame() const override { return real_ ? real_->max_frame() : config_.max_frame; }
  Status send(int peer, const struct iovec* iov, int iovcnt) override;
  int progress() override { return real_ ? real_->progress() : 0; }
  Status finalize() override { return real_ ? real_->finalize() : Status::Ok(); }
  size_t unsent_bytes(int peer) const override { return real_ ? real_->unsent_bytes(peer) : 0; }
  int wait_fd() const override { return real_ ? real_->wait_fd() : -1; }
  bool arm_wait() override { return real_ ? real_->arm_wait() : true; }
  Attributes attributes(int peer) const override { return real_ ? real_->attributes(peer) : Attributes{}; }
  Status send_zcopy(int peer, const struct iovec* iov, int iovcnt, Completion done) override {
    return real_ ? real_->send_zcopy(peer, iov, iovcnt, done) : not_initialised("send_zcopy()");
  }
  Status register_memory(const void* addr, size_t len, MemoryRegion* out) override {
    return real_ ? real_->register_memory(addr, len, out) : not_initialised("register_memory()");
  }
  void deregister_memory(const MemoryRegion& region) override {
    if (real_) real_->deregister_memory(region);
  }
  Status get_async(int peer, void* local, size_t len, uint64_t remote, std::string_view key, Completion done) override {
    return real_ ? real_->get_async(peer, local, len, remote, key, done) : not_initialised("get_async()");
  }
  Status on_checkpoint() override;
  Status on_continue() override;
  Status on_restart() override;

  // The module in liblazarus_ofi.so once init() succeeded (tests), else null.
  Module* real() const { return real_.get(); }

 private:
  Status not_initialised(const char* what) const;

  OfiConfig config_;
  std::unique_ptr<Module> real_;
};

}  // namespace lz::transport::ofi
