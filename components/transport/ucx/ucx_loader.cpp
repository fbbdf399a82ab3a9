#include "ucx_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "lazarus/companion_library.h"
#include "lazarus/log.h"

namespace lz::transport::ucx {
namespace {

void keep_ucm_hooks_off_at_load() {
  if (::dlopen("libucs.so.0", RTLD_NOW | RTLD_NOLOAD) != nullptr) {
    log::debug("ucx: UCX was loaded before the ucx transport: its memory hooks are as the program chose");
    return;
  }
  if (std::getenv("UCX_MEM_MMAP_HOOK_MODE") != nullptr || std::getenv("UCX_MEM_EVENTS") != nullptr) {
    log::debug("ucx: UCX_MEM_MMAP_HOOK_MODE/UCX_MEM_EVENTS set: UCX's memory hooks are as the user chose");
    return;
  }
  ::setenv("UCX_MEM_MMAP_HOOK_MODE", "none", 0);
}

}  // namespace

StatusOr<const UcxApi*> load_ucx() {
  static std::once_flag once;
  static UcxApi api;
  static Status error;
  std::call_once(once, [] {
    keep_ucm_hooks_off_at_load();
    auto lib = CompanionLibrary::open("ucx", kUcxLibrary);
    if (!lib.ok()) {
      error = lib.status();
      return;
    }
    // All or nothing: api stays unusable unless every entry point is there.
    UcxApi found{};
    error = lib->find("lz_ucx_make_module", &found.make_module);
    if (error.ok()) error = lib->find("lz_ucx_library_version", &found.library_version);
    if (error.ok()) error = lib->find("lz_ucx_tl_summary", &found.tl_summary);
    if (error.ok()) api = found;
  });
  if (!error.ok()) return error;
  return &api;
}

}  // namespace lz::transport::ucx
