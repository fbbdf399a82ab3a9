// What the ucx component knows about the UCX library of this process, before
// and apart from any context: its version, the transports (UCT resources) it
// finds here, the check of transport_ucx_tls against them, and the one-time
// setting that keeps UCX's memory hooks out of the process.
//
// UCM (UCX's memory-event library) patches mmap, munmap, mremap, shmat,
// shmdt, sbrk, brk and madvise and never undoes it; the patched code would
// live on in every checkpoint image and after every ucp_cleanup(). In UCX
// 1.13 it does so in libucs's constructor, when the library is loaded
// (ucm_mmap_init, bistro mode, "before other threads could execute the
// modified functions"), reading UCX_MEM_EVENTS and UCX_MEM_MMAP_HOOK_MODE
// from the environment then: no call made after the load can prevent it,
// ucp_config_modify() least of all (UCP's table does not hold those
// options). That is why UCX is loaded late, with UCX_MEM_MMAP_HOOK_MODE=none
// set first (ucx_loader.h). keep_memory_hooks_off() is the second line: it
// turns UCM's events off before the first ucp_init() (ucm_set_global_opts),
// so that ucp_init's registration cache does not try to install hooks later
// (with hook mode none that attempt fails anyway; with a user's bistro it
// would succeed). The hook mode itself must never be changed in a live
// process: UCM picks how to reach the original mmap by it, and switching to
// none makes ucm_mmap() call itself until the stack overflows. None of the
// transports the component is meant for (posix, sysv, cma, tcp, self) needs
// memory events: they register no memory and there are no GPU memory types.
//
//   keep_memory_hooks_off();                 // before ucp_init, once
//   LZ_RETURN_IF_ERROR(check_tls("posix,tcp"));
//   std::string v = library_version();        // "1.13.1"
#pragma once

#include <string>
#include <vector>

#include "lazarus/status.h"

namespace lz::transport::ucx {

// "1.13.1", from ucp_get_version_string() (the loaded library, not the headers).
std::string library_version();

// One UCT transport resource: "posix/memory", "tcp/eth0".
struct TlResource {
  std::string tl;
  std::string device;
};
// Every transport resource UCX finds here (what `ucx_info -d` lists), in
// UCX's order; computed once per process (opens and closes each memory
// domain, as ucx_info does; nothing stays open).
const std::vector<TlResource>& tl_resources();
// "posix, sysv, cma, tcp (lo, eth0), self" for messages and `lazarus info`.
std::string tl_summary();

// Checks every name of a UCX_TLS value against the transports found here and
// UCX's aliases (all, sm, shm, mm, ib, ...): the error names the value, the
// unknown names, what exists here and the parameter to change.
Status check_tls(const std::string& tls, const std::string& param_name);

// See the banner. Idempotent; call before every ucp_init().
void keep_memory_hooks_off();

}  // namespace lz::transport::ucx
