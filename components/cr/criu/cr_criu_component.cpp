// cr/criu: core-image checkpoint/restart with CRIU (>= 4.1, libcriu).
//
// This descriptor finds CRIU and checks version and privilege, so that
// `lazarus info` says whether and why the back end can run here. The
// checkpoint path itself (CR thread, self-dump with BLCR's contract) is not
// built yet; until it is, the component declines with that reason rather than
// offering a module that cannot checkpoint.
#include <memory>

#include "criu_probe.h"
#include "lazarus/frameworks/cr.h"
#include "lazarus/param_store.h"

#ifndef LZ_CRIU_BINARY_DEFAULT
#define LZ_CRIU_BINARY_DEFAULT ""
#endif

namespace lz::cr::criu {
namespace {

constexpr ParamSpec kParams[] = {
    {"binary", ParamType::kString, LZ_CRIU_BINARY_DEFAULT,
     "Path of the criu binary (>= 4.1); scripts/setup builds one when the system's fails `criu check`", 3},
};

StatusOr<std::unique_ptr<lz::Module>> query(const QueryContext& ctx) {
  const std::string binary = ctx.params->get_string(ctx.param_prefix + "binary");
  auto v = probe_version(binary);
  if (!v.ok()) return v.status();
  if (!v->at_least(4, 1))
    return Unavailable("criu " + v->text() + " at " + binary +
                       " is older than 4.1, which kernels >= 6.13 need; run scripts/setup");
  LZ_RETURN_IF_ERROR(check_privilege());
  return Unavailable("criu " + v->text() + " found at " + binary +
                     ", but the core-image checkpoint path is not implemented in this version of Lazarus");
}

}  // namespace
}  // namespace lz::cr::criu

LZ_COMPONENT(cr, criu) = {
    LZ_COMPONENT_HEADER(cr, criu, lz::cr::kInterfaceVersion),
    "0.1.0", "Core-image checkpoint/restart with CRIU (libcriu self-dump, BLCR contract)", /*default_priority=*/50,
    lz::cr::criu::kParams, std::size(lz::cr::criu::kParams), &lz::cr::criu::query, nullptr};
