// OfiProxy: the module query() hands out (a transport::ProxyModule,
// lazarus/frameworks/transport_proxy.h). It holds the configuration and
// creates the real module (OfiTransport, in liblazarus_ofi.so, ofi_loader.h)
// in init(), forwarding every call to it from then on. Before a successful
// init(), capabilities() gives what the configuration implies (ofi_config.h).
#pragma once

#include "lazarus/frameworks/transport_proxy.h"
#include "ofi_config.h"

namespace lz::transport::ofi {

class OfiProxy final : public ProxyModule {
 public:
  explicit OfiProxy(OfiConfig config);
};

}  // namespace lz::transport::ofi
