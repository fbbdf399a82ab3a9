// Descriptor of transport/ucx: parameters (ucx_config.cpp) and query().
//
// Selection: ucx declines unless it is asked for (an include list naming
// it, `--mca transport ucx,self`) or transport_ucx_auto_select is on. Open
// MPI does the same with its pml ucx, which declines on a host whose UCX has
// no device of its own unless pml_ucx_tls/pml_ucx_devices say "any": every
// usable transport module is initialised in every rank (multi-select), and on
// hosts like this one UCX offers shared memory and TCP only, which shm and
// tcp already carry. Asked for by name and unable to run, it is a hard error
// that says why (the framework's rule).
#include <memory>

#include "lazarus/param_store.h"
#include "ucx_config.h"
#include "ucx_loader.h"
#include "ucx_proxy.h"
#include "lazarus/procfiles/file_scan.h"

namespace lz::transport::ucx {
namespace {

StatusOr<std::unique_ptr<lz::Module>> query(const QueryContext& ctx) {
  if (ctx.params == nullptr) return Internal("ucx: query without parameters");
  // Configuration only: UCX's context and worker are made by init(), as
  // `lazarus info` queries components without starting them.
  LZ_ASSIGN_OR_RETURN(UcxConfig config, load_config(*ctx.params, ctx.param_prefix));
  // Only `lazarus info` loads UCX here, to say what it finds; a rank's
  // selection never does (ucx_loader.h).
  if (ctx.listing_only && ctx.details != nullptr) {
    auto api = load_ucx();
    if (!api.ok()) return api.status();
    char version[64], tls[512];
    (*api)->library_version(version, sizeof version);
    (*api)->tl_summary(tls, sizeof tls);
    ctx.details->push_back("UCX " + std::string(version) + ", transports found: " + tls);
    ctx.details->push_back("UCX_TLS of a job: " + config.tls + " (transport_ucx_tls)");
  }
  if (!config.auto_select && !ctx.named)
    return Unavailable("not requested: use --mca transport ucx,self, or transport_ucx_auto_select=1 to let it take "
                       "part in the default selection");
  // UCX's posix shared memory: the runtime's, not a file of the program's.
  if (!ctx.listing_only) procfiles::add_runtime_files("/dev/shm/ucx_*");
  return std::unique_ptr<lz::Module>(new UcxProxy(std::move(config)));
}

}  // namespace
}  // namespace lz::transport::ucx

LZ_COMPONENT(transport, ucx) = {
    LZ_COMPONENT_HEADER(transport, ucx, lz::transport::kInterfaceVersion),
    "1.0.0", "UCX (UCP active messages): posix/cma shared memory on a host, tcp or RDMA between hosts",
    /*default_priority=*/30, lz::transport::ucx::kUcxParams, lz::transport::ucx::kNumUcxParams,
    &lz::transport::ucx::query, nullptr};
