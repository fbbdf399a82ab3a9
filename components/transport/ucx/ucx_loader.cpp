#include "ucx_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "lazarus/log.h"

namespace lz::transport::ucx {
namespace {

std::string library_dir() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&load_ucx), &info) == 0 || info.dli_fname == nullptr) return "";
  std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

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
    const std::string path = library_dir() + kUcxLibrary;
    void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      const char* e = ::dlerror();
      error = Unavailable("ucx: cannot load " + path + ": " + (e ? e : "unknown error"));
      return;
    }
    api.make_module = reinterpret_cast<decltype(api.make_module)>(::dlsym(h, "lz_ucx_make_module"));
    api.library_version = reinterpret_cast<decltype(api.library_version)>(::dlsym(h, "lz_ucx_library_version"));
    api.tl_summary = reinterpret_cast<decltype(api.tl_summary)>(::dlsym(h, "lz_ucx_tl_summary"));
    if (api.make_module == nullptr || api.library_version == nullptr || api.tl_summary == nullptr)
      error = Internal("ucx: " + path + " lacks an lz_ucx_* entry point (a stale build?)");
  });
  if (!error.ok()) return error;
  return &api;
}

}  // namespace lz::transport::ucx
