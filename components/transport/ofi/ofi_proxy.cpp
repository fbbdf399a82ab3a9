#include "ofi_proxy.h"

#include "ofi_loader.h"

namespace lz::transport::ofi {

Status OfiProxy::not_initialised(const char* what) const {
  return Internal(std::string("ofi: ") + what + " before a successful init()");
}

Status OfiProxy::init(Host& host) {
  if (real_) return Internal("ofi: init() called twice");
  LZ_ASSIGN_OR_RETURN(const OfiApi* api, load_ofi());
  std::unique_ptr<Module> m(api->make_module(config_));
  LZ_RETURN_IF_ERROR(m->init(host));
  real_ = std::move(m);
  return Status::Ok();
}

Status OfiProxy::connect() { return real_ ? real_->connect() : not_initialised("connect()"); }

Status OfiProxy::send(int peer, const struct iovec* iov, int iovcnt) {
  return real_ ? real_->send(peer, iov, iovcnt) : not_initialised("send()");
}

Status OfiProxy::on_checkpoint() { return real_ ? real_->on_checkpoint() : not_initialised("on_checkpoint()"); }
Status OfiProxy::on_continue() { return real_ ? real_->on_continue() : not_initialised("on_continue()"); }
Status OfiProxy::on_restart() { return real_ ? real_->on_restart() : not_initialised("on_restart()"); }

}  // namespace lz::transport::ofi
