// UcxProxy: the module query() hands out (a transport::ProxyModule,
// lazarus/frameworks/transport_proxy.h). It holds the configuration and
// loads UCX (ucx_loader.h) only in init(), creating there the real module
// (UcxTransport, in liblazarus_ucx.so) and forwarding every call to it. So
// selection and `lazarus info` never load UCX, and a process that does not
// init the ucx transport never runs UCX's library constructors.
#pragma once

#include "lazarus/frameworks/transport_proxy.h"
#include "ucx_config.h"

namespace lz::transport::ucx {

class UcxProxy final : public ProxyModule {
 public:
  explicit UcxProxy(UcxConfig config);

  // What UcxTransport declares, known without loading it.
  static constexpr uint64_t kCaps = kCapWaitFd | kCapCheckpoint | kCapGet | kCapPut;
};

}  // namespace lz::transport::ucx
