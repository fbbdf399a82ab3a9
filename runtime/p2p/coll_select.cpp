// Per-communicator collective selection (see coll_select.h).
#include "p2p/coll_select.h"

#include <string>

#include "lazarus/frameworks/coll.h"
#include "p2p/runtime.h"

namespace lz::rt {

Status coll_enable(Comm& comm) {
  comm.coll_table.fill(nullptr);
  comm.coll_enabled.clear();
  const auto& modules = runtime().coll_modules();
  uint32_t missing = coll::kAllFunctions;
  for (coll::Module* m : modules) {
    if (missing == 0) break;
    comm.coll_enabled.push_back(m);  // disabled by comm.teardown(), whatever it provides
    const uint32_t provided = m->enable(comm) & missing;
    for (uint32_t f = 0; f < coll::kNumFunctions; ++f) {
      if (provided & (1u << f)) comm.coll_table[f] = m;
    }
    missing &= ~provided;
  }
  if (missing == 0) return Status::Ok();
  std::string names;
  for (uint32_t f = 0; f < coll::kNumFunctions; ++f) {
    if (!(missing & (1u << f))) continue;
    if (!names.empty()) names += ", ";
    names += coll::function_name(static_cast<coll::Function>(f));
  }
  return Unavailable("no selected coll module provides " + names + " (" + std::to_string(modules.size()) +
                     " module(s) selected; include coll/basic in the `coll` parameter, e.g. --mca coll tuned,basic)");
}

}  // namespace lz::rt
