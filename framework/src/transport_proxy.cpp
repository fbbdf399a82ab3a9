#include "lazarus/frameworks/transport_proxy.h"

namespace lz::transport {

Status ProxyModule::not_initialised(const char* what) const {
  return Internal(name_ + ": " + what + " before a successful init()");
}

Status ProxyModule::init(Host& host) {
  if (real_) return Internal(name_ + ": init() called twice");
  LZ_ASSIGN_OR_RETURN(std::unique_ptr<Module> m, make_());
  LZ_RETURN_IF_ERROR(m->init(host));
  real_ = std::move(m);
  return Status::Ok();
}

}  // namespace lz::transport
