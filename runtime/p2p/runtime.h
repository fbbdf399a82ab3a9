// The process-wide runtime of an MPI process: parameters and components (the
// registry), the bootstrap channel to the launcher, the p2p engine and the
// selected collective modules. Created by MPI_Init, destroyed by
// MPI_Finalize.
//
//   lz::rt::Runtime& rt = lz::rt::runtime();
//   for (lz::coll::Module* m : rt.coll_modules()) m->enable(comm);
//   rt.engine().wait_until([&] { return req->complete; });
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "lazarus/frameworks/coll.h"
#include "lazarus/frameworks/cr.h"
#include "lazarus/frameworks/crcp.h"
#include "lazarus/registry.h"
#include "lazarus/status.h"

namespace lz::rt {

class Engine;

class Runtime {
 public:
  // Bootstrap, registry (environment LZ_MCA_* and config files, no --mca),
  // engine (transports), predefined communicators, coll selection.
  // `register_params` registers every runtime parameter table before the
  // registry reads its sources (the caller's: MPI_Init passes
  // cr/runtime_params.h's, which sees the layers this one must not).
  static StatusOr<std::unique_ptr<Runtime>> create(Status (*register_params)(Registry&));
  ~Runtime();

  Registry& registry() { return *registry_; }
  Bootstrap& bootstrap() { return *bootstrap_; }
  Engine& engine() { return *engine_; }
  // The coll framework's selected modules, best priority first.
  const std::vector<coll::Module*>& coll_modules() const { return coll_modules_; }

  // The selected cr and crcp modules (cr/none and crcp/none when
  // checkpointing is off) and their component names.
  cr::Module& cr_module() { return *cr_; }
  crcp::Module& crcp_module() { return *crcp_; }
  const std::string& cr_name() const { return cr_name_; }
  const std::string& crcp_name() const { return crcp_name_; }
  // Checkpointing is on: a cr component other than none, and a launcher to
  // ask for checkpoints (a singleton has none).
  bool cr_enabled() const { return cr_name_ != "none" && bootstrap_->control_fd() >= 0; }
  // Started by srun or mpiexec, coordinated by the job's `lazarus
  // coordinate` (bootstrap/coordinator_link.h): no launcher stops this
  // process when the job ends, so it ends itself when the coordinator does.
  bool coordinated() const { return coordinated_; }

  int rank() const { return bootstrap_->job().rank; }
  int size() const { return bootstrap_->job().size; }

  // Collective over the world: flushes traffic, barrier, closes transports and
  // the bootstrap channel.
  Status finalize();

 private:
  Runtime() = default;
  std::unique_ptr<Registry> registry_;
  std::unique_ptr<Bootstrap> bootstrap_;
  std::unique_ptr<Engine> engine_;
  std::vector<std::unique_ptr<Module>> coll_owned_;
  std::vector<coll::Module*> coll_modules_;
  std::unique_ptr<Module> cr_owned_, crcp_owned_;
  cr::Module* cr_ = nullptr;
  crcp::Module* crcp_ = nullptr;
  std::string cr_name_ = "none", crcp_name_ = "none";
  bool coordinated_ = false;
};

// Parameters the program set before MPI_Init (MPI_T_cvar_write, in order):
// create() applies them above every other source.
void set_settings_before_init(std::vector<std::pair<std::string, std::string>> settings);

// The runtime of this process; valid between MPI_Init and MPI_Finalize.
Runtime& runtime();
// Null outside that window.
Runtime* runtime_if_any();
void set_runtime(std::unique_ptr<Runtime> rt);
std::unique_ptr<Runtime> take_runtime();

}  // namespace lz::rt
