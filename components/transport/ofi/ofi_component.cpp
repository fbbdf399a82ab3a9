// Descriptor of transport/ofi: parameters (ofi_config.cpp) and query(), which
// asks libfabric (fi_getinfo: no fabric is opened) whether the configured
// provider is there, and declines with the providers it found when not.
#include <memory>

#include "lazarus/param_store.h"
#include "lazarus/strings.h"
#include "ofi_config.h"
#include "ofi_info.h"
#include "ofi_transport.h"

namespace lz::transport::ofi {
namespace {

StatusOr<std::unique_ptr<lz::Module>> query(const QueryContext& ctx) {
  if (ctx.params == nullptr) return Internal("ofi: query without parameters");
  LZ_ASSIGN_OR_RETURN(OfiConfig config, load_config(*ctx.params, ctx.param_prefix));
  if (ctx.details != nullptr) *ctx.details = OfiTransport::details(config);
  // Like transport/ucx: asked for, or not in the way. Every selected
  // transport is initialised in every rank, and libfabric's shm and
  // tcp;ofi_rxm are slower here than transport/shm and transport/tcp.
  if (!config.auto_select && !ctx.named)
    return Unavailable("not requested: use --mca transport ofi,self, or transport_ofi_auto_select=1 to let it take "
                       "part in the default selection");
  const std::string pname = ctx.param_prefix + "provider";
  if (config.provider == kAutoProvider) {
    // auto needs shm (one host) or tcp;ofi_rxm (several); init() picks.
    if (!get_info("shm", nullptr).ok() && !get_info("tcp;ofi_rxm", nullptr).ok()) {
      const auto found = rdm_providers();
      return Unavailable("libfabric " + library_version() + " offers neither shm nor tcp;ofi_rxm for " + pname +
                         "=auto (RDM providers found: " + (found.empty() ? "none" : str::join(found, ", ")) +
                         "); set " + pname + " to one of them");
    }
  } else if (auto info = get_info(config.provider, nullptr); !info.ok()) {
    return Status(info.status().code(), pname + " = '" + config.provider + "': " + info.status().message() +
                                            "; set " + pname + " to one of them, or to auto");
  }
  return std::unique_ptr<lz::Module>(new OfiTransport(std::move(config)));
}

}  // namespace
}  // namespace lz::transport::ofi

// Priority 10: below shm (50) and tcp (20), which are faster than or as fast
// as libfabric's shm (1.1 us) and tcp;ofi_rxm (11 us) here; `--mca transport
// ofi,self` selects it (or transport_ofi_auto_select).
LZ_COMPONENT(transport, ofi) = {
    LZ_COMPONENT_HEADER(transport, ofi, lz::transport::kInterfaceVersion),
    "1.0.0", "libfabric RDM endpoints (shm on one host, tcp;ofi_rxm between hosts; provider chosen by parameter)",
    /*default_priority=*/10, lz::transport::ofi::kOfiParams, lz::transport::ofi::kNumOfiParams,
    &lz::transport::ofi::query, nullptr};
