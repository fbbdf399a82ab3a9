// Loading UCX into the process only when a rank uses the ucx transport.
//
// libucs's constructor, run when the library is loaded, reads UCX_MEM_* and
// (UCX 1.13, the default bistro mode) patches mmap, munmap, mremap, shmat,
// shmdt, sbrk, brk and madvise right away ("before other threads could
// execute the modified functions", ucm_mmap_init), for good; it also installs
// UCX's SIGSEGV/SIGBUS/SIGILL/SIGFPE handlers (UCX_HANDLE_ERRORS=bt). Nothing
// a component does after the load can undo either, and linked into
// liblazarus that load would happen in every process of every job, ucx or
// not. So the module's implementation lives in liblazarus_ucx.so (linked
// with UCX), and load_ucx() loads it the first time a rank init()s the
// transport (or `lazarus info` lists it), after setting
// UCX_MEM_MMAP_HOOK_MODE=none in the environment — unless the user chose
// UCX_MEM_MMAP_HOOK_MODE or UCX_MEM_EVENTS, or the application had loaded
// UCX already (then its choice stands; logged). liblazarus_ucx.so sits
// beside liblazarus (build tree and install alike), a companion library
// (lazarus/companion_library.h), as transport/ofi's liblazarus_ofi.so.
//
//   LZ_ASSIGN_OR_RETURN(const UcxApi* api, load_ucx());
//   std::unique_ptr<Module> m(api->make_module(config));
#pragma once

#include <string>

#include "lazarus/frameworks/transport.h"
#include "lazarus/status.h"
#include "ucx_config.h"

namespace lz::transport::ucx {

// The entry points of liblazarus_ucx.so (ucx_entry.cpp), by dlsym.
struct UcxApi {
  transport::Module* (*make_module)(const UcxConfig* config);
  // Into `out`, at most `cap` bytes with the terminating NUL: "1.13.1".
  void (*library_version)(char* out, size_t cap);
  // "self, tcp (lo, eth0), sysv, posix, cma".
  void (*tl_summary)(char* out, size_t cap);
};

inline constexpr const char* kUcxLibrary = "liblazarus_ucx.so";

// Loads liblazarus_ucx.so once per process (never unloaded: UCX cannot be).
// Errors say which file and why (dlerror).
StatusOr<const UcxApi*> load_ucx();

}  // namespace lz::transport::ucx
