// cr/criu: core-image checkpoint/restart with CRIU (>= 4.1, libcriu).
//
// query() finds CRIU and checks version and privilege, so that `lazarus info`
// says whether and why the back end can run here, then hands out a CriuModule
// (criu_module.h): libcriu self-dump with BLCR's contract, restore through
// `criu restore`. The BLCR-compatible surface (runtime/blcr) reaches it
// through the cr framework like any core-image back end: checkpoint_process()
// and restore() (kCapSingleProcess, kCapRestore).
#include <memory>

#include "criu_files_hook.h"
#include "criu_module.h"
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
    {"log_level", ParamType::kInt, "4",
     "CRIU log level (0-4) of dump.log and restore.log, written into each image directory", 5},
    {"leave_running", ParamType::kBool, "true",
     "Keep a process running after its checkpoint (unless the request asks to terminate it); "
     "false: CRIU kills every checkpointed process after a good dump",
     4},
    {"shell_job", ParamType::kBool, "true",
     "Dump and restore processes that do not lead their session or own their terminal (criu --shell-job)", 6},
    {"hook", ParamType::kString, "",
     "The post-dump hook CRIU runs while a dumped process is frozen, to record its files (cr_files); empty: "
     "lazarus-criu-hook in the libexec/lazarus directory beside liblazarus",
     7},
};

StatusOr<std::unique_ptr<lz::Module>> query(const QueryContext& ctx) {
#ifndef LZ_HAVE_LIBCRIU
  (void)ctx;
  return Unavailable("Lazarus was built without libcriu (no CRIU >= 4.1 found at configure time); run scripts/setup");
#endif
  CriuConfig c;
  c.binary = ctx.params->get_string(ctx.param_prefix + "binary");
  auto v = probe_version(c.binary);
  if (!v.ok()) return v.status();
  if (!v->at_least(4, 1))
    return Unavailable("criu " + v->text() + " at " + c.binary +
                       " is older than 4.1, which kernels >= 6.13 need; run scripts/setup");
  LZ_RETURN_IF_ERROR(check_privilege());
  int64_t level = ctx.params->get_int(ctx.param_prefix + "log_level");
  if (level < 0 || level > 4) return InvalidArgument("cr_criu_log_level must be 0..4, not " + std::to_string(level));
  c.log_level = static_cast<int>(level);
  c.leave_running = ctx.params->get_bool(ctx.param_prefix + "leave_running");
  c.shell_job = ctx.params->get_bool(ctx.param_prefix + "shell_job");
  c.hook = ctx.params->get_string(ctx.param_prefix + "hook");
  if (c.hook.empty()) c.hook = default_hook_path();
  if (ctx.params->is_registered("cr_files")) {
    LZ_ASSIGN_OR_RETURN(c.files, procfiles::parse_policy(ctx.params->get_string("cr_files")));
    const int64_t max = ctx.params->get_int("cr_files_copy_max");
    c.files_copy_max = max > 0 ? static_cast<uint64_t>(max) : 0;
  }
  return std::unique_ptr<lz::Module>(new CriuModule(std::move(c)));
}

}  // namespace
}  // namespace lz::cr::criu

LZ_COMPONENT(cr, criu) = {LZ_COMPONENT_HEADER(cr, criu, lz::cr::kInterfaceVersion),
                          "0.3.0",
                          "Core-image checkpoint/restart with CRIU (libcriu self-dump, BLCR contract)",
                          /*default_priority=*/50,
                          lz::cr::criu::kParams,
                          std::size(lz::cr::criu::kParams),
                          &lz::cr::criu::query,
                          nullptr};
