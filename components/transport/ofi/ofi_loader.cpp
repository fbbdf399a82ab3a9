#include "ofi_loader.h"

#include <mutex>

#include "lazarus/companion_library.h"

namespace lz::transport::ofi {

StatusOr<const OfiApi*> load_ofi() {
  static std::once_flag once;
  static OfiApi api;
  static Status error;
  std::call_once(once, [] {
    auto lib = CompanionLibrary::open("ofi", kOfiLibrary);
    if (!lib.ok()) {
      error = lib.status();
      return;
    }
    OfiApi found{};
    error = lib->find("lz_ofi_make_module", &found.make_module);
    if (error.ok()) error = lib->find("lz_ofi_check_provider", &found.check_provider);
    if (error.ok()) error = lib->find("lz_ofi_details", &found.details);
    if (error.ok()) api = found;
  });
  if (!error.ok()) return error;
  return &api;
}

}  // namespace lz::transport::ofi
