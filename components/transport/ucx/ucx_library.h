// What the ucx component knows about the UCX library of this process, before
// and apart from any context: its version, the transports (UCT resources) it
// finds here, the check of transport_ucx_tls against them, and the one-time
// setting that keeps UCX's memory hooks out of the process.
//
// UCM (UCX's memory-event library) patches mmap, munmap, mremap, shmat,
// shmdt, sbrk, brk and madvise the first time a memory-event handler is set
// (ucm_set_event_handler: the memory-type cache or a registration cache) and
// never undoes it; the patched calls would then live on in every checkpoint
// image and after every ucp_cleanup(). The options deciding it
// (UCX_MEM_EVENTS, UCX_MEM_MMAP_HOOK_MODE) are read once, by libucs's
// constructor when the library is loaded, into ucm_global_opts: a setenv()
// or ucp_config_modify() done later by the component is not seen (ucp's
// config table does not hold them; ucp_config_modify() caches unknown
// names for UCT only). So keep_memory_hooks_off() rewrites the loaded
// options through ucm_set_global_opts() (events off; the hook mode must not
// change in a live process, see the .cpp) before the first ucp_init() of the
// process. A user who set either variable
// in the environment keeps their choice. None of the transports the
// component is meant for (posix, sysv, cma, tcp, self) needs memory events:
// they register no memory (no GPU memory types, no registration cache).
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
