#include "ucx_proxy.h"

#include "ucx_loader.h"

namespace lz::transport::ucx {

UcxProxy::UcxProxy(UcxConfig config)
    : ProxyModule("ucx", kCaps, config.max_frame, [config]() -> StatusOr<std::unique_ptr<Module>> {
        LZ_ASSIGN_OR_RETURN(const UcxApi* api, load_ucx());
        return std::unique_ptr<Module>(api->make_module(&config));
      }) {}

}  // namespace lz::transport::ucx
