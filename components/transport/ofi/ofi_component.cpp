// Descriptor of transport/ofi: parameters (ofi_config.cpp) and query().
// Nothing here links libfabric (ofi_loader.h says why): query() loads
// liblazarus_ofi.so only when ofi takes part in the selection (asked for by
// name, or transport_ofi_auto_select) or `lazarus info` describes it, and
// then asks libfabric (fi_getinfo: no fabric is opened) whether the
// configured provider is there, declining with the providers it found when
// not.
#include <memory>

#include "lazarus/param_store.h"
#include "ofi_config.h"
#include "ofi_loader.h"
#include "ofi_proxy.h"
#include "lazarus/procfiles/file_scan.h"

namespace lz::transport::ofi {
namespace {

StatusOr<std::unique_ptr<lz::Module>> query(const QueryContext& ctx) {
  if (ctx.params == nullptr) return Internal("ofi: query without parameters");
  LZ_ASSIGN_OR_RETURN(OfiConfig config, load_config(*ctx.params, ctx.param_prefix));
  if (ctx.listing_only && ctx.details != nullptr) {
    LZ_ASSIGN_OR_RETURN(const OfiApi* api, load_ofi());
    *ctx.details = api->details(config);
  }
  // Like transport/ucx: asked for, or not in the way. Every selected
  // transport is initialised in every rank, and libfabric's shm and
  // tcp;ofi_rxm are slower here than transport/shm and transport/tcp.
  // Declining here, before the load, keeps libfabric out of the process.
  if (!config.auto_select && !ctx.named)
    return Unavailable("not requested: use --mca transport ofi,self, or transport_ofi_auto_select=1 to let it take "
                       "part in the default selection");
  LZ_ASSIGN_OR_RETURN(const OfiApi* api, load_ofi());
  LZ_RETURN_IF_ERROR(api->check_provider(config, ctx.param_prefix + "provider"));
  // libfabric's shm provider names its regions "<pid>:<n>:<n>": the runtime's.
  if (!ctx.listing_only) procfiles::add_runtime_files("/dev/shm/[0-9]*:*");
  return std::unique_ptr<lz::Module>(new OfiProxy(std::move(config)));
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
