#include "p2p/runtime.h"

#include <string>

#include "bootstrap/coordinator_link.h"
#include "lazarus/log.h"
#include "oob/oob_params.h"
#include "p2p/coll_select.h"
#include "p2p/comm_factory.h"
#include "p2p/engine.h"

namespace lz::rt {
namespace {
std::unique_ptr<Runtime> g_owner;
Runtime* g_runtime = nullptr;
std::vector<std::pair<std::string, std::string>> g_settings_before_init;
}  // namespace

Runtime& runtime() { return *g_runtime; }
Runtime* runtime_if_any() { return g_runtime; }
void set_runtime(std::unique_ptr<Runtime> rt) {
  g_owner = std::move(rt);
  g_runtime = g_owner.get();
}
std::unique_ptr<Runtime> take_runtime() {
  g_runtime = nullptr;
  return std::move(g_owner);
}

Runtime::~Runtime() {
  if (g_runtime == this) g_runtime = nullptr;
}

void set_settings_before_init(std::vector<std::pair<std::string, std::string>> settings) {
  g_settings_before_init = std::move(settings);
}

StatusOr<std::unique_ptr<Runtime>> Runtime::create(Status (*register_params)(Registry&)) {
  std::unique_ptr<Runtime> rt(new Runtime());
  LZ_ASSIGN_OR_RETURN(rt->bootstrap_, Bootstrap::from_environment());
  const JobInfo& job = rt->bootstrap_->job();
  if (job.size > 1) log::set_identity("rank " + std::to_string(job.rank));

  rt->registry_ = std::make_unique<Registry>();
  LZ_RETURN_IF_ERROR(register_params(*rt->registry_));
  ConfigOptions opt;  // files + LZ_MCA_* (the launcher forwards --mca as environment)
  opt.api = g_settings_before_init;
  opt.api_source = "MPI_T_cvar_write";
  LZ_RETURN_IF_ERROR(rt->registry_->configure(opt).with_context("parameters"));

  // Checkpoint/restart back end and coordination protocol (single select).
  for (const char* name : {"cr", "crcp"}) {
    Framework* fw = rt->registry_->framework(name);
    if (fw == nullptr || fw->components().empty()) return Internal(std::string("no ") + name + " framework");
    QueryContext ctx = rt->registry_->query_context();
    ctx.rank = job.rank;
    ctx.size = job.size;
    auto sel = fw->select(ctx);
    if (!sel.ok()) return sel.status().with_context(std::string(name) + " selection");
    for (auto& q : *sel) {
      if (!q.module) continue;
      if (std::string(name) == "cr") {
        rt->cr_name_ = q.entry->desc->name;
        rt->cr_owned_ = std::move(q.module);
        rt->cr_ = static_cast<cr::Module*>(rt->cr_owned_.get());
      } else {
        rt->crcp_name_ = q.entry->desc->name;
        rt->crcp_owned_ = std::move(q.module);
        rt->crcp_ = static_cast<crcp::Module*>(rt->crcp_owned_.get());
      }
      break;
    }
  }
  if (rt->cr_ == nullptr || rt->crcp_ == nullptr) return Internal("cr/crcp selection returned no module");
  if (rt->cr_name_ != "none" && rt->crcp_name_ == "none" && job.size > 1)
    return InvalidArgument("cr=" + rt->cr_name_ + " with crcp=none: a checkpoint of a " + std::to_string(job.size) +
                           "-rank job without coordination is not consistent; use --mca crcp bkmrk (or --mca cr none)");
  if ((rt->cr_->capabilities() & cr::kCapAppLevel) && !(rt->crcp_->capabilities() & crcp::kCapMessageLog) &&
      job.size > 1)
    return InvalidArgument("cr=" + rt->cr_name_ + " with crcp=" + rt->crcp_name_ +
                           ": application-level checkpoints of a " + std::to_string(job.size) +
                           "-rank job need a protocol for the messages that cross the line; use --mca crcp c3");
  if (rt->cr_name_ != "none") LZ_RETURN_IF_ERROR(rt->cr_->init().with_context("cr " + rt->cr_name_ + ": init"));
  // Started by srun or mpiexec with checkpointing asked for (LZ_MCA_cr, a
  // configuration file; not a back end the selection merely found): the
  // job gets a coordinator, as under `lazarus run`, before any transport
  // opens. Without it the ranks are a plain PMI job.
  const Param* cr_param = rt->registry_->params().find("cr");
  if (rt->cr_name_ != "none" && rt->bootstrap_->from_process_manager() && cr_param != nullptr &&
      cr_param->source.kind != SourceKind::kDefault) {
    LZ_ASSIGN_OR_RETURN(
        rt->bootstrap_,
        attach_coordinator(std::move(rt->bootstrap_), rt->registry_->params().get_double(oob::kParamConnectTimeout)));
    rt->coordinated_ = true;
  }

  rt->engine_ = std::make_unique<Engine>();
  LZ_RETURN_IF_ERROR(rt->engine_->init(*rt->bootstrap_, *rt->registry_));

  if (Framework* fw = rt->registry_->framework("coll"); fw != nullptr && !fw->components().empty()) {
    QueryContext ctx = rt->registry_->query_context();
    ctx.rank = job.rank;
    ctx.size = job.size;
    auto sel = fw->select(ctx);
    if (!sel.ok()) return sel.status().with_context("coll selection");
    for (auto& q : *sel) {
      if (!q.module) continue;
      rt->coll_owned_.push_back(std::move(q.module));
      rt->coll_modules_.push_back(static_cast<coll::Module*>(rt->coll_owned_.back().get()));
    }
  }
  // Communicators need runtime() from here on.
  g_runtime = rt.get();
  Status s = init_predefined_comms(job.rank, job.size);
  if (s.ok()) s = coll_enable(lz_mpi_comm_world);
  if (s.ok()) s = coll_enable(lz_mpi_comm_self);
  if (!s.ok()) {
    g_runtime = nullptr;
    return s;
  }
  return rt;
}

Status Runtime::finalize() {
  // Everything sent before MPI_Finalize leaves first; the barrier keeps the
  // transports progressing (Bootstrap::ReplyWait) for peers still flushing.
  Status first = engine_->flush_sends();
  if (!first.ok()) log::error("MPI_Finalize: %s", first.message().c_str());
  Status s = bootstrap_->barrier();
  if (!s.ok() && first.ok()) first = s.with_context("finalize barrier");
  // Frames that arrived for us during the barrier are no one's business now.
  teardown_predefined_comms();
  s = engine_->finalize();
  if (!s.ok() && first.ok()) first = s;
  coll_modules_.clear();
  coll_owned_.clear();
  if (cr_ != nullptr) {
    s = cr_->finalize();
    if (!s.ok() && first.ok()) first = s.with_context("cr " + cr_name_ + ": finalize");
  }
  s = bootstrap_->finalize();
  if (!s.ok() && first.ok()) first = s;
  return first;
}

}  // namespace lz::rt
