#include "lazarus/companion_library.h"

#include <dlfcn.h>

#include <filesystem>

namespace lz {

std::string lazarus_library_dir() {
  // The object this function is in is liblazarus (the framework is linked
  // into it), wherever the program found it (rpath, LD_LIBRARY_PATH).
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&lazarus_library_dir), &info) == 0 || info.dli_fname == nullptr) return "";
  std::error_code ec;
  const auto p = std::filesystem::weakly_canonical(info.dli_fname, ec);
  return ec ? std::string() : p.parent_path().string();
}

StatusOr<CompanionLibrary> CompanionLibrary::open(std::string_view owner, std::string_view file) {
  const std::string dir = lazarus_library_dir();
  const std::string path = (dir.empty() ? std::string() : dir + "/") + std::string(file);
  ::dlerror();
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* e = ::dlerror();
    return Unavailable(std::string(owner) + ": cannot load " + path + ": " + (e ? e : "unknown dlopen error"));
  }
  return CompanionLibrary(std::string(owner), path, h);
}

Status CompanionLibrary::find(const char* symbol, void** out) const {
  ::dlerror();
  void* p = ::dlsym(handle_, symbol);
  if (p == nullptr)
    return Internal(owner_ + ": " + path_ + " lacks the entry point " + symbol +
                    " (from another build of Lazarus? rebuild it)");
  *out = p;
  return Status::Ok();
}

}  // namespace lz
