// The checkpointer behind the BLCR-compatible surface (liblazarus_cr,
// cr_restart): the cr module the registry selects, exactly as `lazarus run`
// would (--mca cr NAME, LZ_MCA_cr, the config files, priorities), required
// to advertise the optional methods the caller is about to use.
//
//   auto b = Backend::open(cr::kCapSingleProcess, "checkpoint a single process");
//   if (!b.ok()) return fail(b.status());     // names the component and the missing capability
//   auto outcome = b->module().checkpoint_process({dir_fd, dest});
//
// So the BLCR surface works with any core-image back end that declares the
// capabilities (a vendor's plugin from component_path too), and with one that
// does not it says so: "the selected cr component `none` cannot ...: it lacks
// the capability `single-process`", followed by why the others declined.
// Thread-safety: open() from one thread; the module's own rules afterwards.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lazarus/frameworks/cr.h"
#include "lazarus/registry.h"
#include "lazarus/status.h"

namespace lz::libcr {

class Backend {
 public:
  // Configures a registry (default and user config files, LZ_MCA_*
  // environment, then `mca` in order, plugins), selects the cr module,
  // checks it advertises every bit of `needed` and init()s it. `purpose`
  // completes "the selected cr component `X` cannot ..." in errors.
  static StatusOr<Backend> open(uint64_t needed, const std::string& purpose,
                                const std::vector<std::pair<std::string, std::string>>& mca = {});

  Backend(Backend&&) noexcept = default;
  Backend& operator=(Backend&&) noexcept = default;
  ~Backend();

  cr::Module& module() { return *module_; }
  // The selected component's name ("criu").
  const std::string& component() const { return component_; }

 private:
  Backend() = default;
  // Destroyed after the module: a plugin's code must outlive its module.
  std::unique_ptr<Registry> registry_;
  std::unique_ptr<cr::Module> module_;
  std::string component_;
};

}  // namespace lz::libcr
