// cr/app: application-level checkpoint/restart. Saves the variables the
// application registered (lazarus/checkpoint.h) in the portable format of
// runtime/appfmt, one file per rank, and on a restart (the program runs from
// main again) loads them, redistributing decomposed arrays when the rank
// count changed. No root, no CRIU: the runtime's app service
// (runtime/cr/app_service.h) decides when, crcp/c3 keeps the messages that
// cross the line consistent, this component writes and reads the files.
//
// Used only when asked for (`--mca cr app`): a program has to register its
// state for it to mean anything, so it never wins a selection by priority.
#include <memory>

#include "app_module.h"
#include "lazarus/appfmt/writer.h"
#include "lazarus/frameworks/cr.h"
#include "lazarus/param_store.h"

namespace lz::cr::app {
namespace {

constexpr ParamSpec kParams[] = {
    {"every", ParamType::kInt, "0",
     "Write a snapshot every N LZ_Checkpoint calls (0: only on request, interval or --checkpoint-interval)", 3},
    {"interval", ParamType::kDouble, "0",
     "Seconds between snapshots, agreed by forward negotiation (0: none; --checkpoint-interval does the same)", 3},
    {"compress", ParamType::kString, "none", "Compression of snapshot files: none or zstd", 4},
    {"incremental_block", ParamType::kSize, "4K",
     "With cr_incremental on: the bytes compared at once (a multiple of 4 KiB); a block whose hash has not "
     "changed is referred to, not written again",
     4},
    // Read by liblazarus-ft (runtime/ft), where the program is started again by
    // the vendor's mpirun; a Lazarus job restarts with --recover or `lazarus
    // restart` instead. Declared here so that one YAML file serves both.
    {"restart", ParamType::kString, "none",
     "liblazarus-ft: resume from the newest valid snapshot of the same program and rank count (auto), from a "
     "snapshot or job directory (a path), or not (none)",
     3},
};

bool asked_for(const QueryContext& ctx) {
  if (ctx.params == nullptr || !ctx.params->is_registered("cr")) return false;
  for (const auto& name : ctx.params->get_list("cr"))
    if (name == "app") return true;
  return false;
}

StatusOr<std::unique_ptr<lz::Module>> query(const QueryContext& ctx) {
  if (!asked_for(ctx))
    return Unavailable("used only when asked for (--mca cr app): the program registers its state with LZ_Register");
  AppConfig c;
  const std::string compress = ctx.params->get_string(ctx.param_prefix + "compress");
  if (compress == "zstd") c.compress = true;
  else if (compress != "none")
    return InvalidArgument("cr_app_compress must be none or zstd, not '" + compress + "'");
  c.incremental = ctx.params->get_string("cr_incremental") == "on";
  c.full_every = ctx.params->get_int("cr_full_every");
  if (c.full_every < 1)
    return InvalidArgument("cr_full_every must be 1 or more snapshots, not " + std::to_string(c.full_every));
  c.incremental_block = static_cast<uint64_t>(ctx.params->get_int(ctx.param_prefix + "incremental_block"));
  if (c.incremental_block == 0 || c.incremental_block % appfmt::kBlockSize != 0)
    return InvalidArgument("cr_app_incremental_block must be a multiple of 4K, not " +
                           std::to_string(c.incremental_block) + " bytes");
  if (ctx.params->get_int(ctx.param_prefix + "every") < 0)
    return InvalidArgument("cr_app_every must be 0 or more calls");
  if (ctx.params->get_double(ctx.param_prefix + "interval") < 0)
    return InvalidArgument("cr_app_interval must be 0 or more seconds");
  return std::unique_ptr<lz::Module>(new AppModule(c));
}

}  // namespace
}  // namespace lz::cr::app

LZ_COMPONENT(cr, app) = {LZ_COMPONENT_HEADER(cr, app, lz::cr::kInterfaceVersion),
                         "0.1.0",
                         "Application-level checkpoint/restart: registered variables, portable files, "
                         "restart on another rank count",
                         /*default_priority=*/10,
                         lz::cr::app::kParams,
                         std::size(lz::cr::app::kParams),
                         &lz::cr::app::query,
                         nullptr};
