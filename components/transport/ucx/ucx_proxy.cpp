#include "ucx_proxy.h"

#include "ucx_loader.h"

namespace lz::transport::ucx {

Status UcxProxy::not_initialised(const char* what) const {
  return Internal(std::string("ucx: ") + what + " before a successful init()");
}

Status UcxProxy::init(Host& host) {
  if (real_) return Internal("ucx: init() called twice");
  LZ_ASSIGN_OR_RETURN(const UcxApi* api, load_ucx());
  std::unique_ptr<Module> m(api->make_module(&config_));
  LZ_RETURN_IF_ERROR(m->init(host));
  real_ = std::move(m);
  return Status::Ok();
}

Status UcxProxy::connect() { return real_ ? real_->connect() : not_initialised("connect()"); }

Status UcxProxy::send(int peer, const struct iovec* iov, int iovcnt) {
  return real_ ? real_->send(peer, iov, iovcnt) : not_initialised("send()");
}

Status UcxProxy::on_checkpoint() { return real_ ? real_->on_checkpoint() : not_initialised("on_checkpoint()"); }
Status UcxProxy::on_continue() { return real_ ? real_->on_continue() : not_initialised("on_continue()"); }
Status UcxProxy::on_restart() { return real_ ? real_->on_restart() : not_initialised("on_restart()"); }

}  // namespace lz::transport::ucx
