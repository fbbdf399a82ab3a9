// transport::ProxyModule: the module a component hands out when its real
// module lives in a companion library (lazarus/companion_library.h) that
// must be loaded only by the ranks that use it (transport/ucx, transport/ofi).
// query() returns a proxy holding the configuration; init() calls the
// factory (which loads the companion and creates the real module), inits
// the real module and from then on forwards every call to it. So selection
// and `lazarus info` never need the foreign library, and a process whose
// selection declines the component never loads it.
//
// Before a successful init() the proxy answers as a module with no peers:
// capabilities and max_frame() as given at construction (what the
// configuration implies), reaches() false, progress() 0, send(), the CR
// hooks and the RMA calls kInternal; finalize() Ok.
//
//   return std::unique_ptr<lz::Module>(new ProxyModule("ofi", caps, cfg.max_frame,
//       [cfg]() -> StatusOr<std::unique_ptr<Module>> { ... load, make ... }));
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "lazarus/frameworks/transport.h"

namespace lz::transport {

class ProxyModule : public Module {
 public:
  // Creates the real module (not yet init()ed); called once, by init().
  using Factory = std::function<StatusOr<std::unique_ptr<Module>>()>;
  // `name` prefixes errors ("ofi: send() before a successful init()").
  ProxyModule(std::string name, uint64_t caps_before_init, size_t max_frame_before_init, Factory make)
      : name_(std::move(name)),
        caps_before_init_(caps_before_init),
        max_frame_before_init_(max_frame_before_init),
        make_(std::move(make)) {}

  uint64_t capabilities() const override { return real_ ? real_->capabilities() : caps_before_init_; }
  // Makes the real module and inits it; on an error nothing is kept (a
  // later init() tries again).
  Status init(Host& host) override;
  Status connect() override { return real_ ? real_->connect() : not_initialised("connect()"); }
  bool reaches(int peer) const override { return real_ && real_->reaches(peer); }
  size_t max_frame() const override { return real_ ? real_->max_frame() : max_frame_before_init_; }
  Attributes attributes(int peer) const override { return real_ ? real_->attributes(peer) : Attributes{}; }
  Status send(int peer, const struct iovec* iov, int iovcnt) override {
    return real_ ? real_->send(peer, iov, iovcnt) : not_initialised("send()");
  }
  int progress() override { return real_ ? real_->progress() : 0; }
  int progress_waiting(int polls) override { return real_ ? real_->progress_waiting(polls) : 0; }
  Status finalize() override { return real_ ? real_->finalize() : Status::Ok(); }
  size_t unsent_bytes(int peer) const override { return real_ ? real_->unsent_bytes(peer) : 0; }
  int wait_fd() const override { return real_ ? real_->wait_fd() : -1; }
  bool arm_wait() override { return real_ ? real_->arm_wait() : true; }
  Status send_zcopy(int peer, const struct iovec* iov, int iovcnt, Completion done) override {
    return real_ ? real_->send_zcopy(peer, iov, iovcnt, done) : not_initialised("send_zcopy()");
  }
  Status register_memory(const void* addr, size_t len, MemoryRegion* out) override {
    return real_ ? real_->register_memory(addr, len, out) : not_initialised("register_memory()");
  }
  void deregister_memory(const MemoryRegion& region) override {
    if (real_) real_->deregister_memory(region);
  }
  void drop_placement(int src) override {
    if (real_) real_->drop_placement(src);
  }
  Status get_async(int peer, void* local, size_t len, uint64_t remote, std::string_view key, Completion done) override {
    return real_ ? real_->get_async(peer, local, len, remote, key, done) : not_initialised("get_async()");
  }
  Status put_async(int peer, const void* local, size_t len, uint64_t remote, std::string_view key,
                   Completion done) override {
    return real_ ? real_->put_async(peer, local, len, remote, key, done) : not_initialised("put_async()");
  }
  Status on_checkpoint() override { return real_ ? real_->on_checkpoint() : not_initialised("on_checkpoint()"); }
  Status on_continue() override { return real_ ? real_->on_continue() : not_initialised("on_continue()"); }
  Status on_restart() override { return real_ ? real_->on_restart() : not_initialised("on_restart()"); }

  // The real module once init() succeeded (tests), else null.
  Module* real() const { return real_.get(); }

 private:
  Status not_initialised(const char* what) const;

  std::string name_;
  uint64_t caps_before_init_;
  size_t max_frame_before_init_;
  Factory make_;
  std::unique_ptr<Module> real_;
};

}  // namespace lz::transport
