// The entry points of liblazarus_ofi.so, looked up by the built-in
// component's loader (ofi_loader.h): plain C names, so that dlsym finds them.
#include "lazarus/strings.h"
#include "ofi_info.h"
#include "ofi_transport.h"

namespace lz::transport::ofi {
namespace {

Status check_provider(const OfiConfig& config, const std::string& pname) {
  if (config.provider == kAutoProvider) {
    // auto needs shm (one host) or tcp;ofi_rxm (several); init() picks.
    if (get_info("shm", nullptr).ok() || get_info("tcp;ofi_rxm", nullptr).ok()) return Status::Ok();
    const auto found = rdm_providers();
    return Unavailable("libfabric " + library_version() + " offers neither shm nor tcp;ofi_rxm for " + pname +
                       "=auto (RDM providers found: " + (found.empty() ? "none" : str::join(found, ", ")) + "); set " +
                       pname + " to one of them");
  }
  if (auto info = get_info(config.provider, nullptr); !info.ok())
    return Status(info.status().code(), pname + " = '" + config.provider + "': " + info.status().message() + "; set " +
                                            pname + " to one of them, or to auto");
  return Status::Ok();
}

}  // namespace
}  // namespace lz::transport::ofi

extern "C" {

__attribute__((visibility("default"))) lz::transport::Module* lz_ofi_make_module(
    const lz::transport::ofi::OfiConfig& config) {
  return new lz::transport::ofi::OfiTransport(config);
}

__attribute__((visibility("default"))) lz::Status lz_ofi_check_provider(const lz::transport::ofi::OfiConfig& config,
                                                                        const std::string& param) {
  return lz::transport::ofi::check_provider(config, param);
}

__attribute__((visibility("default"))) std::vector<std::string> lz_ofi_details(
    const lz::transport::ofi::OfiConfig& config) {
  return lz::transport::ofi::OfiTransport::details(config);
}

}  // extern "C"
