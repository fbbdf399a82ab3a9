#include "ofi_proxy.h"

#include "ofi_loader.h"

namespace lz::transport::ofi {

OfiProxy::OfiProxy(OfiConfig config)
    : ProxyModule("ofi", capabilities_before_init(config), config.max_frame,
                  [config]() -> StatusOr<std::unique_ptr<Module>> {
                    LZ_ASSIGN_OR_RETURN(const OfiApi* api, load_ofi());
                    return std::unique_ptr<Module>(api->make_module(config));
                  }) {}

}  // namespace lz::transport::ofi
