#include "backend.h"

#include <memory>

#include "cr/runtime_params.h"
#include "lazarus/log.h"

namespace lz::libcr {

Backend::~Backend() {
  if (module_) {
    Status s = module_->finalize();
    if (!s.ok()) lz::log::warn("cr %s: finalize: %s", component_.c_str(), s.message().c_str());
  }
}

StatusOr<Backend> Backend::open(uint64_t needed, const std::string& purpose,
                                const std::vector<std::pair<std::string, std::string>>& mca) {
  Backend b;
  b.registry_ = std::make_unique<Registry>();
  Registry& reg = *b.registry_;
  // The runtime's own parameters too: a LZ_MCA_ setting meant for jobs
  // (snapshot_root, ...) in this environment is known, not an error.
  LZ_RETURN_IF_ERROR(rt::register_runtime_params(reg));
  ConfigOptions opt;
  opt.mca = mca;
  LZ_RETURN_IF_ERROR(reg.configure(opt));
  Framework* fw = reg.framework("cr");
  if (fw == nullptr) return Internal("the registry has no cr framework");
  auto sel = fw->select(reg.query_context());
  if (!sel.ok()) return sel.status().with_context("cannot select a checkpointer (cr component)");
  if (sel->empty() || !sel->front().module) return Unavailable("no cr component can run here");
  QueryResult& picked = sel->front();
  b.component_ = picked.entry->desc->name;
  const uint64_t caps = picked.module->capabilities();
  if ((caps & needed) != needed) {
    std::string msg = "the selected cr component `" + b.component_ + "` cannot " + purpose +
                      ": it lacks the capability `" + cr::capability_names(needed & ~caps) + "` (it has: " +
                      cr::capability_names(caps) + ")";
    for (const QueryResult& q : fw->query_all(reg.query_context()))
      if (!q.module && !q.declined.ok())
        msg += "; cr/" + std::string(q.entry->desc->name) + " declined: " + q.declined.message();
    msg += "; choose a core-image back end with `LZ_MCA_cr=<name>`";
    return Unavailable(msg);
  }
  b.module_.reset(static_cast<cr::Module*>(picked.module.release()));
  LZ_RETURN_IF_ERROR(b.module_->init().with_context("cr " + b.component_));
  return b;
}

}  // namespace lz::libcr
