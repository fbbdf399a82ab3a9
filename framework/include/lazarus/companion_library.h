// A companion library: a component's part that links a foreign library
// (UCX, libfabric) built as its own .so beside liblazarus and loaded only by
// the processes that use it. The component's descriptor, parameters and
// proxy module stay in liblazarus and name no symbol of the foreign library,
// so a process that never selects the component never maps it (nor runs its
// constructors, nor carries it in a core image). transport/ucx and
// transport/ofi load their modules this way (liblazarus_ucx.so,
// liblazarus_ofi.so).
//
// The library is looked for in the directory liblazarus itself was loaded
// from (the build tree's lib/ and the install prefix alike), never on the
// loader's search path: a companion from another build would not match this
// liblazarus. It is opened RTLD_NOW | RTLD_LOCAL and never closed (UCX and
// libfabric cannot be unloaded: they leave handlers and hooks behind).
//
//   LZ_ASSIGN_OR_RETURN(CompanionLibrary lib, CompanionLibrary::open("ofi", "liblazarus_ofi.so"));
//   Module* (*make)(const OfiConfig*) = nullptr;
//   LZ_RETURN_IF_ERROR(lib.find("lz_ofi_make_module", &make));
#pragma once

#include <string>
#include <string_view>

#include "lazarus/status.h"

namespace lz {

// The directory of the liblazarus this code runs in ("/.../build/lib"), ""
// when the dynamic loader cannot say.
std::string lazarus_library_dir();

class CompanionLibrary {
 public:
  // dlopen()s `file` from lazarus_library_dir(). kUnavailable, naming the
  // path and dlerror() (a missing file, or a missing dependency such as
  // libfabric.so.1), when it cannot be loaded; `owner` prefixes messages.
  static StatusOr<CompanionLibrary> open(std::string_view owner, std::string_view file);

  // Looks up the entry point `symbol` into `*out`; kInternal naming the
  // symbol when absent (a companion from an older build). `*out` is set
  // only on success.
  template <class Fn>
  Status find(const char* symbol, Fn** out) const {
    void* p = nullptr;
    LZ_RETURN_IF_ERROR(find(symbol, &p));
    *out = reinterpret_cast<Fn*>(p);
    return Status::Ok();
  }
  Status find(const char* symbol, void** out) const;

  const std::string& path() const { return path_; }

 private:
  CompanionLibrary(std::string owner, std::string path, void* handle)
      : owner_(std::move(owner)), path_(std::move(path)), handle_(handle) {}

  std::string owner_;
  std::string path_;
  void* handle_ = nullptr;  // never dlclose()d (see the banner)
};

}  // namespace lz
