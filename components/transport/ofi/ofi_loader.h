// Loading libfabric into the process only when a rank uses the ofi transport.
//
// libfabric 1.17 as Debian builds it pulls libibverbs, librdmacm, libpsm,
// libpsm2 (and their own dependencies) in with it, and fi_getinfo() loads
// its provider plugins and sets up their global state (the shm provider's
// signal handlers among it). Linked into liblazarus, all of that was mapped
// into every process of every job, ofi or not: the core images of a shm job
// grew (cr.disk_full.* no longer fitted its store) and
// integration.libcr.LibcrTest.CrRunCheckpointTermRestartGivesTheSameResult
// failed. So the module's implementation lives in liblazarus_ofi.so (linked
// with libfabric), a companion library (lazarus/companion_library.h), and
// load_ofi() loads it when a rank's selection keeps ofi (it was asked for,
// or transport_ofi_auto_select is on) or `lazarus info` describes it.
//
//   LZ_ASSIGN_OR_RETURN(const OfiApi* api, load_ofi());
//   LZ_RETURN_IF_ERROR(api->check_provider(config, "transport_ofi_provider"));
//   std::unique_ptr<Module> m(api->make_module(config));
#pragma once

#include <string>
#include <vector>

#include "lazarus/frameworks/transport.h"
#include "lazarus/status.h"
#include "ofi_config.h"

namespace lz::transport::ofi {

// The entry points of liblazarus_ofi.so (ofi_entry.cpp), by dlsym. Both
// sides are built together from one source tree, so C++ types cross.
struct OfiApi {
  transport::Module* (*make_module)(const OfiConfig& config);
  // Whether libfabric offers the configured provider here (fi_getinfo, no
  // fabric opened); kUnavailable naming `param`, the providers found and
  // the fix when not.
  Status (*check_provider)(const OfiConfig& config, const std::string& param);
  // The lines `lazarus info` shows: libfabric's version, the RDM providers
  // found, which ones have FI_RMA reads, the provider setting.
  std::vector<std::string> (*details)(const OfiConfig& config);
};

inline constexpr const char* kOfiLibrary = "liblazarus_ofi.so";

// Loads liblazarus_ofi.so once per process (never unloaded). kUnavailable
// naming the file and why (dlerror: the .so missing, or libfabric.so.1).
StatusOr<const OfiApi*> load_ofi();

}  // namespace lz::transport::ofi
